// The asym_w4a8_int8 (W4A8) layer rules, L16 (comfy-quant-markers.md §2.2):
// sglang's inspector (S9.1, S9.3 A0-A8), its KitchenW4A8Config (S12.3,
// S13.4-S13.5), ComfyUI's loader (C12, C13) and the comfy-kitchen Params and
// operand checks it runs (K1, K4, K6, K7), called in sglang's order.
//
// Positions taken where upstream leaves a choice (§8, K13):
// - The module's logical shape (ComfyUI's orig_shape, sglang's
//   layer.input_size) is the checkpoint's: the weight's dims with the packed
//   last dim doubled, so N = weight_shape[0] and K = 2 * weight_shape[1].
// - Shapes in kitchen messages recorded only as {…} print as tuples (K13:
//   tuple(...) vs torch.Size is unconfirmed).
// - kitchen's K1.2 predicate is evaluated in the order its message and L16
//   list it (K % 16, K % G, K % C, G >= 4, 16 % G or G % 16), so a zero G or
//   C raises Python's ZeroDivisionError there; the real expression order is
//   not recorded.
// - ComfyUI passes group_size and convrot_groupsize on uncoerced; only int and
//   bool values get ComfyUI/kitchen verdicts (a float or a str fails somewhere
//   in torch or kitchen with text the reference does not record).
// - safespec's own reading of group_size/convrot_groupsize is sglang's
//   (top-level int()); a value nested in params only is CQ-MARKER-PARAMS.
// - A weight 3K/4 wide, K = s_rel columns * group_size (w4a8_geometry.hpp),
//   is 6-bit storage (W6A8), which only comfy-kitchen 2a6f4ef reads. sglang,
//   ComfyUI at its pin and the pinned kitchen keep the 2 * cols reading above
//   (so they reject it). kitchen 2a6f4ef's Params are in no stored copy: its
//   verdicts are 7d86acf's with K from the scale grid (the module's K, which
//   its eager geometry agrees with), then its 6-bit operand checks.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "spec/quant/layer.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/py_number.hpp"
#include "spec/quant/render.hpp"
#include "spec/quant/w4a8_geometry.hpp"
#include "spec/quote.hpp"

namespace safespec::quant {
namespace {




// Steps: sglang phase 3 is S9.3's A-number; the config's convrot test is
// S12 item 3; get_quant_method's int() calls and predicate are S13.4, S13.5.
// ComfyUI: C12, the C13 value cast, then Params K1.n at 20 + n. kitchen:
// Params K1.n at n; at run time CUDA's K7 before the eager-only K6.
constexpr std::uint32_t kA1 = 1;
constexpr std::uint32_t kS13Int = 4;

// kitchen's versions (consumers.hpp): the one that reads 6-bit storage, last,
// and the ones before it, which read every weight as 4-bit.
constexpr std::size_t w6_kitchen_version() {
  const auto& rows = consumer_rows::kKitchen;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].id == "2a6f4ef") return i;
  return rows.size();
}
constexpr std::size_t kW6Kitchen = w6_kitchen_version();
static_assert(kW6Kitchen + 1 == consumer_rows::kKitchen.size(), "the 6-bit kitchen version is the last row");
constexpr VersionMask kW6Only = version_bit(kW6Kitchen);
constexpr VersionMask kFourBitOnly = static_cast<VersionMask>(version_bit(kW6Kitchen) - 1);

Verdict for_kitchen(Verdict v, VersionMask versions) {
  v.versions = versions;
  return v;
}

// 16 % g == 0 or g % 16 == 0, for g >= 4.
bool group_shape_ok(const Num& g) { return (!g.huge && 16 % g.mag == 0) || g.mod16 == 0; }

// The 2-D weight's N and logical K.
struct Dims {
  std::uint64_t n;
  u128 k;
};

