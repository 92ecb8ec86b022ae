// A weight_map's entries as a reader of model.safetensors.index.json meets
// them, in document order: the one place that decides which entry an index
// is refused for, whichever reader read the text (simdjson's DOM in
// src/parse/shard_index.cpp, or the plain reader in src/parse/plain_index.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "spec/index_rules.hpp"
#include "spec/result.hpp"

namespace safespec {

// An ST-INDEX-JSON error at `where`.
Error index_json_error(Place where, std::string message);

// Every entry in order is refused for a value that is no string, then for a
// tensor an earlier entry names, then for a shard that is no plain file name.
// The repeats are found all at once (ShardIndex::seal) after the walk, which
// stops at the first entry refused for its value or its shard (a shard is
// checked at its first entry, where the index learns it): a repeat found is
// then the first refusal. The views given must outlive finish().
// Told of each shard an index names, at its first entry, once the entry is
// taken (its name is a plain file name): so the shards can be read while the
// rest of the index is (src/parse/shard_feed.hpp). The index may still be refused
// after; whoever listens drops what it did then.
class ShardSink {
 public:
  virtual void shard_found(std::string_view name) = 0;

 protected:
  ~ShardSink() = default;
};

class IndexEntries {
 public:
  explicit IndexEntries(std::size_t expected, ShardSink* sink = nullptr) : sink_(sink) { index_.reserve(expected); }

  // `tensor -> shard`; nothing once the walk has stopped.
  void add(std::string_view tensor, std::string_view shard);
  // An entry whose value is no string: the walk stops.
  void not_a_string(std::string_view tensor);
  bool stopped() const { return not_string_ || not_plain_; }

  // The index, or its first refusal in the order above.
  Result<ShardIndex> finish() &&;

 private:
  ShardIndex index_;
  ShardSink* sink_;
  std::optional<std::string_view> not_string_;  // its tensor
  std::optional<std::string_view> not_plain_;   // its shard
};

}  // namespace safespec
