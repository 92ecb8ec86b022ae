// Duplicate detection for keys held elsewhere (tensor names in a vector):
// open addressing over (32-bit hash tag, 32-bit index) slots, at most half
// full: 100,000 names take 2 MB, a million 16 MB, with no allocation per name,
// and a stored name is compared (a likely cache miss) only when tags match.
// Shared by both header readers. The hash is keyed per process
// (spec/name_hash.hpp), so crafted names cannot force long probe runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/name_hash.hpp"

namespace safespec {

class NameIndex {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  NameIndex() = default;
  NameIndex(const NameIndex&) = default;
  NameIndex& operator=(const NameIndex&) = default;
  // A moved-from index is empty, its count too (a stale count made every
  // insert after reuse grow the table).
  NameIndex(NameIndex&& other) noexcept
      : slots_(std::move(other.slots_)), count_(std::exchange(other.count_, 0)) {
    other.slots_.clear();
  }
  NameIndex& operator=(NameIndex&& other) noexcept {
    if (this != &other) {
      slots_ = std::move(other.slots_);
      other.slots_.clear();
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~NameIndex() = default;

  // Sized for `expected` names; grows if more arrive.
  void reset(std::size_t expected) {
    std::size_t cap = 16;
    while (cap < 2 * expected) cap *= 2;
    slots_.assign(cap, 0);
    count_ = 0;
  }

  // If a name equal to `name` was inserted before, returns its index.
  // Otherwise records `index` (< 2^32 - 1) for `name` and returns npos.
  // The tag is the hash's high half, the slot comes from its low bits.
  // name_at(i) must return the name recorded for index i.
  template <class NameAt>
  std::size_t find_or_insert(std::string_view name, std::size_t index, const NameAt& name_at) {
    return find_or_insert_hashed(name_hash(name), name, index, name_at);
  }

  // The index recorded for a name equal to `name`, or npos. Reads only, so
  // threads may look names up at once (a shard index's, from the threads
  // that read its shards).
  template <class NameAt>
  std::size_t find(std::string_view name, const NameAt& name_at) const {
    if (slots_.empty()) return npos;
    const std::uint64_t s = slots_[probe(name_hash(name), name, name_at)];
    return s == 0 ? npos : (s & kIndexMask) - 1;
  }

  // The first earlier duplicate among names 0..n-1 (as find_or_insert would
  // report it), or npos. With `hashes` (room for n), each name's name_hash
  // is written there too (every name's when there is no duplicate; past one,
  // only some): the collision check across a checkpoint's files
  // (src/parse/name_repeats.hpp) then hashes no name again.
  template <class NameAt>
  std::size_t first_duplicate(std::size_t n, const NameAt& name_at, std::uint64_t* hashes = nullptr) {
    // A few names (a header's __metadata__ keys, mostly) are compared with
    // each other: at most six compares, against hashing each one and
    // clearing a table (a tenth of parsing an 8-tensor header's metadata).
    if (!hashes && n <= kCompareUpTo) {
      for (std::size_t i = 1; i < n; ++i)
        for (std::size_t j = 0; j < i; ++j)
          if (name_at(j) == name_at(i)) return i;
      return npos;
    }
    std::size_t found = npos;
    const auto hash_at = [&](std::size_t i) {
      const std::uint64_t h = name_hash(name_at(i));
      if (hashes) hashes[i] = h;
      return h;
    };
    for_each_repeat_hashed(n, hash_at, name_at, [&](std::size_t i, std::size_t) {
      found = i;
      return false;
    });
    return found;
  }

  // Names 0..n-1 in order into an empty index (sized for n): for each one
  // equal to an earlier one, on_repeat(i, first) with the earlier one's
  // number, which stops the walk when it returns false. The slot of the name
  // kAhead further on is requested from memory before each insert: beside a
  // large header, or the 64,000 names of a 1,000-file checkpoint, the table
  // outgrows L2, and waiting for each slot was most of the time. Only the
  // hashes in between are kept (a ring, not one per name: 8 MB on a
  // 1,000,000-tensor header).
  template <class NameAt, class OnRepeat>
  void for_each_repeat(std::size_t n, const NameAt& name_at, const OnRepeat& on_repeat) {
    for_each_repeat_hashed(n, [&](std::size_t i) { return name_hash(name_at(i)); }, name_at, on_repeat);
  }

  // The same with each name's name_hash given by hash_at(i) (worked out
  // elsewhere: on other threads, or while the names were read).
  template <class HashAt, class NameAt, class OnRepeat>
  void for_each_repeat_hashed(std::size_t n, const HashAt& hash_at, const NameAt& name_at, const OnRepeat& on_repeat) {
    begin_walk(n);
    walk(0, n, hash_at, name_at, on_repeat);
  }

  // The same walk in runs, for names that arrive a run at a time (the files
  // of a directory, as they are read): begin_walk(expected), then
  // walk(from, to, ...) for consecutive runs [0, a), [a, b), ...; together
  // they report what for_each_repeat_hashed(b, ...) reports, the table
  // growing if more than `expected` names come. name_at(i) must answer for
  // every i < to. False when on_repeat stopped the walk.
  void begin_walk(std::size_t expected) { reset(expected); }
  template <class HashAt, class NameAt, class OnRepeat>
  bool walk(std::size_t from, std::size_t to, const HashAt& hash_at, const NameAt& name_at, const OnRepeat& on_repeat) {
    std::uint64_t ahead[kRing];
    for (std::size_t i = from; i < to && i < from + kAhead; ++i) ahead[i % kRing] = hash_at(i);
    for (std::size_t i = from; i < to; ++i) {
      if (i + kAhead < to) {
        const std::uint64_t h = hash_at(i + kAhead);
        ahead[(i + kAhead) % kRing] = h;
        __builtin_prefetch(&slots_[h & (slots_.size() - 1)]);
      }
      const std::size_t first = insert_numbered(ahead[i % kRing], i, name_at);
      if (first != npos && !on_repeat(i, first)) return false;
    }
    return true;
  }

 private:
  static constexpr std::size_t kCompareUpTo = 4;
  static constexpr std::size_t kAhead = 16;
  static constexpr std::size_t kRing = 32;  // a power of two above kAhead
  static_assert(kRing > kAhead && (kRing & (kRing - 1)) == 0);

  // find_or_insert for name i (hash h) of a walk in order, which reads name
  // i only when a tag matches: the names of 1,000 files' models are cold in
  // cache, and reading each one for a compare that rarely happens was a third
  // of the walk.
  template <class NameAt>
  std::size_t insert_numbered(std::uint64_t h, std::size_t i, const NameAt& name_at) {
    if (2 * (count_ + 1) > slots_.size()) grow(name_at);
    const std::uint64_t tag = h & kTagMask;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t at = h & mask;; at = (at + 1) & mask) {
      std::uint64_t& s = slots_[at];
      if (s == 0) {
        s = tag | (i + 1);
        ++count_;
        return npos;
      }
      if ((s & kTagMask) == tag && name_at((s & kIndexMask) - 1) == name_at(i)) return (s & kIndexMask) - 1;
    }
  }

  template <class NameAt>
  std::size_t find_or_insert_hashed(std::uint64_t h, std::string_view name, std::size_t index, const NameAt& name_at) {
    if (2 * (count_ + 1) > slots_.size()) grow(name_at);
    std::uint64_t& s = slots_[probe(h, name, name_at)];
    if (s != 0) return (s & kIndexMask) - 1;
    s = (h & kTagMask) | (index + 1);
    ++count_;
    return npos;
  }

  // The slot of the name equal to `name` (hash h), or the empty slot where
  // it would go; the table is never full, so the walk ends.
  template <class NameAt>
  std::size_t probe(std::uint64_t h, std::string_view name, const NameAt& name_at) const {
    const std::uint64_t tag = h & kTagMask;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const std::uint64_t s = slots_[i];
      if (s == 0 || ((s & kTagMask) == tag && name_at((s & kIndexMask) - 1) == name)) return i;
    }
  }

  static constexpr std::uint64_t kTagMask = 0xFFFFFFFF00000000u;
  static constexpr std::uint64_t kIndexMask = 0x00000000FFFFFFFFu;

  template <class NameAt>
  void grow(const NameAt& name_at) {
    std::vector<std::uint64_t> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : old.size() * 2, 0);
    const std::size_t mask = slots_.size() - 1;
    for (const std::uint64_t s : old) {
      if (s == 0) continue;
      std::size_t i = name_hash(name_at((s & kIndexMask) - 1)) & mask;
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<std::uint64_t> slots_;
  std::size_t count_ = 0;
};

}  // namespace safespec