// The layer's context with the values every W4A8 rule reads.
struct Ctx : LayerCheck {
  const TensorRef* w;
  const TensorRef* s_rel;
  const TensorRef* s_ch;
  const TensorRef* codebook;
  const TensorRef* correction;
  std::optional<Dims> d = std::nullopt;
  Result<py::Value, py::PyException> sg_g;  // S9.3 A1 / S13.4: int(marker.get(key, default))
  Result<py::Value, py::PyException> sg_c;
  std::optional<Num> g = std::nullopt, c = std::nullopt;  // sglang's ints (nullopt when int() raised)
  std::optional<Num> cu_g, cu_c;                         // ComfyUI's values, when int or bool
  bool cu_params = false;                                // ComfyUI gets to C13 (weight and weight_s_rel present)
  bool sg_config = false;                                // sglang resolved to KitchenW4A8Config
  std::optional<u128> k6;  // K of 6-bit storage, as kitchen 2a6f4ef reads the layer (ComfyUI's G)

  explicit Ctx(const LayerCheck& base)
      : LayerCheck(base),
        w(weight()),
        s_rel(tensor("weight_s_rel")),
        s_ch(tensor("weight_s_channel")),
        codebook(tensor("weight_codebook")),
        correction(tensor("weight_correction")),
        sg_g(int_of(*l.marker, "group_size", format.defaults.group_size)),
        sg_c(int_of(*l.marker, "convrot_groupsize", format.defaults.convrot_groupsize)),
        cu_g(comfy_num(*l.marker, "group_size", format.defaults.group_size)),
        cu_c(comfy_num(*l.marker, "convrot_groupsize", format.defaults.convrot_groupsize)),
        cu_params(w && s_rel),
        sg_config(l.sglang_config == format.sglang_config) {
    if (w && w->entry->shape.size() == 2) d = Dims{w->entry->shape[0], static_cast<u128>(w->entry->shape[1]) * 2};
    if (sg_g.ok()) g = num_of(sg_g.value());
    if (sg_c.ok()) c = num_of(sg_c.value());
    if (w && s_rel && cu_g && !cu_g->neg && !cu_g->huge && cu_g->mag <= UINT64_MAX)
      if (auto k = six_bit_k(w->entry->shape, s_rel->entry->shape, static_cast<std::uint64_t>(cu_g->mag))) k6 = *k;
  }
  // A K1 Params check, raised by ComfyUI (C13) and by kitchen. One that reads
  // K holds for the 4-bit kitchens only on a 6-bit layer (2a6f4ef's is w6()).
  void params(std::vector<Verdict>& v, Msg kitchen, Msg comfy, std::initializer_list<Arg> args,
              bool reads_k = false) const {
    v.push_back(for_kitchen(verdict(kitchen, At{l.index}, args), reads_k && k6 ? kFourBitOnly : 0));
    v.push_back(verdict(comfy, At{l.index}, args));
  }
  // kitchen 2a6f4ef's verdict on a 6-bit layer.
  void w6(std::vector<Verdict>& v, Msg kitchen, std::initializer_list<Arg> args) const {
    v.push_back(for_kitchen(verdict(kitchen, At{l.index}, args), kW6Only));
  }
};

std::string tuple2(std::uint64_t a, u128 b) { return "(" + std::to_string(a) + ", " + dec(b) + ")"; }
std::string tuple1(std::uint64_t a) { return "(" + std::to_string(a) + ",)"; }
bool shape_is(const TensorRef& t, std::initializer_list<u128> dims) {
  const auto& s = t.entry->shape;
  return std::equal(s.begin(), s.end(), dims.begin(), dims.end(),
                    [](std::uint64_t a, u128 b) { return static_cast<u128>(a) == b; });
}
// orig_shape as safespec infers it: the weight's dims, the last one doubled.
std::string logical_shape_repr(const TensorRef& w) {
  const auto& s = w.entry->shape;
  std::string r = "(";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) r += ", ";
    r += i + 1 == s.size() ? times2_str(s[i]) : std::to_string(s[i]);
  }
  return r + (s.size() == 1 ? ",)" : ")");
}
std::string found_value(const py::Value& marker, std::string_view key) {
  const py::Value* v = get(marker, key);
  return v ? py::repr(*v) : "no " + std::string(key) + " key";
}

