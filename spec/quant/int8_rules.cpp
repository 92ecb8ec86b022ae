// The int8_tensorwise layer rules (comfy-quant-markers.md L14, S9.1, S9.6,
// S17, C6, C12, C13, K6, K10, G16).
//
// Consumer orders used here (positions within one layer):
// - sglang phase 3: S9.1 (step 0), then S9.6. S9.6 has two exclusive
//   branches: weight I8 AND scale F32 AND scale shape () takes only the 2-D
//   check; anything else takes the I8/F32 check and then the (N, 1) check.
//   Dtypes is step 1, the tensor-wise 2-D check step 2 and the row-wise shape
//   check step 3, so whenever both a dtype and a shape defect exist the dtype
//   message comes first, as it does in sglang (a wrong dtype sends a ()-scale
//   layer into the row-wise branch, whose first check is the dtype one).
// - sglang KitchenInt8Config (S17) and ConvRotInt8Config, whichever the
//   version reads int8 markers with (sglang_versions.hpp): per marker,
//   convrot (step 0) then convrot_groupsize (step 1), marker-major as the
//   constructor loops; ahead of the W4A4 markers when KitchenW4A4Config builds
//   the class for its companions. The get_quant_method divisibility check is
//   sg_method step 0.
// - ComfyUI _load_quantized_module: C6 missing weight (step 0), C12 missing
//   scale (step 2), int(convrot_groupsize) (step 3), the storage cast of C13
//   (step 4). Step 1 is left to C10/C11 (format), which other modules own.
// - comfy-kitchen int8_linear at the first forward (K10, K6): scale numel
//   (step 0), K % C (step 1), the Hadamard of size C (step 2).
#include <bit>
#include <optional>
#include <string>
#include <vector>

#include "spec/checked_math.hpp"
#include "spec/quant/layer.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"
#include "spec/quant/resolution.hpp"
#include "spec/quant/sglang_versions.hpp"
#include "spec/quote.hpp"

