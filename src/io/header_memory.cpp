#include "src/io/header_memory.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <new>

namespace safespec {

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

}  // namespace

HeaderMemory::HeaderMemory(std::size_t bytes) {
  if (bytes >= kHugePage) {
    // Rounded up to whole huge pages, so the last one is not split.
    const std::size_t length = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
      ::madvise(p, length, MADV_HUGEPAGE);  // advice only: without THP this is ordinary memory
      data_ = static_cast<std::uint8_t*>(p);
      mapped_ = length;
      return;
    }
  }
  data_ = new std::uint8_t[bytes == 0 ? 1 : bytes];
}

void advise_huge_pages(const void* data, std::size_t bytes) {
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  if (bytes < kHugePage || begin > UINTPTR_MAX - bytes) return;
  const std::uintptr_t first = (begin + kHugePage - 1) / kHugePage * kHugePage;
  const std::uintptr_t last = (begin + bytes) / kHugePage * kHugePage;
  if (first < last) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

HeaderMemory::~HeaderMemory() {
  if (mapped_ != 0)
    ::munmap(data_, mapped_);
  else
    delete[] data_;
}

}  // namespace safespec
