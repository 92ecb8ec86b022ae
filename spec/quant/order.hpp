// Where a check sits in each consumer's own order, so the first rejecting
// finding of a consumer is the exception that consumer raises first.
// Positions compare lexicographically (CheckOrder in spec/finding.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "spec/finding.hpp"

namespace safespec::quant::order {

inline std::uint32_t u32(std::size_t v) { return v > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(v); }

// Opening a file of the checkpoint: the first step of every consumer's order
// (the three below are this one, named for their consumer's matrix rows).
inline CheckOrder container(std::size_t file) { return {1, u32(file), 0, 0}; }

// sglang, comfy-quant-markers.md §3: phase 1 scans file by file (safe_open,
// then _quantization_metadata, then the .comfy_quant tensors in keys()
// order); phase 2 the file-independent checks; phase 3 each marker in
// insertion order; phase 5 resolution, the config's constructor over the
// markers, then get_quant_method per layer.
inline CheckOrder sg_container(std::size_t file) { return {1, u32(file), 0, 0}; }
inline CheckOrder sg_qmeta(std::size_t file, std::uint32_t step) { return {1, u32(file), 1, step}; }
inline CheckOrder sg_qmeta_layer(std::size_t file, std::size_t i) { return {1, u32(file), 2, u32(i)}; }
inline CheckOrder sg_tensor_marker(std::size_t file, std::size_t i) { return {1, u32(file), 3, u32(i)}; }
inline CheckOrder sg_mxfp8_global(std::size_t i) { return {2, 0, u32(i), 0}; }
inline CheckOrder sg_missing_markers() { return {2, 1, 0, 0}; }
inline CheckOrder sg_layer(std::size_t marker, std::uint32_t step) { return {3, u32(marker), step, 0}; }
inline CheckOrder sg_resolution() { return {5, 0, 0, 0}; }
inline CheckOrder sg_config(std::size_t marker, std::uint32_t step) { return {5, 1, u32(marker), step}; }
// KitchenW4A4Config builds the int8 class for its int8 companions before it
// parses its own markers: that constructor's checks come first.
inline CheckOrder sg_companion_config(std::size_t marker, std::uint32_t step) {
  return {5, 0, marker >= UINT32_MAX ? UINT32_MAX : u32(marker) + 1, step};
}
inline CheckOrder sg_method(std::size_t marker, std::uint32_t step) { return {5, 2, u32(marker), step}; }

// sglang's MiniMax-H3 loader on a legacy INT8 checkpoint (minimax_h3_weights.py,
// docs/spec/quant-layers.md LI1-LI6). Position: it reads config.json before it
// opens a checkpoint file (the caller was not seen). The inspector (phases 1-2)
// runs with allow_missing_markers, then "cannot mix", then the tensors file by
// file (within a file a Python set's order, which the hash seed picks; sorted
// here), then the count of I8 weights.
inline CheckOrder sg_legacy_config() { return {0, 0, 0, 0}; }
inline CheckOrder sg_legacy_markers() { return {2, 2, 0, 0}; }
inline CheckOrder sg_legacy_tensor(std::size_t file, std::size_t i) { return {2, 3, u32(file), u32(i)}; }
inline CheckOrder sg_legacy_count() { return {2, 4, 0, 0}; }

// ComfyUI, §4: the reference reader per file, convert_old_quants per file,
// then _load_quantized_module layer by layer (safespec takes the marker
// insertion order as the module order; the real order is the model's).
inline CheckOrder cu_container(std::size_t file) { return {1, u32(file), 0, 0}; }
inline CheckOrder cu_convert(std::size_t file, std::uint32_t step) { return {1, u32(file), 1, step}; }
inline CheckOrder cu_layer(std::size_t layer, std::uint32_t step) { return {3, u32(layer), step, 0}; }

// comfy-kitchen, §5: Params construction when ComfyUI loads a layer, then
// the operand checks of the first forward pass.
inline CheckOrder kt_container(std::size_t file) { return {1, u32(file), 0, 0}; }
inline CheckOrder kt_params(std::size_t layer, std::uint32_t step) { return {3, u32(layer), step, 0}; }
inline CheckOrder kt_operands(std::size_t layer, std::uint32_t step) { return {4, u32(layer), step, 0}; }

}  // namespace safespec::quant::order
