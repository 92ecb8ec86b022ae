// The mxfp8 layer rules for a marker that declares format "mxfp8"
// (comfy-quant-markers.md L3, L13, C12, C13, G12, G23).
//
// sglang validates nothing per layer for such a marker (S9.0 skips every
// format but five) and judges it only at resolution (S11, MXFP8Config, whose
// execution S20 is not described); its one mxfp8 shape check belongs to the
// global quant_format case (S7, CQ-MXFP8-GLOBAL, markers.cpp). So every
// verdict here is ComfyUI's or comfy-kitchen's.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spec/quant/block_layout.hpp"
#include "spec/quant/layer.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"
#include "spec/quote.hpp"

namespace safespec::quant {
namespace {

// ComfyUI comfy/ops.py:1177-1178 (C12).
constexpr MessageTemplate kCuMissingScale{Consumer::Comfyui, Effect::Rejects, "ValueError",
                                          "Missing MXFP8 block scales for layer {layer_name}", "comfy/ops.py:1177-1178"};
// Silent mis-loads carry no exception and no message.
constexpr MessageTemplate kCuMisLoads{Consumer::Comfyui, Effect::MisLoads, "", "", "comfy/ops.py:1172-1185, 1239"};
constexpr MessageTemplate kKtMisLoads{Consumer::Kitchen, Effect::MisLoads, "", "", "float_utils.cuh:111-126 (L3)"};

// ComfyUI: C12 companions, then C13 building the QuantizedTensor.
constexpr std::uint32_t kCuStepCompanions = 12, kCuStepTensor = 13;
constexpr std::uint32_t kKtStepGemm = 0;

bool is_dtype(const TensorRef* t, Dtype d) { return t && t->entry->dtype == d; }
const std::vector<std::uint64_t>& shape_of(const TensorRef& t) { return t.entry->shape; }

void add(Sink& out, const Layer& l, RuleId rule, Place where, std::string message,
         std::vector<Verdict> verdicts) {
  out.add(l.file, rule, std::move(where), std::move(message), std::move(verdicts));
}

// CQ-MXFP8-TENSORS (L13, C12). ComfyUI reaches C12 only with a weight: a
// missing weight is its C6 warning (CQ-MARKER-ORPHAN), so that case has no
// verdict here.
void check_tensors(const Layer& l, const TensorTable& t, Sink& out) {
  auto missing = missing_tensors(l, t, {"weight", "weight_scale"});
  if (missing.empty()) return;
  std::vector<Verdict> v;
  if (t.find(tensor_name(l, "weight")))
    v.push_back(verdict(kCuMissingScale, order::cu_layer(l.index, kCuStepCompanions),
                        {{"layer_name", comfy_layer_name(l.prefix)}}));
  std::string names;
  for (const auto& n : missing) names += (names.empty() ? "" : ", ") + quote_name(n);
  add(out, l, RuleId::QuantMxfp8Tensors, Place::layer(l.prefix),
      "an mxfp8 layer needs weight and weight_scale; missing " + names, std::move(v));
}

// CQ-WEIGHT-CAST for mxfp8 (§2.1, C13): ComfyUI converts the weight with
// .to(torch.float8_e4m3fn); only F8_E4M3 on disk survives, any other dtype
// (U8 holding E4M3 bits included) is converted by value.
void weight_cast_rule(const Layer& l, const TensorTable& t, Sink& out) {
  check_weight_cast(l, t.find(tensor_name(l, "weight")), {Dtype::F8_E4M3}, "float8_e4m3fn",
                    {verdict(kCuMisLoads, order::cu_layer(l.index, kCuStepTensor), {})}, out);
}

// CQ-MXFP8-DTYPES (L13). The weight's ComfyUI consequence is CQ-WEIGHT-CAST.
// ComfyUI views the block scale as float8_e8m0fnu (C12 views): the integer
// containers U8 and I8 hand it the stored codes bit for bit, any other dtype's
// bytes meant something else (another float8) or change the shape (wider
// dtypes): MisLoads. kitchen only ever sees the cast weight and the viewed
// scale, so its eager dtype constraints (K3) cannot fire.
void check_dtypes(const Layer& l, const TensorTable& t, Sink& out) {
  const TensorRef* w = t.find(tensor_name(l, "weight"));
  const TensorRef* s = t.find(tensor_name(l, "weight_scale"));
  const bool w_ok = !w || is_dtype(w, Dtype::F8_E4M3);
  const bool s_ok = !s || is_dtype(s, Dtype::U8) || is_dtype(s, Dtype::F8_E8M0);
  if (w_ok && s_ok) return;
  std::vector<Verdict> v;
  if (!s_ok && !is_dtype(s, Dtype::I8)) v.push_back(verdict(kCuMisLoads, order::cu_layer(l.index, kCuStepTensor), {}));
  std::string got;
  if (!w_ok) got = "weight " + dtype_str(*w);
  if (!s_ok) got += (got.empty() ? "" : " and ") + std::string("weight_scale ") + dtype_str(*s);
  add(out, l, RuleId::QuantMxfp8Dtypes, Place::layer(l.prefix),
      "mxfp8 needs an F8_E4M3 weight and a U8 or F8_E8M0 weight_scale, got " + got, std::move(v));
}

// CQ-MXFP8-LAYOUT (L3, L13, G12). Only the stored weight [R, C] is known, not
// the module's logical (N, K); kitchen stores R = N32 and C = K32 (CK
// tensor/mxfp8.py:91-104), so the check is: the weight is 2-D, R % 32 == 0,
// C % 32 == 0 and weight_scale is exactly [roundup(R, 128), roundup(C/32, 4)].
// ComfyUI loads any shape verbatim (C15) and kitchen's CUDA kernels index the
// scale through the swizzle of L3, so any other shape (e.g. the logical
// (N, K/32) that sglang's global case wants) computes silently wrong values
// or reads outside the scale: MisLoads for both. The scale's absence is
// CQ-MXFP8-TENSORS.
void check_layout(const Layer& l, const TensorTable& t, Sink& out) {
  const TensorRef* w = t.find(tensor_name(l, "weight"));
  const TensorRef* s = t.find(tensor_name(l, "weight_scale"));
  if (!w) return;
  std::string msg;
  const auto& ws = shape_of(*w);
  if (ws.size() != 2) {
    msg = "comfy-kitchen's mxfp8 weight is 2-D [N32, K32], got " + shape_str(*w);
  } else if (ws[0] % 32 != 0 || ws[1] % 32 != 0) {
    msg = "comfy-kitchen pads an mxfp8 weight to [N32, K32] (both multiples of 32), got " + shape_str(*w);
  } else if (!s) {
    return;
  } else {
    const auto rows = roundup(ws[0], 128), cols = roundup(ws[1] / 32, 4);
    if (rows && cols && shape_is(*s, {*rows, *cols})) return;
    msg = "comfy-kitchen's swizzled mxfp8 weight_scale for weight " + shape_str(*w) + " is (" +
          roundup_str(ws[0], 128) + ", " + roundup_str(ws[1] / 32, 4) + "), got " + shape_str(*s);
  }
  add(out, l, RuleId::QuantMxfp8Layout, Place::layer(l.prefix), std::move(msg),
      {verdict(kCuMisLoads, order::cu_layer(l.index, kCuStepTensor), {}),
       verdict(kKtMisLoads, order::kt_operands(l.index, kKtStepGemm), {})});
}

}  // namespace

void check_mxfp8_layer(const Layer& l, const TensorTable& t, Sink& out) {
  // ComfyUI's order: companions (C12), then the tensor it builds (C13).
  check_tensors(l, t, out);
  weight_cast_rule(l, t, out);
  check_dtypes(l, t, out);
  check_layout(l, t, out);
  check_comfy_mmap(l, t, {"weight", "weight_scale", "input_scale"},
                   "store mxfp8 scales in dtypes ComfyUI's mmap reader knows (U8 for E8M0 codes)", out);
}

}  // namespace safespec::quant
