// Zero-filled vectors for whole weights (tens to hundreds of MB), backed by
// transparent huge pages where Linux offers them on request (`madvise` mode):
// first-touch faults of 4 KiB pages cost more than the dequantization itself
// on small virtual machines (16384 faults for a 64 MiB F32 weight), 2 MiB
// pages take 512 times fewer. Only the backing changes, never a value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace safespec::numerics {

template <class T>
std::vector<T> large_buffer(std::size_t n) {
  std::vector<T> v;
  v.reserve(n);  // allocated, not yet touched
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{1} << 21;
  const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
  const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1), last = (begin + n * sizeof(T)) & ~(kHuge - 1);
  if (last > first) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // a hint: may fail
#endif
  v.resize(n);
  return v;
}

}  // namespace safespec::numerics
