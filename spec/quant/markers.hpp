// Phases 1 and 2 of sglang's inspector (S1-S8) and ComfyUI's conversion
// (M5-M8, C2): every way a layer is marked, collected into one ordered list of
// layers, with the findings of markers that cannot be read or disagree.
#pragma once

#include <deque>
#include <span>
#include <string>
#include <vector>

#include "spec/quant/checkpoint.hpp"
#include "spec/quant/layer.hpp"

namespace safespec::quant {

struct Collected {
  std::deque<py::Value> values;  // owns every marker the layers point to
  std::vector<Layer> layers;     // sglang's insertion order (§3.1)
};

// allow_missing_markers: sglang's MiniMax-H3 loader reads a legacy INT8
// checkpoint (LI1) with inspect_comfy_quant_markers(paths,
// allow_missing_markers=True), which lets unmarked quantized weights through
// S8; ComfyUI's reading of them (C8) is unchanged.
Collected collect_markers(std::span<const CheckpointFile> files, const TensorTable& tensors, Sink& out,
                          bool allow_missing_markers = false);

}  // namespace safespec::quant
