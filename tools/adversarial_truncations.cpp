// Truncated files at every boundary: every prefix of a small valid file and
// of a quantized one (with a P.comfy_quant marker), one case per byte count.
// Too many to commit: written into the build tree at test time and replayed
// in-process (check_paths), where each costs microseconds.
#include <cstdio>
#include <string>

#include "tools/adversarial_cases.hpp"
#include "tools/adversarial_support.hpp"

namespace safespec::tools {

namespace {

// The finding for a prefix of k bytes of a file with header length n and
// total length len: F1 inside the prefix, F4 inside the header, F13 inside
// the data (the last tensor's END is past the buffer), nothing for the whole.
Expect truncated_expect(std::size_t k, std::size_t n, std::size_t len, std::uint64_t data_errors) {
  if (k < 8) return fail("ST-FILE-TOO-SMALL", "byte 0", "found a file of " + std::to_string(k) + " byte");
  if (k < 8 + n) return fail("ST-HEADER-LENGTH", "byte 0", "found " + std::to_string(k) + " byte");
  if (k < len)
    return fail("ST-BUFFER-TRUNCATED", "byte " + std::to_string(k), "found " + std::to_string(k - 8 - n) + " byte", data_errors);
  return clean();
}

void add_prefixes(std::vector<AdversarialCase>& out, const std::string& base, const std::string& header,
                  const std::string& data, std::uint64_t data_errors) {
  const std::string file = le64(header.size()) + header + data;
  for (std::size_t k = 0; k <= file.size(); ++k) {
    char name[64];
    std::snprintf(name, sizeof name, "truncated_%s_%04zu.safetensors", base.c_str(), k);
    out.push_back({name, Origin::Truncation,
                   "the first " + std::to_string(k) + " of " + std::to_string(file.size()) + " bytes of " + base,
                   truncated_expect(k, header.size(), file.size(), data_errors),
                   [prefix = file.substr(0, k)](const std::string& path) { return write_bytes(path, prefix); }});
  }
}

}  // namespace

void add_truncation_cases(std::vector<AdversarialCase>& out) {
  add_prefixes(out, "plain",
               pad8("{" + entry("a", "F32", "[2]", "[0,8]") + "," + entry("b", "U8", "[3]", "[8,11]") + "}"),
               std::string("\0\0\x80\x3f\0\0\0\x40xyz", 11), 1);
  const auto [header, data] = marked_fp8_layer("{\"format\":\"float8_e4m3fn\"}");
  // Cut anywhere in the data, the marker lies outside the file: F13 is the
  // one error; the marker is listed as not checked (not CQ-MARKER-SIZE, and
  // the weight is not reported unmarked).
  add_prefixes(out, "fp8_marked", header, data, 1);
}

}  // namespace safespec::tools
