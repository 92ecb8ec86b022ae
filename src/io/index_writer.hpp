// The canonical text of a model.safetensors.index.json: what transformers'
// save_pretrained writes, without its indentation (metadata first, then
// weight_map in the index's order), so parse_shard_index reads it back to the
// same ShardIndex.
#pragma once

#include <string>

#include "spec/index_rules.hpp"

namespace safespec {

std::string canonical_index_json(const ShardIndex& index);

}  // namespace safespec
