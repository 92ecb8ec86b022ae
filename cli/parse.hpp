// Parsing a command line the way every safespec binary does: help and
// --version print and end with 0, a usage error prints and ends with 2
// (src/commands/command_outcome.hpp), anything else goes on.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>

namespace safespec::cli {

// The exit status to end with, or nullopt when the parsed command should run.
std::optional<int> parse_or_exit(CLI::App& app, int argc, char** argv);

}  // namespace safespec::cli
