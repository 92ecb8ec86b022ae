// The index fuzzer's oracle: any bytes as a
// model.safetensors.index.json, with its shards resolved in memory only.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace safespec {

// Laws. parse_shard_index is deterministic; a refusal is one ST-INDEX-JSON
// error with a place and a message. An accepted index names only plain shard
// files and each tensor once, and its canonical text (canonical_index_json)
// parses back to the same index. With shards built in memory from the index
// (no file is opened), check_index gives exactly the predicted findings, each
// an error with a place and a message, twice the same:
//  - every tensor where weight_map says: none, or only ST-INDEX-TOTAL-SIZE
//    when metadata.total_size differs from the sum of the tensors' sizes;
//  - the first shard unreadable: exactly one ST-INDEX-SHARD-MISSING for it;
//  - an empty tensor weight_map does not list added to the first shard: one
//    more finding, ST-INDEX-TENSOR-UNLISTED for it;
//  - the first shard's first tensor also in the next shard (empty there):
//    one more finding, ST-INDEX-TENSOR-IN-TWO-SHARDS for it.
std::optional<std::string> index_breaks_laws(std::span<const std::uint8_t> bytes);

}  // namespace safespec
