// Duplicate detection for keys held elsewhere (tensor names in a vector):
// open addressing over (hash tag, index) pairs, 8 bytes a slot, so a million
// names cost 16 MB and no allocation per name. Shared by both header readers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace safespec {

class NameIndex {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  // Sized for `expected` names; grows if more arrive.
  void reset(std::size_t expected) {
    std::size_t cap = 16;
    while (cap < 2 * expected) cap *= 2;
    slots_.assign(cap, 0);
    count_ = 0;
  }

  // If a name equal to `name` was inserted before, returns its index.
  // Otherwise records `index` (< 2^32) for `name` and returns npos.
  // name_at(i) must return the name recorded for index i.
  template <class NameAt>
  std::size_t find_or_insert(std::string_view name, std::size_t index, const NameAt& name_at) {
    if (2 * (count_ + 1) > slots_.size()) grow(name_at);
    const std::uint64_t h = std::hash<std::string_view>{}(name);
    const std::uint64_t tag = h & kTagMask;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const std::uint64_t s = slots_[i];
      if (s == 0) {
        slots_[i] = tag | (index + 1);
        ++count_;
        return npos;
      }
      if ((s & kTagMask) == tag && name_at((s & kIndexMask) - 1) == name) return (s & kIndexMask) - 1;
    }
  }

 private:
  static constexpr std::uint64_t kTagMask = 0xFFFFFFFF00000000u;
  static constexpr std::uint64_t kIndexMask = 0x00000000FFFFFFFFu;

  template <class NameAt>
  void grow(const NameAt& name_at) {
    std::vector<std::uint64_t> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : old.size() * 2, 0);
    const std::size_t mask = slots_.size() - 1;
    for (const std::uint64_t s : old) {
      if (s == 0) continue;
      std::size_t i = std::hash<std::string_view>{}(name_at((s & kIndexMask) - 1)) & mask;
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<std::uint64_t> slots_;
  std::size_t count_ = 0;
};

}  // namespace safespec
