// The input of the quantized-layer spec: the files one consumer reads as one
// checkpoint (sglang's `paths`, ComfyUI's merged state dict), each with its
// parsed header and the bytes of its marker tensors. src/ reads the bytes;
// everything under spec/quant/ is a pure function of this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
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
  // Not read although inside the file and within the bounds: why (a server
  // that ignores Range gave only the file's start). Empty otherwise.
  std::string unread = {};
};

// What a model shows of quantization before its layers are read, worked out
// in one pass where the file is parsed (on the check's threads, the model
// still in cache): over a directory of 1,000 files the two scans it saves,
// of cold models on one thread after all were read, were 0.6 ms of `check`
//.
struct ModelSigns {
  bool marker = false;  // a tensor named "*.comfy_quant" (its bytes are then read)
  // A quantized dtype (F8_E4M3, F8_E5M2, I8, U8), a tensor named scaled_fp8,
  // or the _quantization_metadata key: without these and without a marker
  // there is no layer to check (analyze's shortcut).
  bool other = false;

  friend bool operator==(const ModelSigns&, const ModelSigns&) = default;
};

struct CheckpointFile {
  std::string path;
  const Model* model = nullptr;     // never null; outlives the analysis
  std::vector<MarkerBytes> markers;  // every tensor named "*.comfy_quant", sorted by name (S6 keys() order)
  // model_signs(*model) when the caller has it; else worked out here.
  std::optional<ModelSigns> signs = std::nullopt;
};

}  // namespace safespec::quant
