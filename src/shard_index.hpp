// Reading a model.safetensors.index.json and checking it with its shards.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "spec/index_rules.hpp"
#include "spec/result.hpp"
#include "src/check.hpp"

namespace safespec {

// Parses the index text. Errors are ST-INDEX-JSON findings.
Result<ShardIndex> parse_shard_index(std::string_view text);

// The index's report first (index findings), then one report per shard in
// sorted order.
// `missing` (optional) receives the paths of listed shards that do not exist,
// which every Python consumer fails on (FileNotFoundError). The shards are
// read and parsed on up to `jobs` threads (src/check_files.hpp).
std::vector<FileReport> check_shard_index(const std::string& path, Profile profile, FastHeaderParser& parser,
                                          std::vector<std::string>* missing = nullptr, unsigned jobs = 1);

}  // namespace safespec
