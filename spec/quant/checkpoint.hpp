// The input of the quantized-layer spec: the files one consumer reads as one
// checkpoint (sglang's `paths`, ComfyUI's merged state dict), each with its
// parsed header and the bytes of its marker tensors. src/ reads the bytes;
// everything under spec/quant/ is a pure function of this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "spec/limits.hpp"
#include "spec/model.hpp"

namespace safespec::quant {


inline constexpr std::string_view kMarkerSuffix = ".comfy_quant";

struct MarkerBytes {
  std::string tensor;  // "P.comfy_quant"
  bool read = false;   // false: over kMaxMarkerReadBytes, or its data is not inside the file
  std::string bytes;   // the tensor's raw data when read
};

struct CheckpointFile {
  std::string path;
  const Model* model = nullptr;     // never null; outlives the analysis
  std::vector<MarkerBytes> markers;  // every tensor named "*.comfy_quant", sorted by name (S6 keys() order)
};

}  // namespace safespec::quant
