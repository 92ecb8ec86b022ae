// Sharded checkpoints: the rules that tie a model.safetensors.index.json to
// the shards it names, as a pure function over what was read.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spec/finding.hpp"
#include "spec/model.hpp"
#include "spec/unchecked.hpp"

namespace safespec {

struct ShardIndex {
  std::vector<std::pair<std::string, std::string>> weight_map;  // tensor -> shard file, document order
  std::optional<std::uint64_t> total_size;                      // metadata.total_size
};

// What a shard holds, or why it holds nothing usable.
struct ShardState {
  std::optional<Model> model;
  std::string problem;  // "cannot open: No such file or directory", when !model
};
using ShardContents = std::map<std::string, ShardState>;

// ST-INDEX-SHARD-MISSING, -TENSOR-MISSING, -TENSOR-UNLISTED,
// -TENSOR-IN-TWO-SHARDS, -TOTAL-SIZE.
Findings check_index(const ShardIndex& index, const ShardContents& shards);

// ST-INDEX-TOTAL-SIZE cannot be decided while a shard is unreadable: the
// index's metadata.total_size as unchecked, naming the first such shard;
// nothing when the index declares no total_size or every shard was read.
std::optional<Unchecked> index_total_size_unchecked(const ShardIndex& index, const ShardContents& shards);

// A shard must be a plain file name beside the index: no '/', no "." or "..".
bool is_plain_shard_name(const std::string& name);

}  // namespace safespec
