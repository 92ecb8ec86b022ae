// The quantized-layer spec as one pure function: the files a consumer reads
// as one checkpoint in, every comfy_quant finding (each with the verdicts of
// sglang, ComfyUI and comfy-kitchen) and sglang's resolved config out.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "spec/quant/checkpoint.hpp"
#include "spec/quant/data_rules.hpp"
#include "spec/quant/layer.hpp"
#include "spec/quant/layer_kinds.hpp"
#include "spec/quant/model_config.hpp"

namespace safespec::quant {

struct Analysis {
  std::vector<LocatedFinding> findings;
  // What could not be evaluated: marker bytes outside the file, tensors the
  // --data rules could not read (spec/unchecked.hpp).
  std::vector<LocatedUnchecked> unchecked;
  // What sglang's resolve_comfy_checkpoint_quantization returns when every
  // check passes: a config class name, or "None" for a checkpoint without
  // markers (not quantized). Empty when sglang raises before or at resolution.
  std::string sglang_config;
  // The layers whose kind (Linear or embedding) the sglang verdict depends on
  // and that `kinds` does not settle, in sglang's order (layer_kinds.hpp).
  std::vector<Assumption> assumptions;
  // The marker formats of the checkpoint (str(format), sorted, each once).
  std::vector<std::string> formats;
};

// The signs of one model (spec/quant/checkpoint.hpp); analyze works them out
// for a file that comes without them.
ModelSigns model_signs(const Model& model);

// data: the tensor bytes for the --data rules, or nullptr to skip them.
// kinds: what the user said of the model's layers (Linear or embedding).
// config: the config.json beside the checkpoint, or nullptr when it has none
// (its legacy INT8 declaration, legacy_int8_rules.hpp).
Analysis analyze(std::span<const CheckpointFile> files, const TensorData* data = nullptr,
                 const LayerKinds& kinds = {}, const ModelConfig* config = nullptr);

}  // namespace safespec::quant