// CQ-W4A8-TENSORS (S9.1/A0, C12, K1.4).
void check_tensors(Ctx& c) {
  const std::vector<std::string> missing = missing_tensors(c);
  if (missing.empty()) return;
  std::vector<Verdict> others;
  if (c.w && !c.s_rel)
    others.push_back(verdict(Msg::W4a8CuMissingSRel, At{c.l.index}, {{"layer_name", comfy_layer_name(c.l.prefix)}}));
  else if (c.cu_params && !c.s_ch && c.d)  // Params get s_channel=None
    c.params(others, Msg::W4a8KtChannel, Msg::W4a8CuParamsChannel, {{"(n,)", tuple1(c.d->n)}, {"…", "None"}});
  check_required_tensors(c, missing, std::move(others));
}

// CQ-MARKER-INT: sglang's int() of group_size (A1) and convrot_groupsize (S13.4).
void check_key_int(Ctx& c) {
  const std::optional<CheckOrder> method = c.sg_config ? std::optional(order::sg_method(c.l.index, kS13Int)) : std::nullopt;
  check_marker_ints(c, {{"group_size", c.sg_g, Consumer::Sglang, order::sg_layer(c.l.index, kA1)},
                        {"convrot_groupsize", c.sg_c, Consumer::Sglang, method}});
}

// CQ-W4A8-GROUP-SIZE (A1). ComfyUI's and kitchen's side of G >= 4 is K1.2
// (CQ-W4A8-K).
void check_group_size(Ctx& c) {
  if (!c.g || at_least(*c.g, 4)) return;
  c.add(RuleId::QuantW4a8GroupSize, Place::layer(c.l.prefix), "group_size must be at least 4; found " + c.g->text,
        {verdict(Msg::W4a8SgGroupSize, At{c.l.index}, {{"prefix!r", c.prefix_repr()}, {"group_size", c.g->text}})});
}

// CQ-W4A8-DTYPES (A2). ComfyUI also takes a U8 weight (G: same bits) and a U8
// or F32 weight_s_rel (G2); other weight dtypes are CQ-WEIGHT-CAST, and what
// kitchen's CUDA backend does with an F16/BF16 s_rel is not recorded.
void check_dtypes(Ctx& c) {
  if (!c.w || !c.s_rel) return;
  if (has_dtype(c.w, Dtype::I8) && has_dtype(c.s_rel, Dtype::F8_E4M3)) return;
  const std::string wd = dtype_str(*c.w), sd = dtype_str(*c.s_rel);
  c.add(RuleId::QuantW4a8Dtypes, Place::layer(c.l.prefix),
        "W4A8 weight must be I8 and weight_s_rel F8_E4M3; found " + wd + " and " + sd,
        {verdict(Msg::W4a8SgDtypes, At{c.l.index}, {{"prefix!r", c.prefix_repr()}, {"weight_dtype", wd}, {"scale_dtype", sd}})});
}

// CQ-WEIGHT-CAST (C13): ComfyUI converts the weight to int8 by value.
void weight_cast_rule(Ctx& c) {
  if (weight_kept(c)) return;
  std::vector<Verdict> comfy;
  if (c.cu_params) comfy.push_back(verdict(Msg::W4a8CuWeightCast, At{c.l.index}, {}));
  check_weight_cast(c, std::move(comfy));
}

// CQ-W4A8-CHANNEL-DTYPE (A3).
void check_channel_dtype(Ctx& c) {
  if (!c.s_ch || has_dtype(c.s_ch, Dtype::F32)) return;
  const std::string cd = dtype_str(*c.s_ch);
  c.add(RuleId::QuantW4a8ChannelDtype, Place::tensor(c.s_ch->entry->name),
        "W4A8 weight_s_channel must be F32; found " + cd,
        {verdict(Msg::W4a8SgChannelDtype, At{c.l.index}, {{"prefix!r", c.prefix_repr()}, {"channel_dtype", cd}})});
}

