#include "tools/adversarial_cases.hpp"

#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "tools/adversarial_support.hpp"

namespace safespec::tools {

std::string_view origin_name(Origin o) {
  switch (o) {
    case Origin::Committed: return "committed";
    case Origin::Generated: return "generated";
    case Origin::Truncation: return "truncation";
    case Origin::Special: return "special";
    case Origin::Shrinks: return "shrinks";
  }
  return "?";
}

std::string le64(std::uint64_t n) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out;
}

namespace {

bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

bool write_safetensors(const std::string& path, const std::string& header, const std::string& data,
                       std::uint64_t sparse) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const std::string prefix = le64(header.size());
  const std::uint64_t total = 8 + header.size() + data.size() + sparse;
  const bool ok = fd >= 0 && write_all(fd, prefix.data(), 8) && write_all(fd, header.data(), header.size()) &&
                  write_all(fd, data.data(), data.size()) &&
                  (sparse == 0 || ::ftruncate(fd, static_cast<off_t>(total)) == 0);
  if (fd >= 0 && ::close(fd) != 0) return false;
  if (!ok) std::perror(("adversarial: writing " + path).c_str());
  return ok;
}

bool write_bytes(const std::string& path, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const bool ok = fd >= 0 && write_all(fd, bytes.data(), bytes.size());
  if (fd >= 0 && ::close(fd) != 0) return false;
  if (!ok) std::perror(("adversarial: writing " + path).c_str());
  return ok;
}

std::string manifest_line(const AdversarialCase& c) {
  const Expect& e = c.expect;
  return c.name + '\t' + std::string(origin_name(c.origin)) + '\t' + std::to_string(e.status) + '\t' + e.rule +
         '\t' + e.where + '\t' + e.message + '\t' + std::to_string(e.errors) + '\t' + c.what;
}

std::pair<std::string, std::string> marked_fp8_layer(const std::string& marker_json) {
  const std::string n = std::to_string(marker_json.size());
  const std::string end = std::to_string(260 + marker_json.size());
  const std::string header = "{" + entry("l.weight_scale", "F32", "[]", "[0,4]") + "," +
                             entry("l.weight", "F8_E4M3", "[4,64]", "[4,260]") + "," +
                             entry("l.comfy_quant", "U8", "[" + n + "]", "[260," + end + "]") + "}";
  const float one = 1.0f;
  std::string data(4, '\0');
  std::memcpy(data.data(), &one, 4);
  data += std::string(256, '\x38');  // E4M3 1.0
  return {pad8(header), data + marker_json};
}

std::vector<AdversarialCase> adversarial_cases() {
  std::vector<AdversarialCase> out;
  add_small_cases(out);
  add_utf8_cases(out);
  add_large_cases(out);
  add_truncation_cases(out);
  return out;
}

}  // namespace safespec::tools
