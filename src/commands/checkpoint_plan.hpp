// What a checkpoint is, for `safespec check PATH...`: the paths in, the
// checkpoints out, decided in one pure function so that every way of naming
// files (a list of paths, a folder, an index, a shard series) follows one
// rule. Reading the files, threads and speed are check_paths' (src/commands/check.cpp).
//
// The rule, as the loaders read what they are given:
// - a shard index (*.index.json, given or found in a folder) is one
//   checkpoint, its shards read from it;
// - every other file, given or listed in a folder, is its own checkpoint,
//   except that the files of one NAME-0000i-of-0000n series (in one folder)
//   are one checkpoint, as from_pretrained reads them;
// - `separate` makes every file its own checkpoint, series included;
//   `together` (--checkpoint) makes all of them one.
// A folder is no more than the files in it: unrelated files side by side are
// not one model.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace safespec {

// One path as given, once looked at: a shard index to read, or files.
struct PathEntry {
  std::string path;                // as given
  std::string index;               // not empty: the index to read (the path, or the one in its folder)
  std::vector<std::string> files;  // else: the path itself, or its folder's .safetensors files in name order
};

enum class CheckpointKind { Index, Series, Single, Together };

struct PlannedCheckpoint {
  CheckpointKind kind;
  // Its name, unescaped: the index, the series ("dir/model-*-of-00003.safetensors")
  // or the one file; empty for files given together, which are named by their list.
  std::string name;
};

struct CheckpointPlan {
  std::vector<PlannedCheckpoint> checkpoints;  // in order of first appearance
  std::vector<std::size_t> of_entry;           // per entry with an index: its checkpoint (else unused)
  std::vector<std::size_t> of_file;            // per file, all entries' files in order: its checkpoint
};

CheckpointPlan plan_checkpoints(const std::vector<PathEntry>& entries, bool separate, bool together);

}  // namespace safespec
