// safespec_generate: writes files built from the generators (gen/), which the
// shipped safespec command leaves out so that it carries no test code
// (RapidCheck). Built with the tests, or with -DSAFESPEC_GENERATE=ON.
//   safespec_generate conformance DIR   the conformance suite and its manifest.jsonl
// Exit status: 0 written, 2 usage or I/O error (message on stderr).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "cli/parse.hpp"
#include "conformance/suite.hpp"
#include "src/commands/command_outcome.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Write the files safespec builds from its generators", "safespec_generate"};
  app.require_subcommand(1);
  std::string conformance_dir;
  CLI::App* conformance =
      app.add_subcommand("conformance", "Write the conformance suite and its manifest.jsonl into DIR");
  conformance->add_option("dir", conformance_dir, "the directory (created; other files in it are left alone)")
      ->required();

  if (const auto exit = safespec::cli::parse_or_exit(app, argc, argv)) return *exit;

  const auto n = safespec::conformance::generate_suite(conformance_dir);
  if (!n) {
    std::fprintf(stderr, "safespec_generate: %s: %s\n", conformance_dir.c_str(), n.error().c_str());
    return safespec::kExitUsage;
  }
  std::printf("%s: %zu files\n", conformance_dir.c_str(), n.value());
  return safespec::kExitOk;
}
