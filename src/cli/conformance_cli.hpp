// `safespec conformance run|numeric`: the options and their dispatch, kept
// out of main.cpp. The work is in conformance/ (the runner; the suite is
// written by safespec_generate, src/cli/generate_main.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include <memory>

namespace safespec::cli {

class ConformanceCli {
 public:
  // Adds the `conformance` subcommand and its two subcommands to `app`.
  explicit ConformanceCli(CLI::App& app);
  ~ConformanceCli();
  ConformanceCli(const ConformanceCli&) = delete;
  ConformanceCli& operator=(const ConformanceCli&) = delete;

  // After parsing: was `conformance` given?
  bool chosen() const;
  // Runs it; the process exit status.
  int run();

 private:
  struct Options;
  std::unique_ptr<Options> o_;
};

}  // namespace safespec::cli
