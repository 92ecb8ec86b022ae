// The hand-written seed files: each a name and the bytes of a whole file,
// covering the corners of safetensors-format.md §2-§3 and §9.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace safespec::tools {

using NamedFile = std::pair<std::string, std::vector<std::uint8_t>>;

// Valid and invalid single files, named after the rule they exercise.
std::vector<NamedFile> hand_written_seeds();

}  // namespace safespec::tools
