// `safespec diff A B`: two checkpoints compared by their headers.
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "src/commands/diff.hpp"

namespace safespec::cli {

Command register_diff(CLI::App& app) {
  auto a = std::make_shared<DiffOptions>();
  CLI::App* diff = app.add_subcommand(
      "diff", "Compare two checkpoints by header: tensors, quantized layers, metadata, verdicts (exit 0 equal, 1 different)");
  diff->add_option("a", a->a, "a safetensors file, a shard index (*.index.json) or a directory")->required();
  diff->add_option("b", a->b, "the checkpoint to compare it with")->required();
  diff->add_flag("--json", a->json, "print one JSON document");
  return Command{diff, [a] { return run_diff(*a); }};
}

}  // namespace safespec::cli
