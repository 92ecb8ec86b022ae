// The float8_e4m3fn / float8_e5m2 layer rules (comfy-quant-markers.md L10,
// L11, S9.0-S9.2, S18, C6, C12, C13, G11, G14, G15).
//
// sglang validates float8_e4m3fn only (S9.0): S9.1 requires weight and
// weight_scale, S9.2 checks no dtype or shape. float8_e5m2 is skipped by
// phase 3 and fails only at resolution (G11), which is not this module's.
// ComfyFp8Config (S18) has nothing per layer that a checkpoint decides:
// full_precision_matrix_mult only picks the method, and its one raise
// ("does not support fused linears") depends on the model's fused linears.
// The activation scheme difference when input_scale is absent (G15: sglang
// per-token dynamic, ComfyUI 1.0) is a consumer disagreement, not a defect.
//
// ComfyUI steps as in int8_rules.cpp: C6 (0), C12 (2), C13 cast (4).
#include <optional>
#include <string>
#include <vector>

#include "spec/quant/layer.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"
#include "spec/quote.hpp"

namespace safespec::quant {
namespace {


constexpr std::uint32_t kCuStepCast = 4;
constexpr std::uint32_t kKtStepFirstForward = 0;

struct Fp8 {
  Dtype storage;         // what ComfyUI's storage_t holds (C13)
  bool sglang_validates;  // S9.0
};

Fp8 fp8_of(const Layer& l) {
  if (l.format == "float8_e5m2") return {Dtype::F8_E5M2, false};
  return {Dtype::F8_E4M3, true};
}

std::optional<std::uint64_t> numel(const std::vector<std::uint64_t>& shape) {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) {
    if (d != 0 && n > UINT64_MAX / d) return std::nullopt;
    n *= d;
  }
  return n;
}

// A scale's dtype that holds a real-valued factor. comfy-kitchen's Params
// cast any tensor scale to float32 (CK tensor/fp8.py:41-45), so these all
// load; an integer dtype would load too, but nothing writes one and a U8
// scale is more likely fp8 bits (QUANTIZATION.md's stale "uint8 container",
// §1.2) that the cast would misread, so the strict spec wants a float.
bool float_scale_dtype(Dtype d) { return d == Dtype::F32 || d == Dtype::F16 || d == Dtype::BF16 || d == Dtype::F64; }

// S9.1 (float8_e4m3fn only), C6, G14. ComfyUI has no weight_scale check
// (CU ops.py:1173-1174): the layer loads with scale None, which the fp8
// Params keep (they cast tensors only). At its first forward torch._scaled_mm
// rejects the None scale, comfy-kitchen logs "FP8 _scaled_mm failed"
// (K12) and falls back to dequantize_per_tensor_fp8 with the same None, which
// fails in its backend dispatch (K3); a disabled fp8 format or
// full_precision_matrix_mult goes straight to that dequantize. So kitchen
// rejects the layer with NoCapableBackendError (its text, as a real traceback
// shows it: "No backend can handle '<op>':" then one "\n    <backend>:
// <reason>" line per installed backend). Which backends are installed, and so
// the reason lines, depends on the machine: the verdict gives the fixed
// first line and says what follows, rather than guess it.
void tensors_rule(const Layer& l, const TensorTable& t, const Fp8& f, Sink& out) {
  auto absent = missing_tensors(l, t, {"weight", "weight_scale"});
  if (absent.empty()) return;
  const bool weight_missing = !t.find(tensor_name(l, "weight"));
  std::vector<Verdict> v;
  if (f.sglang_validates)
    v.push_back(verdict(kSgMissingTensors, order::sg_layer(l.index, kStepRequiredTensors),
                        {{"prefix!r", repr(l.prefix)}, {"sorted(missing)", sorted_list_repr(absent)}}));
  // A missing weight is ComfyUI's C6 warning, decided once by CQ-MARKER-ORPHAN (analyze.cpp).
  if (!weight_missing)
    v.push_back(Verdict{Consumer::Kitchen, Effect::Rejects, "NoCapableBackendError",
                        "No backend can handle 'dequantize_per_tensor_fp8': (then one line per installed backend with "
                        "its reason, which depends on the machine; weight_scale is None)",
                        order::kt_operands(l.index, kKtStepFirstForward)});
  std::string msg = l.format + " layer needs weight and weight_scale; missing ";
  for (std::size_t i = 0; i < absent.size(); ++i) msg += (i ? " and " : "") + quote_name(absent[i]);
  out.add(l.file, RuleId::QuantFp8Tensors, Place::layer(l.prefix), std::move(msg), std::move(v));
}

// L10: per-tensor scales, one element each. No consumer checks this: sglang
// does not look (S9.2), ComfyUI does not either (C15), and whether a
// per-channel scale works on the scaled-mm path or silently broadcasts along
// K on the dequantize path is undetermined (§8), so there are no verdicts.
void scale_rule(const Layer& l, const TensorTable& t, Sink& out) {
  std::string problems;
  for (std::string_view suffix : {"weight_scale", "input_scale"}) {
    const TensorRef* s = t.find(tensor_name(l, suffix));
    if (!s) continue;
    const auto n = numel(s->entry->shape);
    const bool one = n && *n == 1, flt = float_scale_dtype(s->entry->dtype);
    if (one && flt) continue;
    if (!problems.empty()) problems += "; ";
    problems += std::string(suffix) + " is " + dtype_str(*s) + " " + shape_str(*s);
  }
  if (problems.empty()) return;
  out.add(l.file, RuleId::QuantFp8Scale, Place::layer(l.prefix),
          l.format + " weight_scale and input_scale must be single-element floats (F32 canonical), found " + problems,
          {});
}

// L10: [N, K]. Nobody checks it at load (sglang S9.2, ComfyUI C15); a
// non-2-D weight fails later in torch with a version-dependent message, and
// ComfyUI's MoE banks are 3-D by design (L19), so there are no verdicts.
void weight_rule(const Layer& l, const TensorTable& t, Sink& out) {
  const TensorRef* w = t.find(tensor_name(l, "weight"));
  if (!w || w->entry->shape.size() == 2) return;
  out.add(l.file, RuleId::QuantFp8Weight, Place::layer(l.prefix),
          l.format + " weight must be 2-D [N, K], found shape " + shape_str(*w), {});
}

// C13: ComfyUI value-casts the weight to the format's fp8 dtype; any other
// storage (U8 bytes of fp8 codes, F16, the other fp8 flavour) is converted
// numerically and the codes are lost. sglang's loader is not recorded.
void weight_cast_rule(const Layer& l, const TensorTable& t, const Fp8& f, Sink& out) {
  check_weight_cast(l, t.find(tensor_name(l, "weight")), {f.storage}, l.format,
                    {Verdict{Consumer::Comfyui, Effect::MisLoads, "", "", order::cu_layer(l.index, kCuStepCast)}}, out);
}

}  // namespace

void check_fp8_layer(const Layer& l, const TensorTable& t, Sink& out) {
  const Fp8 f = fp8_of(l);
  tensors_rule(l, t, f, out);
  scale_rule(l, t, out);
  weight_rule(l, t, out);
  weight_cast_rule(l, t, f, out);
}

}  // namespace safespec::quant
