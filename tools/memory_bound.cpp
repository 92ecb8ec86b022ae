// memory_bound SAFESPEC DIR: writes a header of just under 100,000,000 bytes
// (about 800,000 tensors, a sparse data section of several TB) into DIR, runs
// `SAFESPEC check` on it, and fails unless it exits 0 with a peak resident set
// under 3 x the header length. The README's memory bound is this test.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

#include "spec/file_prefix.hpp"
#include "spec/format_rules.hpp"
#include "src/writer.hpp"

using namespace safespec;

namespace {

Header make_header(std::size_t count) {
  Header h;
  for (std::size_t i = 0; i < count; ++i) {
    TensorEntry t;
    t.name = "model.layers." + std::to_string(i / 64) + ".mlp.experts." + std::to_string(i % 64) + ".w2.weight";
    t.dtype = i % 5 == 0 ? Dtype::F32 : Dtype::BF16;
    t.shape = i % 5 == 0 ? std::vector<std::uint64_t>{4096} : std::vector<std::uint64_t>{4096, 1408};
    h.tensors.push_back(std::move(t));
  }
  // Offsets in W1 order, as the writer assigns them.
  std::vector<TensorEntry*> order;
  for (auto& t : h.tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const TensorEntry* a, const TensorEntry* b) {
    return canonical_less(a->dtype, a->name, b->dtype, b->name);
  });
  std::uint64_t offset = 0;
  for (TensorEntry* t : order) {
    t->begin = offset;
    offset += *tensor_byte_size(t->shape, t->dtype);
    t->end = offset;
  }
  return h;
}

// The largest such header under the limit, in a few tries.
std::string big_header(std::uint64_t& data_size) {
  std::size_t count = 700'000;
  for (;;) {
    const Header h = make_header(count);
    std::string text = canonical_header_json(h);
    const double per_tensor = static_cast<double>(text.size()) / static_cast<double>(count);
    if (text.size() <= kMaxHeaderSize - 8 && text.size() > kMaxHeaderSize - 200'000) {
      text.resize((text.size() + 7) / 8 * 8, ' ');
      data_size = 0;
      for (const auto& t : h.tensors) data_size = std::max(data_size, t.end);
      return text;
    }
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
  std::uint64_t data_size = 0;
  const std::string header = big_header(data_size);
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
    ::execl(argv[1], argv[1], "check", path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  std::filesystem::remove(path);
  const double peak = static_cast<double>(usage.ru_maxrss) * 1024.0;
  const double ratio = peak / static_cast<double>(header.size());
  std::printf("header %zu bytes, peak resident %.0f bytes = %.2f x the header\n", header.size(), peak, ratio);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "memory_bound: safespec check did not exit 0\n");
    return 1;
  }
  return ratio < 3.0 ? 0 : 1;
}
