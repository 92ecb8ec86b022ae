// The nvfp4 layer rules (comfy-quant-markers.md L1, L3, L12, S9.1, S9.5, S19,
// C12, C13, K3, G13, G23).
//
// Two consumers disagree on the block-scale shape (G13): sglang's inspector
// wants the logical (N, K/16) matrix, comfy-kitchen writes (and its CUDA
// kernels index) the swizzled, padded [roundup(N16, 128), roundup(K16/16, 4)].
// CQ-NVFP4-SHAPES is sglang's requirement and CQ-NVFP4-LAYOUT kitchen's, so a
// file can satisfy one and break the other; both hold only when N16 % 128 == 0
// and (K16/16) % 4 == 0.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spec/quant/block_layout.hpp"
#include "spec/quant/layer.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"
#include "spec/quote.hpp"

namespace safespec::quant {
namespace {


// Positions in sglang's per-marker order (S9.1 is step 0).
// S19 runs in the config constructor after the companion check of the same
// marker (CQ-SGLANG-COMPANION). Whether the constructor checks marker by
// marker or in two passes is not recorded; marker by marker is assumed.
// ComfyUI: C12 companions, then C13 building the QuantizedTensor.

// CQ-NVFP4-TENSORS (S9.1, C12). ComfyUI reaches C12 only with a weight: a
// missing weight is its C6 warning (CQ-MARKER-ORPHAN) and the layer is skipped.
void check_tensors(const LayerCheck& c) {
  const std::vector<std::string> missing = missing_tensors(c);
  if (missing.empty()) return;
  std::vector<Verdict> comfy;
  if (c.weight())
    comfy.push_back(verdict(Msg::Nvfp4CuMissingScales, At{c.l.index}, {{"layer_name", comfy_layer_name(c.l.prefix)}}));
  check_required_tensors(c, missing, std::move(comfy));
}

// CQ-NVFP4-DTYPES (S9.5.1). ComfyUI views the block scale as float8_e4m3fn
// (C12 views): the integer containers U8 and I8 hand it the stored codes bit
// for bit, any other dtype's bytes meant something else (another float8) or
// change the shape (wider dtypes), so the scale is silently wrong. The weight's
// ComfyUI side is CQ-WEIGHT-CAST. kitchen never sees the on-disk dtypes:
// ComfyUI casts the weight to uint8, views the scale as e4m3 and Params cast
// the global scale to f32, so its eager dtype constraints (K3) cannot fire.
void check_dtypes(const LayerCheck& c) {
  const TensorRef* w = c.tensor("weight");
  const TensorRef* s = c.tensor("weight_scale");
  if (!w || !s) return;
  if (has_dtype(w, Dtype::U8) && has_dtype(s, Dtype::F8_E4M3)) return;
  std::vector<Verdict> v{verdict(Msg::Nvfp4SgDtypes, At{c.l.index}, {{"prefix!r", repr(c.l.prefix)},
                                  {"weight_dtype", dtype_str(*w)},
                                  {"scale_dtype", dtype_str(*s)}})};
  if (!has_dtype(s, Dtype::F8_E4M3) && !has_dtype(s, Dtype::U8) && !has_dtype(s, Dtype::I8))
    v.push_back(verdict(Msg::Nvfp4CuMisLoads, At{c.l.index}, {}));
  c.add(RuleId::QuantNvfp4Dtypes, "nvfp4 needs a U8 weight and an F8_E4M3 weight_scale, got " + dtype_str(*w) + " and " + dtype_str(*s),
      std::move(v));
}

// CQ-NVFP4-GLOBAL-SCALE (S9.5.2). sglang only: kitchen Params cast any float
// (or integer) global scale to f32 (K1 note, CK tensor/nvfp4.py:49-51), and
// what its kernels do with more than one element is not recorded, so no
// ComfyUI or kitchen verdict is claimed.
void check_global_scale(const LayerCheck& c) {
  const TensorRef* s2 = c.tensor("weight_scale_2");
  if (!s2) return;
  if (has_dtype(s2, Dtype::F32) && (shape_is(*s2, {}) || shape_is(*s2, {1}))) return;
  c.add(RuleId::QuantNvfp4GlobalScale, Place::tensor(s2->entry->name),
      "nvfp4 weight_scale_2 must be F32 of shape () or (1,), got " + dtype_str(*s2) + " " + shape_str(*s2),
      {verdict(Msg::Nvfp4SgGlobalScale, At{c.l.index}, {{"prefix!r", repr(c.l.prefix)}, {"scale_2_dtype", dtype_str(*s2)}, {"scale_2_shape", shape_str(*s2)}})});
}

// CQ-NVFP4-WEIGHT-RANK (S9.5.3). sglang only here: ComfyUI's and kitchen's
// consequences of a non-2-D weight are part of CQ-NVFP4-LAYOUT.
void check_weight_rank(const LayerCheck& c) {
  const TensorRef* w = c.tensor("weight");
  if (!w || w->entry->shape.size() == 2) return;
  c.add(RuleId::QuantNvfp4WeightRank, Place::tensor(w->entry->name),
      "an nvfp4 weight is 2-D (N, K/2), got " + shape_str(*w),
      {verdict(Msg::Nvfp4SgWeightRank, At{c.l.index}, {{"prefix!r", repr(c.l.prefix)}, {"weight_shape", shape_str(*w)}})});
}

// CQ-NVFP4-SHAPES (S9.5.4, G13). With K = 2 * packed width C, K % 16 == 0 is
// C % 8 == 0 and K // 16 is C // 8, so nothing overflows.
void check_shapes(const LayerCheck& c) {
  const TensorRef* w = c.tensor("weight");
  const TensorRef* s = c.tensor("weight_scale");
  if (!w || !s || w->entry->shape.size() != 2) return;
  const std::uint64_t n = w->entry->shape[0], packed = w->entry->shape[1];
  if (packed % 8 == 0 && shape_is(*s, {n, packed / 8})) return;
  std::string msg = "sglang needs K = " + times2_str(packed) + " divisible by 16 and weight_scale (N, K/16) = " +
                    shape_repr(std::vector<std::uint64_t>{n, packed / 8}) + ", got weight " + shape_str(*w) +
                    " and weight_scale " + shape_str(*s);
  c.add(RuleId::QuantNvfp4Shapes, std::move(msg),
      {verdict(Msg::Nvfp4SgShapes, At{c.l.index}, {{"prefix!r", repr(c.l.prefix)}, {"weight_shape", shape_str(*w)}, {"scale_shape", shape_str(*s)}})});
}

// CQ-NVFP4-PRE-QUANT-SCALE (S9.5.5). sglang only: ComfyUI multiplies the
// input by it with broadcasting (CU ops.py:1374-1377) and whether it must be
// exactly [K] is not determined upstream (§8). Without a 2-D weight, K is
// unknown and only the dtype is judged.
void check_pre_quant_scale(const LayerCheck& c) {
  const TensorRef* p = c.tensor("pre_quant_scale");
  if (!p) return;
  const Dtype d = p->entry->dtype;
  const bool dtype_ok = d == Dtype::BF16 || d == Dtype::F16 || d == Dtype::F32;
  const TensorRef* w = c.tensor("weight");
  std::optional<std::string> k;
  bool shape_ok = true;
  if (w && w->entry->shape.size() == 2) {
    k = times2_str(w->entry->shape[1]);
    const auto k64 = times2(w->entry->shape[1]);
    shape_ok = k64 && shape_is(*p, {*k64});
  }
  if (dtype_ok && shape_ok) return;
  std::string msg = "an nvfp4 pre_quant_scale is BF16, F16 or F32 of shape " + (k ? "(" + *k + ",)" : "(K,)") +
                    ", got " + dtype_str(*p) + " " + shape_str(*p);
  c.add(RuleId::QuantNvfp4PreQuantScale, Place::tensor(p->entry->name), std::move(msg),
      {verdict(Msg::Nvfp4SgPreQuantScale, At{c.l.index}, {{"prefix!r", repr(c.l.prefix)}, {"dtype", dtype_str(*p)}, {"shape", shape_str(*p)}})});
}

// CQ-NVFP4-FULL-PRECISION (S19, G13). The reference says "exactly True", so
// the test is identity (`is True`): JSON 1, "true" or 1.0 do not pass, though
// ComfyUI, which reads the key for truthiness (C9), would honour them. Only
// ComfyNvfp4Config performs it; under any other resolution no consumer cares.
void check_full_precision(const LayerCheck& c) {
  if (c.l.sglang_config != c.format.sglang_config) return;
  const py::Value* v = get(*c.l.marker, "full_precision_matrix_mult");
  if (is_true(v)) return;
  c.add(RuleId::QuantNvfp4FullPrecision, "sglang's ComfyNvfp4Config needs \"full_precision_matrix_mult\": true, got " + (v ? py::repr(*v) : "no key"),
      {verdict(Msg::Nvfp4SgFullPrecision, At{c.l.index}, {{"prefix!r", repr(c.l.prefix)}})});
}

// CQ-WEIGHT-CAST for nvfp4 (§2.1, C13): ComfyUI converts the weight with
// .to(torch.uint8); U8 and I8 keep the packed bits, any other dtype is
// converted by value and the E2M1 codes are lost.
void weight_cast_rule(const LayerCheck& c) {
  if (weight_kept(c)) return;
  check_weight_cast(c, {verdict(Msg::Nvfp4CuMisLoads, At{c.l.index}, {})});
}

// CQ-NVFP4-LAYOUT (L3, L12, G13). From the file alone only the packed weight
// [R, C] is known, not the module's logical (N, K); kitchen stores
// R = N16 = roundup(N, 16) rows and C = K16/2 bytes per row, so the check is:
// the weight is 2-D, R % 16 == 0, C % 8 == 0 (K16 = 2C a multiple of 16) and
// weight_scale is exactly [roundup(R, 128), roundup(C/8, 4)]. ComfyUI loads
// any shape verbatim (C15), and kitchen's CUDA kernels derive N from the
// packed rows and index the scale through the swizzle of L3, so any other
// shape (e.g. sglang's unswizzled (N, K/16)) computes silently wrong values
// or reads outside the scale: MisLoads for both. The scale's absence is
// CQ-NVFP4-TENSORS, so it is not judged here.
void check_layout(const LayerCheck& c) {
  const TensorRef* w = c.tensor("weight");
  const TensorRef* s = c.tensor("weight_scale");
  if (!w) return;
  std::string msg;
  const auto& ws = w->entry->shape;
  if (ws.size() != 2) {
    msg = "comfy-kitchen's nvfp4 weight is 2-D [N16, K16/2], got " + shape_str(*w);
  } else if (ws[0] % 16 != 0 || ws[1] % 8 != 0) {
    msg = "comfy-kitchen pads an nvfp4 weight to [N16, K16/2] (rows a multiple of 16, bytes per row a multiple of 8), "
          "got " + shape_str(*w);
  } else if (!s) {
    return;
  } else {
    const auto rows = roundup(ws[0], 128), cols = roundup(ws[1] / 8, 4);
    if (rows && cols && shape_is(*s, {*rows, *cols})) return;
    msg = "comfy-kitchen's swizzled nvfp4 weight_scale for weight " + shape_str(*w) + " is (" + roundup_str(ws[0], 128) +
          ", " + roundup_str(ws[1] / 8, 4) + "), got " + shape_str(*s);
  }
  c.add(RuleId::QuantNvfp4Layout, std::move(msg),
      {verdict(Msg::Nvfp4CuMisLoads, At{c.l.index}, {}),
       verdict(Msg::Nvfp4KtMisLoads, At{c.l.index}, {})});
}

}  // namespace

void check_nvfp4_layer(const LayerCheck& c) {
  // sglang's order (S9.1, S9.5.1-5, then S19), then the checks only ComfyUI
  // and kitchen make.
  check_tensors(c);
  check_dtypes(c);
  check_global_scale(c);
  check_weight_rank(c);
  check_shapes(c);
  check_pre_quant_scale(c);
  check_full_precision(c);
  weight_cast_rule(c);
  check_layout(c);
  check_comfy_mmap(c, "store nvfp4 data and scales in dtypes ComfyUI's mmap reader knows (U8 for packed data)");
}

}  // namespace safespec::quant
