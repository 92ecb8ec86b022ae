// Tensors in two files of one checkpoint that came without an index (a
// directory, a shard series, --checkpoint, files in memory): each is flagged
// as an index flags it, since the loader would read one of them
// (ST-INDEX-TENSOR-IN-TWO-SHARDS).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "spec/report.hpp"

namespace safespec {

// (a tensor's number, the number of the first one of its name), numbering
// the tensors of a group's files with a model in group order, a file's after
// the previous file's (find_repeats, RepeatWalk: src/name_repeats.hpp).
using Repeats = std::vector<std::pair<std::size_t, std::size_t>>;

// The repeats among the files `group` names, worked out after they are all
// read (find_repeats, on up to `threads` threads).
Repeats group_repeats(const std::vector<FileReport>& reports, const std::vector<std::size_t>& group, unsigned threads);

// A finding for each repeat, on the later file's report.
void flag_collisions(std::vector<FileReport>& reports, const std::vector<std::size_t>& group, const Repeats& repeats);

}  // namespace safespec
