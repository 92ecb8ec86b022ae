// `safespec compare`: two safetensors files tensor by tensor.
#include <cstdint>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "src/commands/compare.hpp"

namespace safespec::cli {

Command register_compare(CLI::App& app) {
  struct Args {
    std::string expected, actual;
    Tolerance tolerance;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* compare =
      app.add_subcommand("compare", "Compare two outputs (safetensors files or .npy arrays) tensor by tensor; exit 1 "
                                    "beyond the tolerance");
  compare->add_option("expected", a->expected,
                      "the reference output: a safetensors file, or a .npy array (named after the other side's one "
                      "tensor; '<u2' is read as BF16 beside a BF16 tensor)")
      ->required();
  compare->add_option("actual", a->actual, "the output to judge, the same way")->required();
  add_ulps_option(compare, a->tolerance.ulps, "tolerance in units in the last place of each tensor's dtype (default 0)");
  add_error_options(compare, a->tolerance.atol, a->tolerance.rtol);
  compare->add_flag("--json", a->json, "print one JSON document instead of the text report");
  return Command{compare, [a] { return run_compare(a->expected, a->actual, a->tolerance, a->json); }};
}

}  // namespace safespec::cli
