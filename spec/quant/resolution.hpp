// sglang's resolution (S11) and the configs it constructs (S12, S15, S17,
// S18, S19): which config a set of formats selects and which companion
// markers that config refuses.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "spec/quant/layer.hpp"
#include "spec/quant/sglang_versions.hpp"

namespace safespec::quant {

// S11 on formats = sorted({str(marker.get("format"))}): the config class, or
// "" for NotImplementedError. No formats (no markers): "None".
std::string_view resolve_config(const std::vector<std::string>& sorted_formats);

// is_comfy_int8_embedding (comfy_int8.py:29-35): an int8_tensorwise marker
// without a truthy convrot whose layer passed S9.6 (scalar or row-wise), the
// companion KitchenW4A8Config lets through (S12.3).
bool is_int8_embedding(const Layer& l, const TensorTable& t);
// A row-wise int8 layer (S9.6 _is_rowwise), the companion ComfyNvfp4Config
// lets through (S19).
bool is_rowwise_int8(const Layer& l, const TensorTable& t);
// An int8 layer that passed S9.6 with a scalar scale (_is_tensorwise_scalar).
bool is_tensorwise_scalar_int8(const Layer& l, const TensorTable& t);
// Whether KitchenW4A8Config's constructor lets `l` through in a version
// whose set says `p` (sglang_versions.hpp).
bool w4a8_passes(W4a8Passes p, const Layer& l, const TensorTable& t);

// S11's NotImplementedError and each config constructor's refusal of a
// marker it does not take (CQ-SGLANG-FORMATS, CQ-SGLANG-COMPANION).
void check_resolution(const std::vector<Layer>& layers, const TensorTable& t,
                      const std::vector<std::string>& sorted_formats, Sink& out);

}  // namespace safespec::quant
