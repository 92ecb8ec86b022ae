// The safespec command line: registers each subcommand (one file each under
// cli/), parses, runs the chosen one and prints its outcome. Exit status:
// 0 clean, 1 findings, 2 usage or I/O error (src/commands/command_outcome.hpp).
#include <CLI/CLI.hpp>

#include <signal.h>

#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/parse.hpp"
#include "spec/upstream_versions.hpp"

namespace {

using namespace safespec;

std::string version_text() {
  std::string out = "safespec " SAFESPEC_VERSION "\nrules and messages follow:\n";
  for (const UpstreamVersion& u : kUpstreamVersions)
    out += "  " + std::string(u.project) + ": " + std::string(u.version) + "\n";
  out.pop_back();  // CLI11 ends the text with its own newline
  return out;
}

constexpr const char* kOutOfMemory =
    "safespec: out of memory: an allocation failed (std::bad_alloc) under this process's memory or address-space "
    "limit; nothing was decided\n";

int emit(const CommandOutcome& o) {
  std::fwrite(o.out.data(), 1, o.out.size(), stdout);
  std::fwrite(o.err.data(), 1, o.err.size(), stderr);
  if (o.stop_signal != 0) {
    // Stopped by the user: die of the same signal, as a shell expects.
    std::fflush(nullptr);
    ::signal(o.stop_signal, SIG_DFL);
    ::raise(o.stop_signal);
    return 128 + o.stop_signal;
  }
  return o.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  // Named here, so usage lines say "safespec", not the binary's absolute path.
  CLI::App app{"safespec: an executable specification of safetensors checkpoints", "safespec"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text(), "print safespec's version and the upstream versions it follows");
  const std::vector<cli::Command> commands{
      cli::register_check(app),   cli::register_table(app),  cli::register_inspect(app),
      cli::register_rules(app),   cli::register_linear(app), cli::register_dequant(app),
      cli::register_compare(app), cli::register_conformance(app), cli::register_vectors(app),
      cli::register_diff(app)};
  if (const auto exit = cli::parse_or_exit(app, argc, argv)) return *exit;
  for (const cli::Command& c : commands) {
    if (!c.sub->parsed()) continue;
    try {
      return emit(c.run());
    } catch (const std::bad_alloc&) {
      // An allocation refused (RLIMIT_AS, an overcommit limit) is the one
      // exception a command lets through: it ends as an error, not an abort,
      // and no partial answer is printed, since none was finished.
      std::fputs(kOutOfMemory, stderr);
      return kExitUsage;
    }
  }
  return kExitUsage;
}
