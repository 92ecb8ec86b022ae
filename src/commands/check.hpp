// `safespec check`: a path in, a report of all its findings out.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "spec/quant/layer_kinds.hpp"
#include "spec/report.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/io/check_jobs.hpp"
#include "src/parse/header_parser.hpp"

namespace safespec {

FileReport check_safetensors(const std::string& path, Profile profile, HeaderParser& parser);

// A path ending in ".index.json" is a shard index: the index's own report
// first, then one per shard. Any other path gives one report.
std::vector<FileReport> check_path(const std::string& path, Profile profile, HeaderParser& parser);

bool is_index_path(const std::string& path);

struct CheckOptions {
  Profile profile = Profile::Strict;
  bool data = false;      // run the --data rules (reads tensor bytes)
  bool separate = false;  // each loose path is its own checkpoint, shard series included
  FailOn fail_on = FailOn::Error;  // the CLI's default is MisLoad for the consumer profiles
  quant::LayerKinds kinds{};        // --layer, --layers, --all-linear
  bool checkpoint = false;          // all loose paths are one checkpoint (--checkpoint)
  // Threads that read and parse the files (--jobs; src/commands/check_files.hpp): 1
  // reads them one after another on the calling thread. The reports are the
  // same, in the same order, for every count.
  CheckJobs jobs = 1;
  // Which version of each consumer the verdicts, the profile and the exit
  // status use (--consumer NAME=VERSION); every version is judged anyway.
  VersionChoice versions = default_versions();
  // A progress line on standard error while URLs' headers are read and while
  // --data reads tensors, when it is a terminal and the work runs past a
  // second (src/io/progress.hpp); the CLI sets it for text reports only.
  bool progress = false;
  // The config.json whose quantization declaration the checkpoints are read
  // with (--config; spec/quant/model_config.hpp). Empty: each checkpoint's
  // own, in the folder of its first file, when config_beside.
  std::string config{};
  bool config_beside = true;
};

// `safespec check`: every path's reports (check_path), with the files of one
// checkpoint analysed together for their quantized layers. A shard index is
// one checkpoint; the loose .safetensors paths form another (as sglang reads
// a list of paths), or one each with `separate`. Each report ends judged and
// seen through the profile (src/verdicts.hpp).
std::vector<FileReport> check_paths(const std::vector<std::string>& paths, const CheckOptions& options,
                                    HeaderParser& parser);

// The same pipeline over whole files in memory, read as one checkpoint
// (fuzzers, properties): one report per file, judged, through the profile.
struct MemoryFile {
  std::string name;
  std::span<const std::uint8_t> bytes;
};
std::vector<FileReport> check_memory(std::span<const MemoryFile> files, Profile profile, HeaderParser& parser);
// The same with check_paths' options: the profile, fail_on and the layer
// kinds apply; `data` is ignored (the --data rules read tensors from files on
// disk), and so are `separate` and `checkpoint` (the files are one checkpoint).
std::vector<FileReport> check_memory(std::span<const MemoryFile> files, const CheckOptions& options,
                                     HeaderParser& parser);

}  // namespace safespec
