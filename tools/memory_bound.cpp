// memory_bound SAFESPEC DIR: writes a header of just under 100,000,000 bytes
// (about 800,000 tensors, a sparse data section of several TB; then one whose
// single tensor name, one whose single metadata value, fills it, and one with
// an escaped 64 MiB name that a window cuts) into DIR, runs
// `SAFESPEC check` on it under RLIMIT_AS = 3 x the header length + a fixed
// allowance (tools/memory_limit.hpp: the bound docs/hardening.md guarantees), and
// fails unless it exits 0 (an allocation past the limit aborts it) with a
// peak resident set under 3 x the header length. The memory bound of docs/hardening.md is
// this test.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>

#include "gen/synthetic.hpp"
#include "spec/file_prefix.hpp"
#include "tools/memory_limit.hpp"

using namespace safespec;

namespace {

// The largest synthetic checkpoint header under the limit, in a few tries.
gen::SyntheticText big_header() {
  std::size_t count = 700'000;
  for (;;) {
    gen::SyntheticText made = gen::synthetic_checkpoint_text(count, 64);
    if (made.text.size() <= kMaxHeaderSize && made.text.size() > kMaxHeaderSize - 200'000) return made;
    const double per_tensor = static_cast<double>(made.text.size()) / static_cast<double>(count);
    count = static_cast<std::size_t>(static_cast<double>(kMaxHeaderSize - 100'000) / per_tensor);
  }
}

// One header of just under kMaxHeaderSize bytes written as a file, checked
// under the limit: true when check exits 0 with a peak under 3x the header.
bool within_bound(const char* safespec, const std::string& path, std::string header, std::uint64_t data_size,
                  const char* what) {
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    unsigned char prefix[8];
    for (int i = 0; i < 8; ++i) prefix[i] = static_cast<unsigned char>(header.size() >> (8 * i));
    if (fd < 0 || ::write(fd, prefix, 8) != 8 ||
        ::write(fd, header.data(), header.size()) != static_cast<ssize_t>(header.size()) ||
        ::ftruncate(fd, static_cast<off_t>(8 + header.size() + data_size)) != 0 || ::close(fd) != 0) {
      std::perror("memory_bound: writing the file");
      return false;
    }
  }
  // Freed before the fork: a child's ru_maxrss starts from its parent's
  // resident size, which exec keeps as the high-water mark.
  const std::size_t header_size = header.size();
  std::string().swap(header);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    const rlimit as{tools::address_space_limit(header_size), tools::address_space_limit(header_size)};
    if (::setrlimit(RLIMIT_AS, &as) != 0) ::_exit(126);
    ::execl(safespec, safespec, "check", path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  std::filesystem::remove(path);
  const double peak = static_cast<double>(usage.ru_maxrss) * 1024.0;
  const double ratio = peak / static_cast<double>(header_size);
  std::printf("%s: header %zu bytes, peak resident %.0f bytes = %.2f x the header, address space limit %llu bytes\n",
              what, header_size, peak, ratio,
              static_cast<unsigned long long>(tools::address_space_limit(header_size)));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "memory_bound: %s: safespec check did not exit 0 under the address space limit\n", what);
    return false;
  }
  return ratio < 3.0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: memory_bound SAFESPEC DIR\n");
    return 2;
  }
  std::filesystem::create_directories(argv[2]);
  const std::string path = std::string(argv[2]) + "/header_100MB.safetensors";
  gen::SyntheticText made = big_header();
  bool ok = within_bound(argv[1], path, std::move(made.text), made.data_size, "780,000 tensors");
  // One unit as long as the header: the reader's window grows to hold it
  // whole, beside its decoded copy (a tensor list reserved from the header's
  // length alone once took these past the limit).
  // Padded to a multiple of 8 (W5), so no warning quotes the name (a finding
  // that does holds copies of it: a separate cost, not the reader's).
  const auto padded = [](std::string h) { return h + std::string((8 - h.size() % 8) % 8, ' '); };
  const std::size_t fill = kMaxHeaderSize - 200;
  const std::string entry = R"({"dtype":"F32","shape":[1],"data_offsets":[0,4]})";
  ok &= within_bound(argv[1], path, padded("{\"" + std::string(fill, 'a') + "\":" + entry + "}"), 4,
                     "one name of 99.9 MB");
  ok &= within_bound(argv[1], path,
                     padded("{\"__metadata__\":{\"k\":\"" + std::string(fill, 'b') + "\"},\"w\":" + entry + "}"), 4,
                     "one metadata value of 99.9 MB");
  // An escaped name (decoded into a buffer of its own) whose unit runs off a
  // window 20 bytes before its end, so that it is read again from a longer
  // one: its first decoding must not live on beside the second (it did, and
  // aborted under the limit). The window that holds it, from the name on, is
  // kHeaderWindowBytes doubled eight times (64 MiB). Empty tensors: no
  // finding quotes the name.
  const std::string empty = R"({"dtype":"U8","shape":[0],"data_offsets":[0,0]})";
  const std::size_t window = kHeaderWindowBytes << 8;
  std::string cut = "{\"x\":" + empty + ",\"\\n" + std::string(window - 23, 'a') + "\":" + empty + "}";
  cut += std::string(fill - cut.size(), ' ');
  ok &= within_bound(argv[1], path, padded(std::move(cut)), 0, "an escaped 64 MiB name read twice");
  return ok ? 0 : 1;
}
