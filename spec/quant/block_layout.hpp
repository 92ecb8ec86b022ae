// What the block-scaled formats (nvfp4, mxfp8) share: comfy-kitchen's padded,
// swizzled scale shapes (L3) computed exactly near 2^64, and the dtypes
// ComfyUI's own mmap reader knows (§2.1, G23).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "spec/quant/layer.hpp"

namespace safespec::quant {

bool shape_is(const TensorRef& t, std::initializer_list<std::uint64_t> want);
// roundup(a, m) when it fits in 64 bits.
std::optional<std::uint64_t> roundup(std::uint64_t a, std::uint64_t m);
// roundup(a, m) in decimal, exact even past 2^64 (a shape may be 2^64-1).
std::string roundup_str(std::uint64_t a, std::uint64_t m);

// CQ-DTYPE-COMFY-MMAP: ComfyUI's own reader (comfy/utils.py:64-83) knows only
// F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL, F8_E4M3, F8_E5M2, C64,
// U64, U32, U16; any other dtype string (F8_E8M0 above all, F4, F6_*, the
// FNUZ float8s) raises KeyError when the file is opened, before any layer
// loads. The reader is used only with aimdo, so the verdict is a warning; the
// message names this layer's first offender among its format's tensors, though
// the reader may meet another layer's first. `advice` says what to store instead.
bool comfy_mmap_knows(Dtype d);
void check_comfy_mmap(const LayerCheck& c, std::string_view advice);

}  // namespace safespec::quant