// CQ-W4A8-WEIGHT-RANK (A4, K1.1 through the inferred orig_shape).
void check_weight_rank(Ctx& c) {
  if (!c.w || c.d) return;
  std::vector<Verdict> v{verdict(Msg::W4a8SgWeightRank, At{c.l.index}, {{"prefix!r", c.prefix_repr()}, {"weight_shape", shape_str(*c.w)}})};
  if (c.cu_params) c.params(v, Msg::W4a8KtOrigShape, Msg::W4a8CuParamsOrigShape, {{"shape", logical_shape_repr(*c.w)}});
  c.add(RuleId::QuantW4a8WeightRank, Place::tensor(c.w->entry->name),
        "a W4A8 packed weight must be 2-D (N, K/2); found shape " + shape_str(*c.w), std::move(v));
}

// CQ-W4A8-SHAPES (A5 with sglang's G; K1.3, K1.4 with ComfyUI's).
void check_shapes(Ctx& c) {
  if (!c.d || !c.s_rel || !c.s_ch) return;
  const Dims d = *c.d;
  const bool ch_ok = shape_is(*c.s_ch, {d.n});
  std::vector<Verdict> v;
  std::string expected;
  if (c.g && at_least(*c.g, 1)) {
    const u128 groups = floor_div(d.k, *c.g);
    expected = "(N, K // group_size) = " + tuple2(d.n, groups) + " with K = " + dec(d.k) + ", group_size = " + c.g->text;
    if (!shape_is(*c.s_rel, {d.n, groups}) || !ch_ok)
      v.push_back(verdict(Msg::W4a8SgShapes, At{c.l.index}, {{"prefix!r", c.prefix_repr()},
                           {"weight_shape", shape_str(*c.w)},
                           {"scale_shape", shape_str(*c.s_rel)},
                           {"channel_shape", shape_str(*c.s_ch)}}));
  }
  if (c.cu_params) {
    const bool cu_g_ok = c.cu_g && at_least(*c.cu_g, 1);
    const u128 groups = cu_g_ok ? floor_div(d.k, *c.cu_g) : 0;
    if (cu_g_ok && !shape_is(*c.s_rel, {d.n, groups})) {
      if (expected.empty())
        expected = "(N, K // group_size) = " + tuple2(d.n, groups) + " with K = " + dec(d.k) +
                   ", group_size = " + c.cu_g->text;
      c.params(v, Msg::W4a8KtScale, Msg::W4a8CuParamsScale, {{"(n,groups)", tuple2(d.n, groups)}, {"…", shape_str(*c.s_rel)}},
               true);
    } else if (!ch_ok) {
      c.params(v, Msg::W4a8KtChannel, Msg::W4a8CuParamsChannel, {{"(n,)", tuple1(d.n)}, {"…", shape_str(*c.s_ch)}},
               true);
    }
  }
  if (c.k6) {  // 2a6f4ef: K1.3, K1.4 with K from the scale grid
    const u128 groups = floor_div(*c.k6, *c.cu_g);
    if (!shape_is(*c.s_rel, {d.n, groups}))
      c.w6(v, Msg::W4a8KtScale, {{"(n,groups)", tuple2(d.n, groups)}, {"…", shape_str(*c.s_rel)}});
    else if (!ch_ok)
      c.w6(v, Msg::W4a8KtChannel, {{"(n,)", tuple1(d.n)}, {"…", shape_str(*c.s_ch)}});
  }
  if (v.empty()) return;
  if (expected.empty()) expected = "(N, K // group_size)";
  std::string six;
  if (c.k6)
    six = " (the weight is 3K/4 wide for K = " + dec(*c.k6) +
          ": 6-bit storage, which only comfy-kitchen 2a6f4ef reads; the others read K = 2 * columns)";
  c.add(RuleId::QuantW4a8Shapes, Place::layer(c.l.prefix),
        "for weight " + shape_str(*c.w) + ", weight_s_rel must be " + expected + " and weight_s_channel (N,) = " +
            tuple1(d.n) + "; found " + shape_str(*c.s_rel) + " and " + shape_str(*c.s_ch) + six,
        std::move(v));
}

