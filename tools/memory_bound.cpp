// memory_bound SAFESPEC DIR: writes a header of just under 100,000,000 bytes
// (about 800,000 tensors, a sparse data section of several TB) into DIR, runs
// `SAFESPEC check` on it under RLIMIT_AS = 3 x the header length + a fixed
// allowance (tools/memory_limit.hpp: the bound the README guarantees), and
// fails unless it exits 0 (an allocation past the limit aborts it) with a
// peak resident set under 3 x the header length. The README's memory bound is
// this test.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: memory_bound SAFESPEC DIR\n");
    return 2;
  }
  std::filesystem::create_directories(argv[2]);
  const std::string path = std::string(argv[2]) + "/header_100MB.safetensors";
  const gen::SyntheticText made = big_header();
  const std::string& header = made.text;
  const std::uint64_t data_size = made.data_size;
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    unsigned char prefix[8];
    for (int i = 0; i < 8; ++i) prefix[i] = static_cast<unsigned char>(header.size() >> (8 * i));
    if (fd < 0 || ::write(fd, prefix, 8) != 8 ||
        ::write(fd, header.data(), header.size()) != static_cast<ssize_t>(header.size()) ||
        ::ftruncate(fd, static_cast<off_t>(8 + header.size() + data_size)) != 0 || ::close(fd) != 0) {
      std::perror("memory_bound: writing the file");
      return 1;
    }
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    const rlimit as{tools::address_space_limit(header.size()), tools::address_space_limit(header.size())};
    if (::setrlimit(RLIMIT_AS, &as) != 0) ::_exit(126);
    ::execl(argv[1], argv[1], "check", path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  std::filesystem::remove(path);
  const double peak = static_cast<double>(usage.ru_maxrss) * 1024.0;
  const double ratio = peak / static_cast<double>(header.size());
  std::printf("header %zu bytes, peak resident %.0f bytes = %.2f x the header, address space limit %llu bytes\n",
              header.size(), peak, ratio,
              static_cast<unsigned long long>(tools::address_space_limit(header.size())));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "memory_bound: safespec check did not exit 0 under the address space limit\n");
    return 1;
  }
  return ratio < 3.0 ? 0 : 1;
}