namespace safespec::quant {
namespace {


constexpr std::uint32_t kCuStepInt = 3, kCuStepCast = 4;

// The logical (N, K) of a 2-D weight.
struct Dims {
  std::uint64_t n, k;
};
std::optional<Dims> dims(const TensorRef* weight) {
  if (!weight || weight->entry->shape.size() != 2) return std::nullopt;
  return Dims{weight->entry->shape[0], weight->entry->shape[1]};
}

// ComfyUI's convrot_groupsize: int(top-level, else params, else the row's
// default), read only when convrot is truthy (CU ops.py:1191-1198). nullopt
// when convrot is off; the int() exception otherwise.
std::optional<Result<py::Value, py::PyException>> comfy_groupsize(const Layer& l) {
  const py::Value* convrot = comfy_get(*l.marker, "convrot");
  if (!convrot || !truthy(*convrot)) return std::nullopt;
  const py::Value* v = comfy_get(*l.marker, "convrot_groupsize");
  // One construction path keeps GCC -O1 quiet.
  if (!v) return py::py_int(py::Value(marker_defaults(QuantFormat::Int8).convrot_groupsize));
  return py::py_int(*v);
}

// The sglang versions whose int8 class `k` checks this marker: the class
// reads the checkpoint's int8 markers in that version and does not skip
// this one as an embedding. `none`: no version.
VersionMask checked_by(const Layer& l, const TensorTable& t, Int8Class k, bool& none) {
  const bool embedding = is_int8_embedding(l, t);
  return sglang_versions_where(
      [&](const SglangConfigSet& s) {
        const Int8Class* cls = int8_class_for(s, l.sglang_config);
        return cls && *cls == k && !(int8_class_info(k).skips_embeddings && embedding);
      },
      none);
}

constexpr Int8Class kInt8Classes[] = {Int8Class::KitchenInt8, Int8Class::ConvRotInt8};

// The class's constructor checks: in its own place when it is the resolved
// config, ahead of every W4A4 marker when KitchenW4A4Config builds it.
CheckOrder constructor_order(const Layer& l, Msg m) {
  const std::uint32_t step = message_row(m).step;
  return l.sglang_config == format_spec(QuantFormat::W4a4).sglang_config ? order::sg_companion_config(l.index, step)
                                                                           : order::sg_config(l.index, step);
}


// `value in (16, 64, 256)`: Python compares with ==, so 16.0 is in and True
// (== 1) is not.
bool in_sglang_sizes(const py::Value* v) {
  if (!v) return false;
  for (int c : {16, 64, 256})
    if (py::py_equal(*v, py::Value(c))) return true;
  return false;
}

// C6, C12: ComfyUI warns and skips a layer without a weight; otherwise it
// raises when the scale is absent.
void tensors_rule(const LayerCheck& c) {
  const std::vector<std::string> missing = missing_tensors(c);
  if (missing.empty()) return;
  std::vector<Verdict> comfy;
  // A missing weight is ComfyUI's C6 warning, decided once by CQ-MARKER-ORPHAN (analyze.cpp).
  if (c.weight())
    comfy.push_back(verdict(Msg::Int8CuMissingScale, At{c.l.index}, {{"layer_name", comfy_layer_name(c.l.prefix)}}));
  check_required_tensors(c, missing, std::move(comfy));
}

void dtypes_rule(const LayerCheck& c) {
  if (!c.weight() || !c.tensor("weight_scale")) return;
  if (has_dtype(c.weight(), Dtype::I8) && has_dtype(c.tensor("weight_scale"), Dtype::F32)) return;
  const std::string wd = dtype_str(*c.weight()), sd = dtype_str(*c.tensor("weight_scale"));
  std::vector<Verdict> v;
  v.push_back(verdict(Msg::Int8SgDtypes, At{c.l.index}, {{"prefix!r", repr(c.l.prefix)}, {"weight_dtype", wd}, {"scale_dtype", sd}}));
  c.add(RuleId::QuantInt8Dtypes, "int8_tensorwise weight must be I8 and weight_scale F32, found " + wd + " and " + sd, std::move(v));
}

// A () scale is tensor-wise: only the weight's rank matters (S9.6.1).
void weight_rank_rule(const LayerCheck& c) {
  if (!c.weight() || !c.tensor("weight_scale") || !c.tensor("weight_scale")->entry->shape.empty()) return;
  if (c.weight()->entry->shape.size() == 2) return;
  const std::string ws = shape_str(*c.weight());
  std::vector<Verdict> v;
  v.push_back(verdict(Msg::Int8SgTensorwise2d, At{c.l.index}, {{"prefix!r", repr(c.l.prefix)}, {"weight_shape", ws}}));
  c.add(RuleId::QuantInt8WeightRank, "tensor-wise int8_tensorwise weight (scalar weight_scale) must be 2-D, found shape " + ws, std::move(v));
}

// A non-() scale is per-row: it must be exactly (N, 1) (S9.6.2). kitchen is
// laxer (K10: numel 1 or N); an (N,) scale passes its GEMM but its dequant
// path broadcasts it along K (L14), which only LoRA/fallback paths reach.
void shapes_rule(const LayerCheck& c) {
  if (!c.weight() || !c.tensor("weight_scale") || c.tensor("weight_scale")->entry->shape.empty()) return;
  const auto d = dims(c.weight());
  const auto& ss = c.tensor("weight_scale")->entry->shape;
  if (d && ss.size() == 2 && ss[0] == d->n && ss[1] == 1) return;
  const std::string ws = shape_str(*c.weight()), sc = shape_str(*c.tensor("weight_scale"));
  std::vector<Verdict> v;
  v.push_back(verdict(Msg::Int8SgShapes, At{c.l.index}, {{"prefix!r", repr(c.l.prefix)}, {"weight_shape", ws}, {"scale_shape", sc}}));
  const auto count = shape_product(ss).count;
  if (d && count && *count != 1 && *count != d->n)
    v.push_back(verdict(Msg::Int8KtScale, At{c.l.index}, {{"tuple(weight_scale.shape)", shape_repr(std::vector<std::uint64_t>{*count})},
                         {"tuple(weight.shape)", ws}}));
  std::string msg = d ? "row-wise int8_tensorwise weight_scale must have shape (" + std::to_string(d->n) + ", 1)"
                      : "int8_tensorwise weight must be 2-D";
  msg += ", found weight " + ws + " and weight_scale " + sc;
  c.add(RuleId::QuantInt8Shapes, std::move(msg), std::move(v));
}

// S17: the int8 class sglang reads int8 markers with (KitchenInt8Config, or
// ConvRotInt8Config in the versions of sglang_versions.hpp, which skips
// embeddings) demands `convrot is True` (top level only; a params-only true
// fails, G4).
void convrot_rule(const LayerCheck& c) {
  const py::Value* convrot = get(*c.l.marker, "convrot");
  if (is_true(convrot)) return;
  std::vector<Verdict> v;
  for (Int8Class k : kInt8Classes) {
    bool none = false;
    const VersionMask versions = checked_by(c.l, c.t, k, none);
    if (none) continue;
    const Msg m = k == Int8Class::KitchenInt8 ? Msg::Int8SgConvrot : Msg::Int8SgConvRotConvrot;
    v.push_back(for_versions(verdict(m, constructor_order(c.l, m), {{"prefix!r", repr(c.l.prefix)}}), versions));
  }
  if (v.empty()) return;
  c.add(RuleId::QuantInt8Convrot, "sglang's int8 layers need \"convrot\": true on every layer, found " +
              (convrot ? py::repr(*convrot) : std::string("no convrot key")),
          std::move(v));
}

// K % C and the Hadamard of size C, as comfy-kitchen runs them for the C
// that ComfyUI passes on. nullopt when kitchen is fine or its behaviour is
// not determined (C beyond int64, which torch.ops cannot even take).
std::optional<Verdict> kitchen_groupsize(const Layer& l, const py::Value& c, std::uint64_t k) {
  const auto g = as_int64(c);
  if (!g) return std::nullopt;
  if (*g == 0) return verdict(Msg::Int8KtModuloZero, At{l.index}, {});
  const std::uint64_t mag = *g < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(*g) : static_cast<std::uint64_t>(*g);
  if (k % mag != 0)
    return verdict(Msg::Int8KtConvrotDivide, At{l.index}, {{"g", std::to_string(*g)}, {"k", std::to_string(k)}});
  bool pow4 = *g >= 4 && (mag & (mag - 1)) == 0 && (std::countr_zero(mag) % 2 == 0);
  if (!pow4)
    return verdict(Msg::Int8KtHadamard, At{l.index}, {{"size", std::to_string(*g)}});
  return std::nullopt;
}

// sglang's K % C for a C that passed `in (16, 64, 256)` (an int or an
// integral float).
bool sglang_divides(const py::Value& c, std::uint64_t k) {
  for (std::uint64_t s : {16u, 64u, 256u})
    if (py::py_equal(c, py::Value(s))) return k % s == 0;
  return true;
}

// A ConvRot layer (convrot on for ComfyUI, or any layer sglang's
// KitchenInt8Config loads, which rotates every layer) declares, at top
// level, a convrot_groupsize in (16, 64, 256) that divides K.
void groupsize_rule(const LayerCheck& c) {
  const auto comfy = comfy_groupsize(c.l);
  bool none[2] = {true, true};
  VersionMask versions[2] = {};
  for (std::size_t i = 0; i < 2; ++i) versions[i] = checked_by(c.l, c.t, kInt8Classes[i], none[i]);
  if (!comfy && none[0] && none[1]) return;
  const py::Value* top = get(*c.l.marker, "convrot_groupsize");
  const auto d = dims(c.weight());
  const bool listed = in_sglang_sizes(top);
  const bool divides = !listed || !d || sglang_divides(*top, d->k);
  std::vector<Verdict> v;
  for (std::size_t i = 0; i < 2; ++i) {
    if (none[i]) continue;
    const bool kitchen = kInt8Classes[i] == Int8Class::KitchenInt8;
    const std::string shown = top ? py::repr(*top) : std::string("None");
    if (!listed) {
      const Msg m = kitchen ? Msg::Int8SgGroupsize : Msg::Int8SgConvRotGroupsize;
      v.push_back(for_versions(
          verdict(m, constructor_order(c.l, m), {{"prefix!r", repr(c.l.prefix)}, {"value!r", shown}}), versions[i]));
    } else if (!divides) {
      v.push_back(for_versions(verdict(kitchen ? Msg::Int8SgInputSize : Msg::Int8SgConvRotInputSize, At{c.l.index},
                                       {{"prefix!r", repr(c.l.prefix)},
                                        {"input_size", std::to_string(d->k)},
                                        {"convrot_group_size", py::str(*top)}}),
                               versions[i]));
    }
  }
  if (comfy && comfy->ok() && d)
    if (auto kv = kitchen_groupsize(c.l, comfy->value(), d->k)) v.push_back(std::move(*kv));
  if (listed && divides && v.empty()) return;
  std::string msg = "ConvRot int8_tensorwise layer must declare convrot_groupsize 16, 64 or 256";
  if (d) msg += " dividing K=" + std::to_string(d->k);
  msg += ", found " + (top ? py::repr(*top) : std::string("no top-level convrot_groupsize"));
  c.add(RuleId::QuantInt8ConvrotGroupsize, std::move(msg), std::move(v));
}

// ComfyUI's int() of convrot_groupsize (only when convrot is truthy).
// sglang has no int() for int8 keys: KitchenInt8Config compares with ==.
void key_int_rule(const LayerCheck& c) {
  const auto comfy = comfy_groupsize(c.l);
  if (!comfy) return;
  check_marker_ints(c, {{"convrot_groupsize", *comfy, Consumer::Comfyui, order::cu_layer(c.l.index, kCuStepInt)}});
}

// C13: ComfyUI value-casts the weight to int8; U8 keeps its bits through the
// integer cast, any other dtype is converted numerically.
void weight_cast_rule(const LayerCheck& c) {
  if (weight_kept(c)) return;
  check_weight_cast(c, {Verdict{Consumer::Comfyui, Effect::MisLoads, "", "", order::cu_layer(c.l.index, kCuStepCast)}});
}

}  // namespace

void check_int8_layer(const LayerCheck& c) {
  tensors_rule(c);
  dtypes_rule(c);
  weight_rank_rule(c);
  shapes_rule(c);
  convrot_rule(c);
  groupsize_rule(c);
  key_int_rule(c);
  weight_cast_rule(c);
}

}  // namespace safespec::quant
