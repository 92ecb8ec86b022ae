// A checkpoint file's report: its findings, each consumer's outcome, what was
// not checked. Plain data that the verdicts (spec/verdicts.hpp) fill in and
// the reports (src/report/report.hpp) print; no I/O.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "spec/comfyui_parser.hpp"
#include "spec/finding.hpp"
#include "spec/finding_sink.hpp"
#include "spec/model.hpp"
#include "spec/quant/checkpoint.hpp"
#include "spec/quant/layer_kinds.hpp"
#include "spec/reference/reference_reader.hpp"
#include "spec/rule_catalogue.hpp"
#include "spec/unchecked.hpp"

namespace safespec {

// What one consumer does with a file: its verdict, as a profile reports it.
struct Outcome {
  bool loads = true;
  std::string error;    // exception class or error variant of its first rejection
  std::string message;  // that rejection's exact message
  std::string config;   // sglang only, when it loads: the config its resolution picks ("None": not quantized)
  std::vector<RuleId> mis_loads;  // findings it loads silently wrong
  std::vector<RuleId> warns;      // findings it logs
  // The other (error, message) answers the consumer gives on the same input
  // in other processes: for safetensors, the reference's offset ties (X13);
  // for sglang, ComfyUI and comfy-kitchen, the same ties in the container
  // message they inherit, and for sglang the other layers of a Python set
  // iterated in PYTHONHASHSEED order (S7).
  std::vector<std::pair<std::string, std::string>> alternatives;
  // sglang only: the verdict holds if each of these layers is of the kind
  // given; otherwise sglang raises the assumption's `otherwise` (the first
  // wrong assumption in this order decides).
  std::vector<quant::Assumption> assumes;
  // When it loads: what was not checked that its verdict could depend on
  // (Unchecked::what of the checkpoint's unchecked items naming it).
  std::vector<std::string> unchecked;
  // Set when safespec cannot tell what the consumer does, and why: `loads`
  // then means nothing, and every report says "unknown" (JSON "loads": null).
  std::string unknown;
  // On the report of a checkpoint of several files, for a consumer that
  // judges each file alone: the file whose verdict this is (the first, in the
  // checkpoint's order, that it does not load). Empty otherwise.
  std::string file;
};

// What makes a report fail (`--fail-on`): an error finding; also a finding
// the profile's consumer (any consumer, for strict and safetensors) loads
// silently wrong; or any finding at all.
enum class FailOn : unsigned char { Error, MisLoad, Warning };

struct FileReport {
  std::string path;
  Findings findings;
  std::optional<std::string> io_error;  // set: the file could not be read (exit 2)
  std::optional<Model> model;           // set when the header parsed
  // Per consumer (kConsumers order), for .safetensors files: safetensors
  // judges the file alone, the others the checkpoint the file belongs to.
  ByConsumer<Outcome> consumers;
  bool judged = false;  // consumers is filled in
  // The reference reader's own answer on the file (spec/reference/): the
  // one source of the safetensors verdict and of the container message every
  // Python consumer raises. Set for every .safetensors file that could be read.
  std::optional<reference::Answer> reference;
  // What the file looks like when it is not a safetensors file at all (a Git
  // LFS pointer, a JSON file): one sentence, or empty.
  std::string hint;
  // What could not be checked, and why (spec/unchecked.hpp): empty when the
  // report covers the whole file.
  std::vector<Unchecked> unchecked;
  // model_signs(*model), worked out where the file was parsed; the checkpoint
  // analysis reads it instead of the model (spec/quant/checkpoint.hpp). Set
  // with `model`; whoever changes the model after that resets it.
  std::optional<quant::ModelSigns> signs = std::nullopt;
  // The marker tensors' bytes, read where the file was parsed when that
  // saves a second opening: a URL's, over the connection and the first
  // request's bytes that read its header (the checkpoint analysis would
  // otherwise open it again, one more request at least). Unset: read when
  // the analysis needs them.
  std::optional<std::vector<quant::MarkerBytes>> markers = std::nullopt;
  // How the report is judged by ok() (check_paths sets them from its options).
  Profile profile = Profile::Strict;
  FailOn fail_on = FailOn::Error;
  // Every finding the profile shows, per rule, listed or only counted past
  // the bound (spec/finding_sink.hpp).
  RuleCounts counts{};
  // Findings `check --ignore` took out (counted, so a report never hides
  // that it hides something); 0 without --ignore.
  std::uint64_t ignored = 0;
  // Every version of every consumer, in the consumer table's order
  // (spec/consumers.hpp); consumers[c] is versions[c][chosen[c]].
  ByConsumer<std::vector<Outcome>> versions{};
  VersionChoice chosen = default_versions();
  // ComfyUI's own parser (DynamicVRAM) on the same bytes, per era
  // (spec/comfyui_parser.hpp): the container verdict of its own-reader versions.
  std::array<comfyui::Answer, 2> comfyui{};
  // A checkpoint of several files (an index and its shards, a shard series,
  // files given as one) reports once, on a report of its own: its index's,
  // or one made for it (spec/checkpoint_report.hpp). On each of its files:
  // that report's path; on that report: the files, in the checkpoint's
  // order. Both empty for a file that is a checkpoint alone.
  std::string checkpoint{};
  std::vector<std::string> files{};

  // Whether the report shows consumer c's verdict: a file of a checkpoint of
  // several files shows only the verdicts about each file alone; the
  // checkpoint's report shows the rest.
  bool shows(Consumer c) const { return checkpoint.empty() || judges_each_file(c); }
  // Readable, and nothing left unchecked.
  bool complete() const { return !io_error && unchecked.empty(); }
  bool ok() const;  // readable and no finding that fails it by fail_on (default: no error finding)
  // The reference reader's verdict: its error variant for the first failure
  // in its order, or empty when it accepts the file.
  std::string_view reference_verdict() const;
  // The finding behind that verdict, or nullptr when the reference accepts.
  const Finding* reference_failure() const;
};
// A vector of reports that grows moves them only if this holds; otherwise it
// copies every report, model included, each time it grows (`check` on a
// 1,000-shard index did).
static_assert(std::is_nothrow_move_constructible_v<FileReport>);

}  // namespace safespec
