// The safespec command line. Exit status: 0 no error findings, 1 error
// findings, 2 usage or I/O error (message on stderr).
#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "spec/upstream_versions.hpp"
#include "src/check.hpp"
#include "src/cli/conformance_cli.hpp"
#include "src/compare.hpp"
#include "src/inspect_command.hpp"
#include "src/layer_kinds_option.hpp"
#include "src/linear_command.hpp"
#include "src/load.hpp"
#include "src/report.hpp"

namespace {

using namespace safespec;

constexpr int kExitOk = 0, kExitFindings = 1, kExitUsage = 2;

void print(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

int run_check(const std::vector<std::string>& paths, const CheckOptions& options, bool json) {
  FastHeaderParser parser;
  const std::vector<FileReport> reports = check_paths(paths, options, parser);
  const Profile profile = options.profile;
  print(json ? render_check_json(reports, profile) : render_check_text(reports, profile));
  bool io = false, failed = false;
  for (const FileReport& r : reports) {
    if (r.io_error) {
      io = true;
      std::fprintf(stderr, "safespec: %s: %s\n", r.path.c_str(), r.io_error->c_str());
    }
    failed = failed || !r.ok();
  }
  return io ? kExitUsage : failed ? kExitFindings : kExitOk;
}

std::string version_text() {
  std::string out = "safespec " SAFESPEC_VERSION "\nrules and messages follow:\n";
  for (const UpstreamVersion& u : kUpstreamVersions)
    out += "  " + std::string(u.project) + ": " + std::string(u.version) + "\n";
  out.pop_back();  // CLI11 ends the text with its own newline
  return out;
}

int emit(const CommandOutcome& o) {
  print(o.out);
  if (!o.err.empty()) std::fwrite(o.err.data(), 1, o.err.size(), stderr);
  return o.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  // Named here, so usage lines say "safespec", not the binary's absolute path.
  CLI::App app{"safespec: an executable specification of safetensors checkpoints", "safespec"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text(), "print safespec's version and the upstream versions it follows");

  std::vector<std::string> paths;
  std::string profile_text = "strict";
  bool json = false;
  CheckOptions options;
  CLI::App* check = app.add_subcommand("check", "Check files against the spec; exit 1 on any error finding");
  check->add_option("paths", paths,
                    "safetensors files (read together as one checkpoint), or model.safetensors.index.json shard "
                    "indexes (one checkpoint each)")
      ->required();
  check->add_option("--profile", profile_text,
                    "strict (every rule, the default), safetensors (exactly the reference reader), or what one "
                    "consumer does: sglang, comfyui, kitchen")
      ->check(CLI::IsMember({"strict", "safetensors", "sglang", "comfyui", "kitchen"}));
  check->add_flag("--json", json, "print one JSON document");
  check->add_flag("--data", options.data, "also check tensor values (scales, codebooks, padding, code ranges)");
  check->add_flag("--separate", options.separate,
                  "check each .safetensors path alone, shard series included (loose paths are separate checkpoints "
                  "anyway unless they form one NAME-0000i-of-0000n series)");
  check->add_flag("--checkpoint", options.checkpoint, "read all the .safetensors paths given as one checkpoint");
  std::string fail_on_text;
  check->add_option("--fail-on", fail_on_text,
                    "what exits 1: error (an error finding; the default for strict and safetensors), misload (also "
                    "a finding the profile's consumer, or any consumer for strict and safetensors, loads silently "
                    "wrong; the default for sglang, comfyui, kitchen) or warning (any finding)")
      ->check(CLI::IsMember({"error", "misload", "warning"}));
  std::vector<std::string> layer_args;
  std::string layers_file;
  bool all_linear = false;
  check->add_option("--layer", layer_args,
                    "NAME=linear or NAME=embedding: the kind of a marked layer in the model (repeatable); sglang's "
                    "verdict on int8 embedding markers beside W4A8/NVFP4 layers depends on it");
  check->add_option("--layers", layers_file, "a JSON object mapping layer names to \"linear\" or \"embedding\"");
  check->add_flag("--all-linear", all_linear, "every marked layer not named by --layer/--layers is a Linear layer");

  std::vector<std::string> table_paths;
  CheckOptions table_options;
  CLI::App* table = app.add_subcommand(
      "table", "Print which consumers load each file (a report: exit 0 unless a file cannot be read)");
  table->add_option("paths", table_paths, "as for check")->required();
  table->add_flag("--separate", table_options.separate, "check each .safetensors path alone, shard series included");
  table->add_flag("--checkpoint", table_options.checkpoint, "read all the .safetensors paths given as one checkpoint");
  table->add_flag("--data", table_options.data, "also check tensor values");
  bool table_json = false;
  table->add_flag("--json", table_json, "print one JSON document");

  std::string inspect_path;
  bool inspect_json = false;
  CLI::App* inspect = app.add_subcommand("inspect", "List a file's tensors and metadata");
  inspect->add_option("path", inspect_path, "a safetensors file, or a shard index (*.index.json): its shards")->required();
  inspect->add_flag("--json", inspect_json, "print one JSON document");

  bool rules_json = false, rules_markdown = false;
  CLI::App* rules = app.add_subcommand("rules", "Print the rule catalogue");
  rules->add_flag("--json", rules_json, "print one JSON document");
  rules->add_flag("--markdown", rules_markdown, "print docs/RULES.md")->excludes("--json");

  LinearRequest linear_req;
  std::string semantics = "cuda";
  CLI::App* linear = app.add_subcommand(
      "linear", "Run one quantized layer's reference linear on an input (exit 1: the layer fails its invariants)");
  linear->add_option("checkpoint", linear_req.checkpoint, "a safetensors checkpoint file")->required();
  linear->add_option("--layer", linear_req.layer, "the layer prefix P (marker P.comfy_quant)")->required();
  linear->add_option("--input", linear_req.input, "a safetensors file with x [M, K] in F32, BF16 or F16")->required();
  linear->add_option("--input-tensor", linear_req.input_tensor, "the tensor of --input to use (default: its only one)");
  linear->add_option("--out", linear_req.out, "where to write y [M, N] (dtype of x)")->required();
  linear->add_option("--semantics", semantics, "cuda (comfy-kitchen's CUDA kernels, the default) or eager")
      ->check(CLI::IsMember({"cuda", "eager"}));
  linear->add_option("--dump", linear_req.dump_dir, "write every intermediate as NAME.safetensors into this directory");

  DequantRequest dequant_req;
  CLI::App* dequant = app.add_subcommand("dequant", "Write a quantized layer's weight as F32 in the original basis");
  dequant->add_option("checkpoint", dequant_req.checkpoint, "a safetensors checkpoint file")->required();
  dequant->add_option("--layer", dequant_req.layer, "the layer prefix P")->required();
  dequant->add_option("--out", dequant_req.out, "where to write `weight` [N, K] F32")->required();

  std::string cmp_expected, cmp_actual;
  std::uint64_t ulps = 0;
  CLI::App* compare = app.add_subcommand(
      "compare", "Compare two safetensors files tensor by tensor; exit 1 beyond the tolerance");
  compare->add_option("expected", cmp_expected, "the reference output")->required();
  compare->add_option("actual", cmp_actual, "the output to judge")->required();
  compare->add_option("--ulps", ulps, "tolerance in units in the last place of each tensor's dtype (default 0)")
      ->check(CLI::Validator(
          [](std::string& s) { return s.starts_with('-') ? "expected a count of ulps (0 or more), found " + s : std::string(); },
          "ULPS"));

  cli::ConformanceCli conformance(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    (void)app.exit(e);
    return kExitUsage;
  }

  if (conformance.chosen()) return conformance.run();
  if (*check) {
    const std::map<std::string, Profile> profiles{{"strict", Profile::Strict},   {"safetensors", Profile::Safetensors},
                                                  {"sglang", Profile::Sglang},   {"comfyui", Profile::Comfyui},
                                                  {"kitchen", Profile::Kitchen}};
    options.profile = profiles.at(profile_text);
    const bool consumer = profile_text != "strict" && profile_text != "safetensors";
    if (fail_on_text.empty()) fail_on_text = consumer ? "misload" : "error";
    options.fail_on = fail_on_text == "error" ? FailOn::Error : fail_on_text == "misload" ? FailOn::MisLoad : FailOn::Warning;
    auto kinds = layer_kinds_option(layer_args, layers_file, all_linear);
    if (!kinds) {
      std::fprintf(stderr, "safespec: %s\n", kinds.error().message.c_str());
      return kExitUsage;
    }
    options.kinds = std::move(kinds).value();
    return run_check(paths, options, json);
  }
  if (*table) {
    FastHeaderParser parser;
    const std::vector<FileReport> reports = check_paths(table_paths, table_options, parser);
    print(table_json ? render_table_json(reports) : render_table(reports));
    bool io = false;
    for (const FileReport& r : reports)
      if (r.io_error) {
        io = true;
        std::fprintf(stderr, "safespec: %s: %s\n", r.path.c_str(), r.io_error->c_str());
      }
    return io ? kExitUsage : kExitOk;
  }
  if (*inspect) return emit(run_inspect(inspect_path, inspect_json));
  if (*linear) {
    linear_req.semantics = semantics == "eager" ? numerics::Semantics::Eager : numerics::Semantics::Cuda;
    return emit(run_linear(linear_req));
  }
  if (*dequant) return emit(run_dequant(dequant_req));
  if (*compare) return emit(run_compare(cmp_expected, cmp_actual, ulps));
  if (*rules) {
    print(rules_json ? render_rules_json() : rules_markdown ? render_rules_markdown() : render_rules_text());
    return kExitOk;
  }
  return kExitUsage;
}
