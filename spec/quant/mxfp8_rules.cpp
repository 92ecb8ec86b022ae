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


// ComfyUI: C12 companions, then C13 building the QuantizedTensor.

// CQ-MXFP8-TENSORS (L13, C12). ComfyUI reaches C12 only with a weight: a
// missing weight is its C6 warning (CQ-MARKER-ORPHAN), so that case has no
// verdict here.
void check_tensors(const LayerCheck& c) {
  const std::vector<std::string> missing = missing_tensors(c);
  if (missing.empty()) return;
  std::vector<Verdict> comfy;
  if (c.weight())
    comfy.push_back(verdict(Msg::Mxfp8CuMissingScale, At{c.l.index}, {{"layer_name", comfy_layer_name(c.l.prefix)}}));
  check_required_tensors(c, missing, std::move(comfy));
}

// CQ-WEIGHT-CAST for mxfp8 (§2.1, C13): ComfyUI converts the weight with
// .to(torch.float8_e4m3fn); only F8_E4M3 on disk survives, any other dtype
// (U8 holding E4M3 bits included) is converted by value.
void weight_cast_rule(const LayerCheck& c) {
  if (weight_kept(c)) return;
  check_weight_cast(c, {verdict(Msg::Mxfp8CuMisLoads, At{c.l.index}, {})});
}

// CQ-MXFP8-DTYPES (L13). The weight's ComfyUI consequence is CQ-WEIGHT-CAST.
// ComfyUI views the block scale as float8_e8m0fnu (C12 views): the integer
// containers U8 and I8 hand it the stored codes bit for bit, any other dtype's
// bytes meant something else (another float8) or change the shape (wider
// dtypes): MisLoads. kitchen only ever sees the cast weight and the viewed
// scale, so its eager dtype constraints (K3) cannot fire.
void check_dtypes(const LayerCheck& c) {
  const TensorRef* w = c.tensor("weight");
  const TensorRef* s = c.tensor("weight_scale");
  const bool w_ok = !w || has_dtype(w, Dtype::F8_E4M3);
  const bool s_ok = !s || has_dtype(s, Dtype::U8) || has_dtype(s, Dtype::F8_E8M0);
  if (w_ok && s_ok) return;
  std::vector<Verdict> v;
  if (!s_ok && !has_dtype(s, Dtype::I8)) v.push_back(verdict(Msg::Mxfp8CuMisLoads, At{c.l.index}, {}));
  std::string got;
  if (!w_ok) got = "weight " + dtype_str(*w);
  if (!s_ok) got += (got.empty() ? "" : " and ") + std::string("weight_scale ") + dtype_str(*s);
  c.add(RuleId::QuantMxfp8Dtypes, "mxfp8 needs an F8_E4M3 weight and a U8 or F8_E8M0 weight_scale, got " + got, std::move(v));
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
void check_layout(const LayerCheck& c) {
  const TensorRef* w = c.tensor("weight");
  const TensorRef* s = c.tensor("weight_scale");
  if (!w) return;
  std::string msg;
  const auto& ws = w->entry->shape;
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
  c.add(RuleId::QuantMxfp8Layout, std::move(msg),
      {verdict(Msg::Mxfp8CuMisLoads, At{c.l.index}, {}),
       verdict(Msg::Mxfp8KtMisLoads, At{c.l.index}, {})});
}

}  // namespace

void check_mxfp8_layer(const LayerCheck& c) {
  // ComfyUI's order: companions (C12), then the tensor it builds (C13).
  check_tensors(c);
  weight_cast_rule(c);
  check_dtypes(c);
  check_layout(c);
  check_comfy_mmap(c, "store mxfp8 scales in dtypes ComfyUI's mmap reader knows (U8 for E8M0 codes)");
}

}  // namespace safespec::quant
