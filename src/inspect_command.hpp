// `safespec inspect`: a file's (or a shard index's shards') tensors and
// metadata, as text or one JSON document.
#pragma once

#include <string>

#include "src/linear_command.hpp"

namespace safespec {

// Exit 0 listed; 1 a header does not parse; 2 a file cannot be read. With
// `json`, failures are a JSON error object on stdout too.
CommandOutcome run_inspect(const std::string& path, bool json);

}  // namespace safespec
