// The values consumer messages embed, rendered the way Python prints them
// (comfy-quant-markers.md §6): repr of a prefix, shapes as tuples, dtypes by
// their safetensors names, sglang's (dtype, shape) metadata tuples.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spec/quant/tensor_table.hpp"

namespace safespec::quant {

std::string repr(std::string_view s);                     // repr(str)
std::string shape_repr(std::span<const std::uint64_t> s);  // (3, 128), (16,), ()
std::string dtype_str(const TensorRef& t);                 // F8_E4M3
std::string shape_str(const TensorRef& t);                 // (3, 128)
// sglang's checkpoint_meta value: ('F8_E4M3', (32, 64)), or None.
std::string meta_repr(const TensorRef* t);
// repr(sorted(names)[:limit]).
std::string sorted_list_repr(std::vector<std::string> names, std::size_t limit = SIZE_MAX);

// ComfyUI's {layer_name}: the state-dict prefix without the model prefix it
// stripped. safespec knows the diffusion-model prefix only, so it removes a
// leading "model.diffusion_model." and keeps anything else.
std::string comfy_layer_name(std::string_view prefix);

// "layer 'P'" for a finding's where.

}  // namespace safespec::quant
