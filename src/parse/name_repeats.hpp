// Repeated tensor names across many files, on several threads: the collision
// check of a checkpoint's files (src/commands/check.cpp) over a directory of 1,000
// files gathers, hashes and indexes 64,000 names after every file is read,
// which on one thread was a quarter of `check` on both cores
// (a directory of many files).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/model.hpp"
#include "spec/name_index.hpp"
#include "src/io/check_jobs.hpp"

namespace safespec {

// One file's tensors, and their names' hashes when its reader kept them
// (Header::name_hashes): used only when there is one per tensor.
struct NamedTensors {
  std::span<const TensorEntry> tensors;
  std::span<const std::uint64_t> hashes;
};

// The tensors of `files` numbered in order (a file's tensors after the
// previous file's), walked for repeated names: the RepeatWalk below, with
// every file added, whose repeats() are (its number, the first one's) for
// every tensor whose name an earlier one has, in order of its number, which
// is what NameIndex::for_each_repeat reports over the names in that order.
// Names whose hashes were not kept are hashed on up to `threads` threads, a
// file at a time; then all are indexed in order on the calling thread.
class RepeatWalk;
RepeatWalk find_repeats(std::span<const NamedTensors> files, CheckJobs threads);

// find_repeats a file at a time, for files that arrive in order while later
// ones are still being read: the walk over a directory's 1,000 files then
// runs beside the reads instead of after them all (0.74 ms on one thread
// after 7.2 ms of reads on two), on names still in cache. Files
// given to add() must outlive the walk; a file without kept hashes is hashed
// here. repeats() after the last add() equals find_repeats over the same
// files.
class RepeatWalk {
 public:
  // Room for `expected` names; more make the table grow (each name hashed
  // again, from its text, at every doubling).
  explicit RepeatWalk(std::size_t expected);
  // Room for `expected` names after all, while no name has been added: for
  // a walk that learns its size from its first file.
  void expect(std::size_t expected);
  void add(NamedTensors file);
  std::size_t names() const { return first_of_.back(); }
  const std::vector<std::pair<std::size_t, std::size_t>>& repeats() const { return repeats_; }
  // Tensor number k (< names()): the file it is in, numbered in the order
  // the files were added, and its entry.
  std::pair<std::size_t, const TensorEntry*> tensor(std::size_t k) const;

 private:
  std::vector<std::span<const TensorEntry>> files_;  // their hashes are used in add() only
  std::vector<std::size_t> first_of_{0};  // file f's first name's number; one more entry: the total
  std::vector<std::uint64_t> hashed_;     // the current file's hashes, when it came without them
  NameIndex index_;
  std::vector<std::pair<std::size_t, std::size_t>> repeats_;
};

}  // namespace safespec