// CQ-W4A8-CODEBOOK (A7: F32 (16,); K1.6: shape only).
void check_codebook(Ctx& c) {
  if (!c.codebook) return;
  const bool shape_ok = shape_is(*c.codebook, {16});
  if (shape_ok && has_dtype(c.codebook, Dtype::F32)) return;
  std::vector<Verdict> v{
      verdict(Msg::W4a8SgCodebook, At{c.l.index}, {{"prefix!r", c.prefix_repr()}})};
  if (c.cu_params && !shape_ok) c.params(v, Msg::W4a8KtCodebook, Msg::W4a8CuParamsCodebook, {{"…", shape_str(*c.codebook)}});
  c.add(RuleId::QuantW4a8Codebook, Place::tensor(c.codebook->entry->name),
        "a W4A8 weight_codebook must be F32 (16,); found " + dtype_str(*c.codebook) + " " + shape_str(*c.codebook),
        std::move(v));
}

// CQ-W4A8-CORRECTION (A8). ComfyUI never loads the correction, so kitchen's
// K1.5 never sees it (G3): sglang's verdict only.
void check_correction(Ctx& c) {
  if (!c.correction) return;
  const bool dtype_ok = has_dtype(c.correction, Dtype::F32);
  std::string expected = "F32";
  bool shape_ok = true;
  if (c.d && c.g && at_least(*c.g, 1)) {
    const u128 groups = floor_div(c.d->k, *c.g);
    shape_ok = shape_is(*c.correction, {groups, c.d->n});
    expected += " (K // group_size, N) = (" + dec(groups) + ", " + std::to_string(c.d->n) + ")";
  }
  if (dtype_ok && shape_ok) return;
  c.add(RuleId::QuantW4a8Correction, Place::tensor(c.correction->entry->name),
        "a W4A8 weight_correction must be " + expected + "; found " + dtype_str(*c.correction) + " " +
            shape_str(*c.correction),
        {verdict(Msg::W4a8SgCorrection, At{c.l.index}, {{"prefix!r", c.prefix_repr()}})});
}

// CQ-W4A8-CORRECTION-IGNORED (C12, G3).
void check_correction_ignored(Ctx& c) {
  if (!c.correction) return;
  std::vector<Verdict> v;
  if (c.cu_params) v.push_back(verdict(Msg::W4a8CuCorrectionDropped, At{c.l.index}, {}));
  c.add(RuleId::QuantW4a8CorrectionIgnored, Place::tensor(c.correction->entry->name),
        "ComfyUI does not load weight_correction and computes this layer without it", std::move(v));
}

// CQ-W4A8-CONVROT (S12.3, G1): `marker.get("convrot") is not True`.
void check_convrot(Ctx& c) {
  if (is_true(get(*c.l.marker, "convrot"))) return;
  std::vector<Verdict> v;
  if (c.sg_config)
    v.push_back(verdict(Msg::W4a8SgConvrot, At{c.l.index}, {{"prefix!r", c.prefix_repr()}}));
  c.add(RuleId::QuantW4a8Convrot, Place::layer(c.l.prefix),
        "a W4A8 marker must set \"convrot\": true; found " + found_value(*c.l.marker, "convrot"), std::move(v));
}

enum class KOutcome { Ok, Fails, ZeroDivision };

// _supports_input_size (S13.5): G >= 4, 16 % G or G % 16, K % 16, K % G, K % C.
KOutcome sglang_k(u128 k, const Num& g, const Num& cs) {
  if (!at_least(g, 4) || !group_shape_ok(g) || k % 16 != 0 || !divides(g, k)) return KOutcome::Fails;
  if (is_zero(cs)) return KOutcome::ZeroDivision;
  return divides(cs, k) ? KOutcome::Ok : KOutcome::Fails;
}

// K1.2 in the order its message lists the conditions (see the file comment).
KOutcome kitchen_k(u128 k, const Num& g, const Num& cs) {
  if (k % 16 != 0) return KOutcome::Fails;
  if (is_zero(g)) return KOutcome::ZeroDivision;
  if (!divides(g, k)) return KOutcome::Fails;
  if (is_zero(cs)) return KOutcome::ZeroDivision;
  if (!divides(cs, k) || !at_least(g, 4) || !group_shape_ok(g)) return KOutcome::Fails;
  return KOutcome::Ok;
}

