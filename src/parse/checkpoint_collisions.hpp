// Tensors in two files of one checkpoint that came without an index (a
// directory, a shard series, --checkpoint, files in memory): each is flagged
// as an index flags it, since the loader would read one of them
// (ST-INDEX-TENSOR-IN-TWO-SHARDS).
#pragma once

#include <cstddef>
#include <vector>

#include "spec/report.hpp"
#include "src/parse/name_repeats.hpp"

namespace safespec {

// The walk over the names of the files `group` names that have a model, in
// group order, once they are all read (find_repeats, on up to `threads`
// threads). A directory's own files are walked while they are read instead
// (check_paths), the same files in the same order.
RepeatWalk group_repeats(const std::vector<FileReport>& reports, const std::vector<std::size_t>& group, CheckJobs threads);

// A finding for each repeat of `walk`, a walk over the group's files with a
// model in group order, on the later file's report.
void flag_collisions(std::vector<FileReport>& reports, const std::vector<std::size_t>& group, const RepeatWalk& walk);

}  // namespace safespec
