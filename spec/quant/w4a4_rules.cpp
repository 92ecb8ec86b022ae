// The convrot_w4a4 layer rules, L15 (comfy-quant-markers.md §2.2): sglang's
// inspector (S9.1, S9.4 steps 1-4) and its KitchenW4A4Config (S15.5),
// ComfyUI's loader (C12, C13) and the comfy-kitchen checks it runs (K2, K6,
// K9), called in sglang's order.
//
// Positions taken where upstream leaves a choice (§8):
// - The model's K (sglang's layer.input_size, kitchen's input width) is the
//   checkpoint's 2 * weight_shape[1]. With that, S15.5's convrot_groupsize
//   test and S15.6's input-size test repeat S9.4 steps 3 and 4 with the same
//   values, so they never raise first and get no verdict of their own.
// - Of K9's run-time messages (per-message lines not recorded), a forward
//   pass is taken to hit "Input K={a} not divisible by convrot_groupsize {c}"
//   first; what kitchen raises for K % 64 != 0 is not recorded (no verdict).
// - K9's shape messages end in "…" in the reference, so weight/scale shape
//   defects get sglang's verdict only.
// - Only int and bool convrot_groupsize values get kitchen verdicts: ComfyUI
//   passes the value on uncoerced and what a float or str does is not
//   recorded. Whether K6 takes 1 (= 4^0) is not recorded either.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "spec/quant/layer.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/py_number.hpp"
#include "spec/quant/render.hpp"
#include "spec/quote.hpp"

namespace safespec::quant {
namespace {




// Steps: sglang phase 3 is S9.4's step number; the config's _parse_marker is
// S15 item 5. ComfyUI: C12, the C13 value cast, then Params at 21. kitchen:
// Params K2 at 2; at run time the input check before the eager Hadamard.
constexpr std::uint32_t kS3 = 3;

// The layer's context with the values every W4A4 rule reads.
struct Ctx : LayerCheck {
  const TensorRef* w;
  const TensorRef* scale;
  std::optional<u128> k;  // 2 * weight_shape[1] for a 2-D weight
  Result<py::Value, py::PyException> sg_c;  // S9.4 step 3: int(marker.get("convrot_groupsize", default))
  std::optional<Num> c;                      // sglang's int (nullopt when int() raised)
  std::optional<Num> cu_c;                   // ComfyUI's value, when int or bool
  bool cu_params;                            // ComfyUI gets to C13 (weight and weight_scale present)
  bool sg_config;                            // sglang resolved to KitchenW4A4Config

