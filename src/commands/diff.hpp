// `safespec diff A B`: two checkpoints (files, shard indexes or directories)
// compared by their headers only: tensors added, removed or changed in dtype
// or shape; quantized layers added, removed or changed (format, group sizes,
// marker site); __metadata__ keys; and each consumer's verdict, with the rule
// that makes the new one. Tensor data is never read (beyond marker tensors).
#pragma once

#include <string>

#include "src/commands/command_outcome.hpp"

namespace safespec {

struct DiffOptions {
  std::string a;
  std::string b;
  bool json = false;
};

// Exit 0 when the headers are equal in all of the above, 1 when they differ,
// 2 when either side cannot be read or its header does not parse.
CommandOutcome run_diff(const DiffOptions& options);

}  // namespace safespec
