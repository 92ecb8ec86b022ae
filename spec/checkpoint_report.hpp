// Where a checkpoint of several files reports what is about the whole of it.
// sglang, ComfyUI and comfy-kitchen load every file of a checkpoint before a
// model exists, so their verdict is one answer for the checkpoint, and a
// finding such as "these formats cannot be mixed" is about no file in
// particular. Shown on every file, a clean shard said "sglang: rejects" and
// the mixed-formats finding sat under whichever shard came first. Here the
// checkpoint gets one report that says those things once, and each file's
// report keeps what is about the file alone.
#pragma once

#include <span>
#include <string>

#include "spec/report.hpp"

namespace safespec {

// `speaker`: the checkpoint's own report (its index's, or one made for it,
// whose path names the checkpoint); `files`: the reports of its files in
// the checkpoint's order, judged (spec/verdicts.hpp) and not yet seen
// through a profile; `absent`: files the checkpoint lists that were not
// found (an index's missing shards), which have no report.
//
// Afterwards the speaker holds the findings placed at the checkpoint as a
// whole (moved from the files), and every version's outcome: for a consumer
// that loads the whole checkpoint, the files' shared outcome; for one that
// judges each file alone, the first file in order that it does not load
// (Outcome::file names it), unknown when a file could not be read or is
// absent and no file before it was refused, else "loads" with the
// mis-loads, warnings and unchecked items of every file. Each file names the
// speaker in FileReport::checkpoint, and so shows only its own verdicts.
void speak_for_checkpoint(FileReport& speaker, std::span<FileReport* const> files,
                          std::span<const std::string> absent = {});

}  // namespace safespec
