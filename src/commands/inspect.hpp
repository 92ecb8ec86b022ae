// `safespec inspect`: a file's (or a shard index's shards') tensors and
// metadata, as text or one JSON document.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spec/limits.hpp"

#include "src/commands/linear.hpp"

namespace safespec {

struct InspectOptions {
  std::string path;
  bool json = false;
  // --values NAME (repeatable): the first `count` elements of each, decoded
  // (src/parse/tensor_values.hpp); count is at most kInspectValuesMax.
  std::vector<std::string> values;
  std::uint64_t count = kInspectValuesDefault;
  // Text: every layer's verdict lines, none folded.
  bool verbose = false;
};

// Exit 0 listed; 1 a header does not parse; 2 a file cannot be read, a
// --values NAME no file has, or a tensor whose values cannot be read (its
// line says why). With `json`, failures are a JSON error object on stdout too.
CommandOutcome run_inspect(const InspectOptions& options);

}  // namespace safespec
