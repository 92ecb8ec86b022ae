// What every safespec command ends with, and the one exit-status convention:
// 0 clean, 1 findings (a rule broken, a layer refused, outputs that differ),
// 2 usage or I/O error. A command stopped by a signal (Ctrl-C during
// `conformance run`) names it so the process can die of the same signal.
#pragma once

#include <string>

namespace safespec {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUsage = 2;

struct CommandOutcome {
  int exit_code = kExitOk;
  std::string out;  // for stdout
  std::string err;  // for stderr
  int stop_signal = 0;
};

// A usage or I/O error: exit 2 and "safespec: MESSAGE" on stderr.
inline CommandOutcome usage_error(const std::string& message) {
  return {kExitUsage, "", "safespec: " + message + "\n", 0};
}

}  // namespace safespec
