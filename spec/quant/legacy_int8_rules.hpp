// Legacy marker-less INT8 ConvRot checkpoints (docs/spec/quant-layers.md
// LI1-LI6): a config.json beside the checkpoint declares quant_method "int8"
// with convrot true, and sglang's MiniMax-H3 loader reads the I8 weights with
// their per-row F32 scales and no comfy_quant marker. ComfyUI reads no
// config.json: to it these are unmarked weights (CQ-MARKER-MISSING).
#pragma once

#include <span>
#include <string_view>

#include "spec/quant/checkpoint.hpp"
#include "spec/quant/markers.hpp"
#include "spec/quant/model_config.hpp"

namespace safespec::quant {

// What sglang's MiniMax-H3 loader resolves a legacy INT8 checkpoint to:
// Int8Config.from_config(quantization_config) with a serialized int8 weight
// and ConvRot on, whose activations are rotated in groups of
// CONVROT_GROUP_SIZE.
inline constexpr std::string_view kLegacyInt8Config = "Int8Config";
inline constexpr unsigned kLegacyInt8ConvrotGroupSize = 256;

// The LI2 finding of the declaration itself (it comes before the files are
// opened), or the unchecked item of a config.json that could not be read.
void check_legacy_int8_config(const ModelConfig& config, Sink& out);

// LI1, LI3-LI6 for a checkpoint whose declaration config.legacy_int8() holds.
void check_legacy_int8_tensors(std::span<const CheckpointFile> files, const Collected& collected,
                               const ModelConfig& config, Sink& out);

}  // namespace safespec::quant
