// `safespec check`: every finding of each checkpoint, and each consumer's
// verdict. Exit 1 on a finding that fails the profile (--fail-on), 2 when a
// path cannot be read; an unreadable path is reported once, in the report.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "spec/limits.hpp"
#include "spec/profile_choice.hpp"
#include "src/commands/check.hpp"
#include "src/commands/check_files.hpp"
#include "src/commands/check_filter.hpp"
#include "src/commands/check_stdin.hpp"
#include "src/commands/layer_kinds_option.hpp"
#include "src/parse/load.hpp"
#include "src/report/report.hpp"

namespace safespec::cli {

namespace {

enum class Format : unsigned char { Text, Json, Sarif };

struct CheckArgs {
  std::vector<std::string> paths;
  CheckOptions options;
  bool json = false;
  Format format = Format::Text;
  bool summary = false, quiet = false, verbose = false;
  std::vector<std::string> ignore;
  std::string fail_on;
  std::vector<std::string> layer_args;
  std::string layers_file;
  bool all_linear = false;
  unsigned jobs = 1;  // --jobs, within its bound (the option refuses any other)
};

CommandOutcome run_check(CheckArgs& a) {
  a.options.fail_on = a.fail_on.empty()        ? default_fail_on(a.options.profile)
                      : a.fail_on == "error"   ? FailOn::Error
                      : a.fail_on == "misload" ? FailOn::MisLoad
                                               : FailOn::Warning;
  auto kinds = layer_kinds_option(a.layer_args, a.layers_file, a.all_linear);
  if (!kinds) return CommandOutcome{kExitUsage, "", "safespec: " + kinds.error().message + "\n"};
  a.options.kinds = std::move(kinds).value();
  auto ignored = rules_matching(a.ignore);
  if (!ignored) return CommandOutcome{kExitUsage, "", "safespec: " + ignored.error() + "\n"};
  if (a.json) a.format = Format::Json;
  a.options.progress = a.format == Format::Text && !a.quiet;
  a.options.jobs = a.jobs;
  // Without --data, of a checkpoint on standard input only the header and
  // the marker tensors are read: the rest of the stream is counted, not held
  // (the other commands that take `-` hold all of it).
  if (!a.options.data) hold_stdin(check_stdin_plan());
  HeaderParser parser;
  std::vector<FileReport> reports = check_paths(a.paths, a.options, parser);
  ignore_rules(reports, ignored.value());
  CommandOutcome o;
  const Profile p = a.options.profile;
  if (a.quiet) o.out.clear();
  else if (a.format == Format::Json) o.out = render_check_json(reports, p);
  else if (a.format == Format::Sarif) o.out = render_check_sarif(reports, p, SAFESPEC_VERSION);
  else if (a.summary) o.out = render_check_summary(reports, p);
  else o.out = render_check_text(reports, p, a.verbose);
  bool io = false, failed = false;
  for (const FileReport& r : reports) {
    io = io || r.io_error.has_value();
    failed = failed || !r.ok();
  }
  o.exit_code = io ? kExitUsage : failed ? kExitFindings : kExitOk;
  return o;
}

}  // namespace

Command register_check(CLI::App& app) {
  auto a = std::make_shared<CheckArgs>();
  CLI::App* check = app.add_subcommand("check", "Check files against the spec; exit 1 on any error finding");
  check->add_option("paths", a->paths,
                    "safetensors files (each its own checkpoint, but one NAME-0000i-of-0000n series is one), "
                    "folders (their shard index, else their .safetensors files by the same rule), or "
                    "model.safetensors.index.json shard indexes (one checkpoint each)")
      ->required();
  add_profile_option(check, "--profile", a->options.profile,
                     "strict (every rule, the default), safetensors (exactly the reference reader), or what one "
                     "consumer does: sglang, comfyui, kitchen");
  check->add_flag("--json", a->json, "print one JSON document (the same as --format json)");
  add_choice_option<Format>(check, "--format", a->format,
                            {{"text", Format::Text}, {"json", Format::Json}, {"sarif", Format::Sarif}},
                            "text (the default), json, or sarif (SARIF 2.1.0, for code-scanning tools)");
  check->add_flag("--summary", a->summary, "one line per file: OK or FAIL, the counts and each consumer's verdict");
  check->add_flag("--quiet,-q", a->quiet, "print nothing; the exit status says it all");
  check->add_flag("--verbose,-v", a->verbose,
                  "text: list every finding (a rule that repeats is otherwise folded after its first two into one "
                  "line with the count)");
  check->add_option("--ignore", a->ignore,
                    "drop the findings of a rule, given by id or as a glob ('ST-HEADER-*'); repeatable. A consumer "
                    "profile still fails a file its consumer rejects");
  add_consumer_option(check, a->options.versions);
  check->add_flag("--data", a->options.data, "also check tensor values (scales, codebooks, padding, code ranges)");
  check->add_flag("--separate", a->options.separate,
                  "check each .safetensors path alone, shard series included (loose paths are separate checkpoints "
                  "anyway unless they form one NAME-0000i-of-0000n series)");
  check->add_flag("--checkpoint", a->options.checkpoint, "read all the .safetensors paths given as one checkpoint");
  check->add_option("--fail-on", a->fail_on,
                    "what exits 1: error (an error finding; the default for strict and safetensors), misload (also "
                    "a finding the profile's consumer, or any consumer for strict and safetensors, loads silently "
                    "wrong; the default for sglang, comfyui, kitchen) or warning (any finding)")
      ->check(CLI::IsMember({"error", "misload", "warning"}));
  check->add_option("--layer", a->layer_args,
                    "NAME=linear or NAME=embedding: the kind of a marked layer in the model (repeatable); sglang's "
                    "verdict on int8 embedding markers beside W4A8/NVFP4 layers depends on it");
  check->add_option("--layers", a->layers_file, "a JSON object mapping layer names to \"linear\" or \"embedding\"");
  check->add_flag("--all-linear", a->all_linear, "every marked layer not named by --layer/--layers is a Linear layer");
  check->add_option("--config", a->options.config,
                    "the model's config.json, whose quantization_config sglang's MiniMax-H3 loader reads (a legacy "
                    "INT8 ConvRot checkpoint declares quant_method int8 and convrot true); default: the config.json "
                    "beside each checkpoint's first file, when there is one");
  a->jobs = default_check_jobs().count();
  check->add_option("--jobs,-j", a->jobs,
                    "threads that read and parse the files (default: one per CPU); 1 reads them one at a time. The "
                    "report is the same for every count")
      ->check(CLI::Range(1u, kMaxCheckJobs));
  return Command{check, [a] { return run_check(*a); }};
}

}  // namespace safespec::cli
