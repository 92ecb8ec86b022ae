// Repeated names across many files on several threads: the collision check
// of a checkpoint's files (src/check.cpp) over a directory of 1,000 files
// hashes and indexes 64,000 names after every file is read, which on one
// thread was a quarter of `check` on both cores (issue 14, "Many files").
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace safespec {

// Every name equal to an earlier one, as (its number, the first one's), in
// order of its number: what NameIndex::for_each_repeat reports. The names
// are hashed on up to `threads` threads, in ranges, then indexed in order on
// the calling thread with their hashes given.
std::vector<std::pair<std::size_t, std::size_t>> find_repeats(std::span<const std::string_view> names,
                                                               unsigned threads);

}  // namespace safespec