// CQ-W4A8-K (S13.5, K1.2; K4.2 repeats K1.2 at run time).
void check_k(Ctx& c) {
  if (!c.d) return;
  const u128 k = c.d->k;
  std::vector<Verdict> v;
  std::string found;
  if (c.g && c.c) {
    const KOutcome o = sglang_k(k, *c.g, *c.c);
    if (o != KOutcome::Ok) found = "K=" + dec(k) + ", group_size=" + c.g->text + ", convrot_groupsize=" + c.c->text;
    if (c.sg_config) {
      if (o == KOutcome::ZeroDivision)
        v.push_back(verdict(Msg::W4a8SgZeroDivision, At{c.l.index}, {}));
      else if (o == KOutcome::Fails)
        v.push_back(verdict(Msg::W4a8SgInputSize, At{c.l.index}, {{"prefix!r", c.prefix_repr()},
                             {"layer.input_size", dec(k)},
                             {"group_size", c.g->text},
                             {"convrot_group_size", c.c->text}}));
    }
  }
  if (c.cu_params && c.cu_g && c.cu_c) {
    const KOutcome o = kitchen_k(k, *c.cu_g, *c.cu_c);
    if (o != KOutcome::Ok && found.empty())
      found = "K=" + dec(k) + ", group_size=" + c.cu_g->text + ", convrot_groupsize=" + c.cu_c->text +
              " (as ComfyUI reads them)";
    if (o == KOutcome::ZeroDivision)
      c.params(v, Msg::W4a8KtZeroDivision, Msg::W4a8CuParamsZeroDivision, {}, true);
    else if (o == KOutcome::Fails)
      c.params(v, Msg::W4a8KtKRule, Msg::W4a8CuParamsKRule, {{"k", dec(k)}, {"g", c.cu_g->text}, {"c", c.cu_c->text}},
               true);
  }
  if (c.k6 && c.cu_c) {  // 2a6f4ef: K1.2 with K from the scale grid
    const KOutcome o = kitchen_k(*c.k6, *c.cu_g, *c.cu_c);
    if (o != KOutcome::Ok && found.empty())
      found = "K=" + dec(*c.k6) + ", group_size=" + c.cu_g->text + ", convrot_groupsize=" + c.cu_c->text +
              " (as comfy-kitchen 2a6f4ef reads a 6-bit weight)";
    if (o == KOutcome::ZeroDivision)
      c.w6(v, Msg::W4a8KtZeroDivision, {});
    else if (o == KOutcome::Fails)
      c.w6(v, Msg::W4a8KtKRule, {{"k", dec(*c.k6)}, {"g", c.cu_g->text}, {"c", c.cu_c->text}});
  }
  if (found.empty()) return;
  c.add(RuleId::QuantW4a8K, Place::layer(c.l.prefix),
        "K must be divisible by 16, group_size and convrot_groupsize, with group_size >= 4 dividing 16 or a "
        "multiple of 16; found " + found,
        std::move(v));
}

// CQ-W4A8-HADAMARD (L4, K6). Whether kitchen takes 1 (= 4^0) is not recorded,
// nor what it does with a size past 128 bits: no verdict for those.
void check_hadamard(Ctx& c) {
  std::vector<Verdict> v;
  if (c.cu_params && c.cu_c && !power_of_4(*c.cu_c) && !equals(*c.cu_c, 1) && !c.cu_c->huge)
    v.push_back(verdict(Msg::W4a8KtHadamard, At{c.l.index}, {{"size", c.cu_c->text}}));
  const bool spec_bad = c.c && !power_of_4(*c.c);
  if (!spec_bad && v.empty()) return;
  const std::string& shown = spec_bad ? c.c->text : c.cu_c->text;
  c.add(RuleId::QuantW4a8Hadamard, Place::layer(c.l.prefix),
        "convrot_groupsize is the Hadamard size and must be a power of 4, at least 4; found " + shown, std::move(v));
}

