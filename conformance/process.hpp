// Running the implementation under test: one child per command line, each in
// its own process group (so a time limit kills whatever it started too),
// stdin from /dev/null, stdout and stderr into one pipe of which the first
// kOutputLimit bytes are kept. At most `jobs` children at a time. This file
// knows nothing of suites or verdicts; runner.cpp does the tallying.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "spec/result.hpp"

namespace safespec::conformance {

inline constexpr std::size_t kOutputLimit = 1024;

struct ChildResult {
  enum class End : unsigned char { Exited, Signaled, TimedOut };
  End end = End::Exited;
  int code = 0;    // End::Exited: the exit status
  int signal = 0;  // End::Signaled: the signal that ended it
  double seconds = 0;
  std::string output;  // the first kOutputLimit bytes of stdout and stderr together
  bool output_truncated = false;
};

struct BatchOptions {
  unsigned jobs = 1;       // children at a time, at least 1
  double timeout_s = 10;   // per child; then SIGKILL to its whole process group
};

// Why a batch stopped early: a program could not be started (the message
// names it and the reason), or the runner itself got SIGINT/SIGTERM/SIGHUP
// (`signal` set; every running child's group was killed first).
struct BatchError {
  std::string message;
  int signal = 0;
};

// Runs each command line (argv[0] looked up in PATH as execvp does; no
// shell) and returns the results in the order of `commands`. `progress` is
// called with the number of finished children after each one ends.
Result<std::vector<ChildResult>, BatchError> run_batch(const std::vector<std::vector<std::string>>& commands,
                                                       const BatchOptions& options,
                                                       const std::function<void(std::size_t)>& progress);

// "SIGSEGV" for 11 and so on; "signal N" for a number without a name.
std::string signal_name(int signal);

}  // namespace safespec::conformance
