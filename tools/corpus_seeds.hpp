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

// comfy_quant markers (comfy-quant-markers.md §1.1-§1.2, §1.5, §6): each
// format's marker as json.dumps writes it, whole _quantization_metadata
// documents, and markers every consumer parses differently or not at all.
std::vector<NamedFile> marker_seeds();

}  // namespace safespec::tools
