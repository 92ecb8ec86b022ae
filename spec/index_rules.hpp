// Sharded checkpoints: the rules that tie a model.safetensors.index.json to
// the shards it names, as a pure function over what was read.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/finding.hpp"
#include "spec/model.hpp"
#include "spec/name.hpp"
#include "spec/name_index.hpp"
#include "spec/unchecked.hpp"

namespace safespec {

// A model.safetensors.index.json's weight_map (tensor -> shard file, in
// document order, each tensor once) and its metadata.total_size. An index of
// a 1,000-shard checkpoint lists 64,000 tensors, each shard some 64 times:
// tensor names live in one arena, each shard name once (entries hold its
// number), and the names are hashed once, here, for the index's own
// duplicate check and for every shard's lookups after (two strings
// an entry and hashing every name again in check_index were most of the
// time `check` spent outside the shards' threads).
class ShardIndex {
 public:
  static constexpr std::size_t npos = NameIndex::npos;
  // A tensor no entry names, in locate_tensors's answer.
  static constexpr std::uint32_t kUnlisted = 0xFFFFFFFFu;

  ShardIndex() = default;
  // Entries as written (tests and tools); a tensor given twice throws
  // std::invalid_argument, as an index cannot hold it.
  ShardIndex(std::initializer_list<std::pair<std::string_view, std::string_view>> entries,
             std::optional<std::uint64_t> total = std::nullopt);

  // Appends `tensor -> shard` and returns npos; or, if an entry names the
  // tensor already, adds nothing and returns that entry's number. If add,
  // append or seal throws (std::bad_alloc), the index is left to be
  // destroyed, not used: its table may name an entry that was not added.
  std::size_t add(std::string_view tensor, std::string_view shard);
  // Room for n entries.
  void reserve(std::size_t n);
  // Reading a document: append() each entry without the duplicate check,
  // then seal() checks them all at once, each name hashed ahead of its probe
  // (NameIndex::for_each_repeat; an add at a time waits for each slot, a
  // fifth of reading a 1,000-shard index). seal() returns the first entry
  // that names a tensor an earlier one names, or npos (then the index is
  // whole). Until seal(), find() and add() do not see appended entries.
  void append(std::string_view tensor, std::string_view shard);
  std::size_t seal();

  std::size_t size() const noexcept { return entries_.size(); }
  std::string_view tensor(std::size_t i) const noexcept { return entries_[i].tensor; }
  const std::string& shard(std::size_t i) const noexcept { return shards_[entries_[i].shard]; }
  std::uint32_t shard_number(std::size_t i) const noexcept { return entries_[i].shard; }
  // Every shard an entry names, once, in the order of their first entries.
  const std::vector<std::string>& shards() const noexcept { return shards_; }
  // The entry naming `tensor`, or npos; the number of shard `name` in
  // shards(), or npos. Read-only: safe from many threads at once.
  std::size_t find(std::string_view tensor) const;
  std::size_t find_shard(std::string_view name) const;

  std::optional<std::uint64_t> total_size;  // metadata.total_size

  // The same entries in the same order and the same total_size.
  friend bool operator==(const ShardIndex& a, const ShardIndex& b);

 private:
  struct Entry {
    Name tensor;
    std::uint32_t shard;
  };
  std::uint32_t intern(std::string_view shard);
  std::vector<Entry> entries_;
  std::vector<std::string> shards_;
  NameIndex tensors_;     // entry numbers by tensor name
  NameIndex shard_names_;  // shard numbers by name
  NameArena text_;        // the entries' tensor names (a copy owns its names)
};

// The sum of a shard's tensors' sizes (end - begin, for each tensor whose
// end is not before its begin), for ST-INDEX-TOTAL-SIZE; `overflows` when
// it exceeds 2^64-1.
struct ShardBytes {
  std::uint64_t sum = 0;
  bool overflows = false;
  friend bool operator==(const ShardBytes&, const ShardBytes&) = default;
};
ShardBytes shard_bytes(const Model& model);

// What a shard holds, or why it holds nothing usable.
struct ShardState {
  std::optional<Model> model;
  std::string problem;  // "cannot open: No such file or directory", when !model
  // Optional: locate_tensors(index, *model) for the index it is checked
  // against, worked out where the shard was read (on its thread).
  // check_index works it out itself when its size is not the model's tensor
  // count or a number in it is no entry of the index.
  std::vector<std::uint32_t> located;
  // Optional: shard_bytes(*model), worked out where the shard was read, so
  // check_index reads no tensor of a shard whose tensors are all listed
  // (64,000 cold entries of 72 bytes for 1,000 shards). Whoever changes the
  // model after that resets it.
  std::optional<ShardBytes> bytes;
};
using ShardContents = std::map<std::string, ShardState>;

// Per tensor of `model`: the number of the index entry that names it, or
// ShardIndex::kUnlisted.
std::vector<std::uint32_t> locate_tensors(const ShardIndex& index, const Model& model);

// ST-INDEX-SHARD-MISSING, -TENSOR-MISSING, -TENSOR-UNLISTED,
// -TENSOR-IN-TWO-SHARDS, -TOTAL-SIZE.
Findings check_index(const ShardIndex& index, const ShardContents& shards);

// ST-INDEX-TOTAL-SIZE cannot be decided while a shard is unreadable: the
// index's metadata.total_size as unchecked, naming the first such shard;
// nothing when the index declares no total_size or every shard was read.
std::optional<Unchecked> index_total_size_unchecked(const ShardIndex& index, const ShardContents& shards);

// A shard must be a plain file name beside the index: no '/', no "." or "..".
bool is_plain_shard_name(std::string_view name);

}  // namespace safespec
