// The input of the quantized-layer spec: the files one consumer reads as one
// checkpoint (sglang's `paths`, ComfyUI's merged state dict), each with its
// parsed header and the bytes of its marker tensors. src/ reads the bytes;
// everything under spec/quant/ is a pure function of this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "spec/model.hpp"

namespace safespec::quant {

// Real markers are under 200 bytes; a marker tensor larger than this is not
// read at all (CQ-MARKER-SIZE). It also bounds the JSON parser's input.
inline constexpr std::uint64_t kMaxMarkerBytes = std::uint64_t{1} << 20;

inline constexpr std::string_view kMarkerSuffix = ".comfy_quant";

struct MarkerBytes {
  std::string tensor;  // "P.comfy_quant"
  bool read = false;   // false: over kMaxMarkerBytes, or its data is not inside the file
  std::string bytes;   // the tensor's raw data when read
};

struct CheckpointFile {
  std::string path;
  const Model* model = nullptr;     // never null; outlives the analysis
  std::vector<MarkerBytes> markers;  // every tensor named "*.comfy_quant", sorted by name (S6 keys() order)
};

}  // namespace safespec::quant