  explicit Ctx(const LayerCheck& base)
      : LayerCheck(base),
        w(weight()),
        scale(tensor("weight_scale")),
        sg_c(int_of(*l.marker, "convrot_groupsize", format.defaults.convrot_groupsize)),
        cu_c(comfy_num(*l.marker, "convrot_groupsize", format.defaults.convrot_groupsize)),
        cu_params(w && scale),
        sg_config(l.sglang_config == format.sglang_config) {
    if (w && w->entry->shape.size() == 2) k = static_cast<u128>(w->entry->shape[1]) * 2;
    if (sg_c.ok()) c = num_of(sg_c.value());
  }
};

// CQ-W4A4-TENSORS (S9.1, C12).
void check_tensors(Ctx& c) {
  const std::vector<std::string> missing = missing_tensors(c);
  if (missing.empty()) return;
  std::vector<Verdict> comfy;
  if (c.w)  // no weight at all is C6 (CQ-MARKER-ORPHAN)
    comfy.push_back(verdict(Msg::W4a4CuMissingScale, At{c.l.index}, {{"layer_name", comfy_layer_name(c.l.prefix)}}));
  check_required_tensors(c, missing, std::move(comfy));
}

// CQ-W4A4-DTYPES (S9.4 step 1). ComfyUI takes a U8 weight too (same bits);
// what kitchen does with a non-F32 scale is not recorded.
void check_dtypes(Ctx& c) {
  if (!c.w || !c.scale) return;
  if (has_dtype(c.w, Dtype::I8) && has_dtype(c.scale, Dtype::F32)) return;
  const std::string wd = dtype_str(*c.w), sd = dtype_str(*c.scale);
  c.add(RuleId::QuantW4a4Dtypes, Place::layer(c.l.prefix),
        "convrot_w4a4 weight must be I8 and weight_scale F32; found " + wd + " and " + sd,
        {verdict(Msg::W4a4SgDtypes, At{c.l.index}, {{"prefix!r", c.prefix_repr()}, {"weight_dtype", wd}, {"scale_dtype", sd}})});
}

// CQ-WEIGHT-CAST (C13): ComfyUI converts the weight to int8 by value.
void weight_cast_rule(Ctx& c) {
  if (weight_kept(c)) return;
  std::vector<Verdict> comfy;
  if (c.cu_params) comfy.push_back(verdict(Msg::W4a4CuWeightCast, At{c.l.index}, {}));
  check_weight_cast(c, std::move(comfy));
}

// CQ-W4A4-SHAPES (S9.4 step 2): a 2-D weight and a (N,) scale.
void check_shapes(Ctx& c) {
  if (!c.w || !c.scale) return;
  const auto& ws = c.w->entry->shape;
  const auto& ss = c.scale->entry->shape;
  if (ws.size() == 2 && ss.size() == 1 && ss[0] == ws[0]) return;
  std::string expected = "a 2-D weight (N, K/2) and weight_scale (N,)";
  if (ws.size() == 2) expected += " = (" + std::to_string(ws[0]) + ",)";
  c.add(RuleId::QuantW4a4Shapes, Place::layer(c.l.prefix),
        "convrot_w4a4 needs " + expected + "; found " + shape_str(*c.w) + " and " + shape_str(*c.scale),
        {verdict(Msg::W4a4SgShapes, At{c.l.index}, {{"prefix!r", c.prefix_repr()},
                  {"weight_shape", shape_str(*c.w)},
                  {"scale_shape", shape_str(*c.scale)}})});
}

// CQ-MARKER-INT: sglang's int(convrot_groupsize) in phase 3 (S9.4 step 3).
void check_key_int(Ctx& c) {
  check_marker_ints(c, {{"convrot_groupsize", c.sg_c, Consumer::Sglang, order::sg_layer(c.l.index, kS3)}});
}

// CQ-W4A4-GROUPSIZE (S9.4 step 3, G17; K6 for a non-power of 4).
void check_groupsize(Ctx& c) {
  std::vector<Verdict> v;
  const bool sg_bad = c.c && !equals(*c.c, 16) && !equals(*c.c, 64) && !equals(*c.c, 256);
  if (sg_bad)
    v.push_back(verdict(Msg::W4a4SgGroupsize, At{c.l.index}, {{"prefix!r", c.prefix_repr()}, {"convrot_group_size", c.c->text}}));
  if (c.cu_params && c.cu_c && !power_of_4(*c.cu_c) && !equals(*c.cu_c, 1) && !c.cu_c->huge)
    v.push_back(verdict(Msg::W4a4KtHadamard, At{c.l.index}, {{"size", c.cu_c->text}}));
  if (v.empty()) return;
  c.add(RuleId::QuantW4a4Groupsize, Place::layer(c.l.prefix),
        "convrot_w4a4 convrot_groupsize must be 16, 64 or 256; found " + (c.c ? c.c->text : c.cu_c->text) +
            (sg_bad ? "" : " (as ComfyUI reads it)"),
        std::move(v));
}

// CQ-W4A4-K (S9.4 step 4; K9 at run time).
void check_k(Ctx& c) {
  if (!c.k) return;
  const u128 k = *c.k;
  std::vector<Verdict> v;
  std::string found;
  if (c.c && (k % 64 != 0 || is_zero(*c.c) || !divides(*c.c, k))) {
    found = "K=" + dec(k) + ", convrot_groupsize=" + c.c->text;
    // A zero never gets past step 3, so step 4 cannot divide by it.
    if (!is_zero(*c.c))
      v.push_back(verdict(Msg::W4a4SgInputSize, At{c.l.index}, {{"prefix!r", c.prefix_repr()},
                           {"logical_input_size", dec(k)},
                           {"convrot_group_size", c.c->text}}));
  }
  if (c.cu_params && c.cu_c && positive(*c.cu_c) && !divides(*c.cu_c, k)) {
    if (found.empty()) found = "K=" + dec(k) + ", convrot_groupsize=" + c.cu_c->text + " (as ComfyUI reads it)";
    v.push_back(verdict(Msg::W4a4KtInputK, At{c.l.index}, {{"a", dec(k)}, {"c", c.cu_c->text}}));
  }
  if (found.empty()) return;
  c.add(RuleId::QuantW4a4K, Place::layer(c.l.prefix),
        "convrot_w4a4 K must be divisible by 64 (quant_group_size) and by convrot_groupsize; found " + found,
        std::move(v));
}

// CQ-W4A4-LINEAR-DTYPE (S15.5: str() of the top-level value; K2: the value
// ComfyUI reads, top level then params, compared as is).
void check_linear_dtype(Ctx& c) {
  auto allowed = [](const py::Value* v) {
    const auto* s = v ? std::get_if<std::string>(&v->data) : nullptr;
    return !v || (s && (*s == "int4" || *s == "int8"));
  };
  std::vector<Verdict> v;
  const std::string sg_value = str_of(*c.l.marker, "linear_dtype", "int4");
  if (c.sg_config && sg_value != "int4" && sg_value != "int8")
    v.push_back(verdict(Msg::W4a4SgLinearDtype, At{c.l.index}, {{"prefix!r", c.prefix_repr()}, {"linear_dtype!r", repr(sg_value)}}));
  const py::Value* cu = comfy_get(*c.l.marker, "linear_dtype");
  if (c.cu_params && !allowed(cu)) {
    const std::string shown = py::repr(*cu);
    v.push_back(verdict(Msg::W4a4KtLinearDtype, At{c.l.index}, {{"v!r", shown}}));
    v.push_back(verdict(Msg::W4a4CuParamsLinearDtype, At{c.l.index}, {{"v!r", shown}}));
  }
  const py::Value* top = get(*c.l.marker, "linear_dtype");
  if (allowed(top) && v.empty()) return;
  c.add(RuleId::QuantW4a4LinearDtype, Place::layer(c.l.prefix),
        "convrot_w4a4 linear_dtype must be 'int4' or 'int8'; found " +
            (!allowed(top) ? py::repr(*top) : py::repr(*cu) + " (as ComfyUI reads it)"),
        std::move(v));
}

}  // namespace

void check_w4a4_layer(const LayerCheck& base) {
  Ctx c(base);
  check_tensors(c);
  check_dtypes(c);
  weight_cast_rule(c);
  check_shapes(c);
  check_key_int(c);
  check_groupsize(c);
  check_k(c);
  check_linear_dtype(c);
}

}  // namespace safespec::quant