// CQ-W4A8-CUDA-GROUPSIZE (K7, G5).
void check_cuda_groupsize(Ctx& c) {
  const bool k_bad = c.d && c.d->k % 256 != 0;
  const bool k6_bad = c.k6 && *c.k6 % 256 != 0;
  std::vector<Verdict> v;
  if (c.cu_params && c.cu_c) {
    if (!equals(*c.cu_c, 256)) {
      v.push_back(verdict(Msg::W4a8KtCudaGroup, At{c.l.index}, {}));
    } else {  // the 4-bit kitchens read K = 2 * columns, 2a6f4ef a 6-bit weight's K
      if (k_bad) v.push_back(for_kitchen(verdict(Msg::W4a8KtCudaK, At{c.l.index}, {}), c.k6 ? kFourBitOnly : 0));
      if (k6_bad) c.w6(v, Msg::W4a8KtCudaK, {});
    }
  }
  const bool spec_bad = (c.c && !equals(*c.c, 256)) || k_bad || k6_bad;
  if (!spec_bad && v.empty()) return;
  std::string found;
  if (c.c || c.cu_c) found = "convrot_groupsize=" + (c.c ? c.c->text : c.cu_c->text);
  if (c.d) found += (found.empty() ? "K=" : ", K=") + dec(c.d->k);
  if (c.k6) found += " (6-bit storage: K=" + dec(*c.k6) + ")";
  c.add(RuleId::QuantW4a8CudaGroupsize, Place::layer(c.l.prefix),
        "comfy-kitchen's CUDA kernel needs convrot_groupsize 256 and K divisible by 256; found " + found,
        std::move(v));
}

// CQ-W6A8-GEOMETRY (K14): _check_six_bit_layout, after the group_size check
// of validate_w4a8_operands.
void check_w6a8_geometry(Ctx& c) {
  if (!c.k6) return;
  const Num& g = *c.cu_g;
  const u128 k = *c.k6;
  const bool g_bad = !at_least(g, 4) || !group_shape_ok(g);
  if (!g_bad && k % 32 == 0 && at_least(g, 16) && g.mod16 == 0) return;
  std::vector<Verdict> v;
  if (g_bad)
    c.w6(v, Msg::W6a8KtGroupSize, {{"group_size", g.text}});
  else
    c.w6(v, Msg::W6a8KtLayout, {{"k", dec(k)}, {"group_size", g.text}});
  c.add(RuleId::QuantW6a8Geometry, Place::layer(c.l.prefix),
        "a 6-bit W4A8 weight (" + shape_str(*c.w) + ", 3K/4 wide for K = " + dec(k) +
            ") needs K divisible by 32 and group_size a multiple of 16; found K=" + dec(k) + ", group_size=" + g.text,
        std::move(v));
}

// CQ-W6A8-CODEBOOK (K14). ComfyUI drops the correction (G3), so only a
// codebook reaches kitchen.
void check_w6a8_codebook(Ctx& c) {
  if (!c.k6 || (!c.codebook && !c.correction)) return;
  std::vector<Verdict> v;
  if (c.codebook) c.w6(v, Msg::W6a8KtCodebook, {});
  const TensorRef& t = c.codebook ? *c.codebook : *c.correction;
  std::string found = c.codebook ? "weight_codebook" : "";
  if (c.correction) found += found.empty() ? "weight_correction" : " and weight_correction";
  c.add(RuleId::QuantW6a8Codebook, Place::tensor(t.entry->name),
        "a 6-bit W4A8 layer decodes uniform codes (code - 32) and has no codebook or correction; found " + found,
        std::move(v));
}

}  // namespace

void check_w4a8_layer(const LayerCheck& base) {
  Ctx c(base);
  check_tensors(c);
  check_key_int(c);
  check_group_size(c);
  check_dtypes(c);
  weight_cast_rule(c);
  check_channel_dtype(c);
  check_weight_rank(c);
  check_shapes(c);
  check_codebook(c);
  check_correction(c);
  check_correction_ignored(c);
  check_convrot(c);
  check_k(c);
  check_hadamard(c);
  check_cuda_groupsize(c);
  check_w6a8_geometry(c);
  check_w6a8_codebook(c);
}

}  // namespace safespec::quant
