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

// Real markers are under 200 bytes; a marker tensor larger than this is
// reported (CQ-MARKER-SIZE) but still read and parsed as the consumers parse
// it, up to kMaxMarkerReadBytes.
inline constexpr std::uint64_t kMaxMarkerBytes = std::uint64_t{1} << 20;
// The memory bound: a marker over 16 MiB (the bound of _quantization_metadata
// too) is not read; its layer is unchecked and no consumer that parses
// markers is said to load the checkpoint.
inline constexpr std::uint64_t kMaxMarkerReadBytes = std::uint64_t{16} << 20;
// ... and of the markers over kMaxMarkerBytes, a file's first 64 MiB (in
// keys() order) are read, the rest are unchecked alike.
inline constexpr std::uint64_t kMaxLargeMarkerBytesPerFile = std::uint64_t{64} << 20;

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
