// Repeated tensor names across many files, on several threads: the collision
// check of a checkpoint's files (src/check.cpp) over a directory of 1,000
// files gathers, hashes and indexes 64,000 names after every file is read,
// which on one thread was a quarter of `check` on both cores (issue 14,
// "Many files").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "spec/model.hpp"

namespace safespec {

// One file's tensors, and their names' hashes when its reader kept them
// (Header::name_hashes): used only when there is one per tensor.
struct NamedTensors {
  std::span<const TensorEntry> tensors;
  std::span<const std::uint64_t> hashes;
};

// The tensors of `files` numbered in order (a file's tensors after the
// previous file's): every tensor whose name an earlier one has, as (its
// number, the first one's), in order of its number, which is what
// NameIndex::for_each_repeat reports over the names in that order. Names
// whose hashes were not kept are hashed on up to `threads` threads, a file
// at a time; then all are indexed in order on the calling thread.
std::vector<std::pair<std::size_t, std::size_t>> find_repeats(std::span<const NamedTensors> files, unsigned threads);

}  // namespace safespec
