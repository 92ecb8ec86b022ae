// `safespec inspect`: a file's tensors and metadata (an index: its shards),
// a summary of the checkpoint, and on request a tensor's first values.
#include <charconv>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "spec/limits.hpp"
#include "src/commands/inspect.hpp"

namespace safespec::cli {

Command register_inspect(CLI::App& app) {
  auto a = std::make_shared<InspectOptions>();
  CLI::App* inspect = app.add_subcommand("inspect", "List a file's tensors and metadata, with a summary");
  inspect->add_option("path", a->path, "a safetensors file, or a shard index (*.index.json): its shards")->required();
  inspect->add_flag("--json", a->json, "print one JSON document");
  inspect->add_flag("--verbose", a->verbose, "list every layer's verdicts (text folds a repeated 'not reached')");
  inspect->add_option("--values", a->values, "decode the first elements of tensor NAME (repeatable)")
      ->type_name("NAME")
      ->allow_extra_args(false);
  // The bound is spec/limits.hpp's; the message says what was expected.
  inspect
      ->add_option("--count", a->count,
                   "elements --values decodes (default " + std::to_string(kInspectValuesDefault) + ", at most " +
                       std::to_string(kInspectValuesMax) + ")")
      ->check(CLI::Validator(
          [](std::string& s) {
            std::uint64_t n = 0;
            const auto r = std::from_chars(s.data(), s.data() + s.size(), n);
            const bool ok = r.ec == std::errc() && r.ptr == s.data() + s.size() && n >= 1 && n <= kInspectValuesMax;
            return ok ? std::string() : "expected 1 to " + std::to_string(kInspectValuesMax) + " elements, found " + s;
          },
          "K"));
  return Command{inspect, [a] { return run_inspect(*a); }};
}

}  // namespace safespec::cli
