// `safespec inspect`: a file's tensors and metadata (an index: its shards).
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "src/inspect_command.hpp"

namespace safespec::cli {

Command register_inspect(CLI::App& app) {
  struct Args {
    std::string path;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* inspect = app.add_subcommand("inspect", "List a file's tensors and metadata");
  inspect->add_option("path", a->path, "a safetensors file, or a shard index (*.index.json): its shards")->required();
  inspect->add_flag("--json", a->json, "print one JSON document");
  return Command{inspect, [a] { return run_inspect(a->path, a->json); }};
}

}  // namespace safespec::cli
