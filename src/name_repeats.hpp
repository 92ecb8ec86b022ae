// Repeated tensor names across many files, on several threads: the collision
// check of a checkpoint's files (src/check.cpp) over a directory of 1,000
// files gathers, hashes and indexes 64,000 names after every file is read,
// which on one thread was a quarter of `check` on both cores (issue 14,
// "Many files").
#pragma once

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "spec/model.hpp"

namespace safespec {

// The tensors of `files` numbered in order (a file's tensors after the
// previous file's): every tensor whose name an earlier one has, as (its
// number, the first one's), in order of its number, which is what
// NameIndex::for_each_repeat reports over the names in that order. The names
// are gathered and hashed on up to `threads` threads, a file at a time, then
// indexed in order on the calling thread with their hashes given.
std::vector<std::pair<std::size_t, std::size_t>> find_repeats(std::span<const std::span<const TensorEntry>> files,
                                                               unsigned threads);

}  // namespace safespec
