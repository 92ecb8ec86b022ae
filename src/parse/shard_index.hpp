// Reading a model.safetensors.index.json and checking it with its shards.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/index_rules.hpp"
#include "spec/result.hpp"
#include "src/io/byte_file.hpp"
#include "src/io/check_jobs.hpp"
#include "src/commands/check.hpp"

namespace safespec {

// Parses the index text. Errors are ST-INDEX-JSON findings. A text the
// plain reader decides (src/parse/plain_index.hpp) is read by it, any other by
// simdjson's DOM; parse_shard_index_dom reads every text with the DOM, the
// law the plain reader is held to (src/oracles/oracles_index.hpp).
Result<ShardIndex> parse_shard_index(std::string_view text);
Result<ShardIndex> parse_shard_index_dom(std::string_view text);

// An index file read whole and parsed, with the shards it names: their file
// names (sorted, each once) and their paths beside the index.
struct IndexFile {
  ShardIndex index;
  std::vector<std::string> shards;
  std::vector<std::string> shard_paths;
};
// Why an index file gives no shards: it cannot be read (`io`), or it is no
// index (`finding`: ST-INDEX-JSON, the kMaxIndexBytes bound included).
struct IndexFailure {
  std::optional<IoError> io;
  std::optional<Error> finding;
};
// What `check` and `inspect` read of a model.safetensors.index.json.
Result<IndexFile, IndexFailure> read_index_file(const std::string& path);

// The index's report first (index findings), then one report per shard in
// sorted order.
// `missing` (optional) receives the paths of listed shards that do not exist,
// which every Python consumer fails on (FileNotFoundError). The shards are
// read and parsed on up to `jobs` threads (src/commands/check_files.hpp), starting
// while the index is read (src/parse/shard_feed.hpp); the answer does not depend
// on `jobs` or on the order the threads take the shards in.
// Up to `in_place_bytes` of reports (sizeof(FileReport) each, one a listed
// shard), a shard read once the index is whole writes its report straight
// into its place in the returned list; past that, and for shards read
// before, reports are held on the heap until the end (tests pass 0 to hold
// the second way to the first).
constexpr std::size_t kInPlaceReportBytes = std::size_t{16} << 20;
std::vector<FileReport> check_shard_index(const std::string& path, Profile profile, HeaderParser& parser,
                                          std::vector<std::string>* missing = nullptr, CheckJobs jobs = 1,
                                          std::size_t in_place_bytes = kInPlaceReportBytes);

}  // namespace safespec
