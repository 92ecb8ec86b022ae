// The per-format readers of layer_io.hpp: each tensor found by its format
// row's suffix, its dtype one the row's `accepts` column lists, and its
// shape checked before a value is decoded.
#include <algorithm>
#include <cstring>

#include "spec/number_formats.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quant/render.hpp"
#include "spec/quant/w4a8_geometry.hpp"
#include "spec/quote.hpp"
#include "src/parse/layer_io.hpp"

namespace safespec {

namespace {

using numerics::FloatType;
using quant::QuantFormat;

std::string shape_text(const Shape& s) { return quant::shape_repr(s); }

std::uint64_t element_count(const TensorEntry& e) {
  const auto p = shape_product(e.shape);
  return p.count ? *p.count : 0;
}

// The layer's tensor `suffix`, present (else the format's tensors_rule, when
// its row requires it) and in one of the dtypes its row says the reader
// accepts; `only`, when given, narrows those.
LayerResult<const quant::TensorRef*> need(const CheckpointReader& c, const quant::Layer& l, std::string_view suffix,
                                          std::span<const Dtype> only = {}) {
  const std::string name = quant::tensor_name(l, suffix);
  const quant::FormatSpec* format = quant::find_format(l.format);
  const quant::FormatTensor* row = format ? quant::find_tensor(*format, suffix) : nullptr;
  const quant::TensorRef* t = c.find(name);
  if (!t) return tensor_missing(name, row && row->required ? std::optional(format->tensors_rule) : std::nullopt);
  const std::span<const Dtype> dtypes = !only.empty() ? only : row ? row->accepts : std::span<const Dtype>{};
  if (std::find(dtypes.begin(), dtypes.end(), t->entry->dtype) == dtypes.end()) {
    std::string names;
    for (Dtype d : dtypes) names += (names.empty() ? "" : ", ") + std::string(dtype_name(d));
    return layer_invalid(Place::tensor(name), "expected dtype " + names + ", found " + std::string(dtype_name(t->entry->dtype)));
  }
  return t;
}

LayerResult<Unit> shape_is(const quant::TensorRef& t, const Shape& expected) {
  if (t.entry->shape == expected) return Unit{};
  return layer_invalid(Place::tensor(t.entry->name),
                       "expected shape " + shape_text(expected) + ", found " + shape_text(t.entry->shape));
}

LayerResult<Unit> two_d(const quant::TensorRef& t) {
  if (t.entry->shape.size() == 2) return Unit{};
  return layer_invalid(Place::tensor(t.entry->name), "expected a 2-D tensor, found shape " + shape_text(t.entry->shape));
}

LayerResult<Unit> one_element(const quant::TensorRef& t) {
  if (element_count(*t.entry) == 1) return Unit{};
  return layer_invalid(Place::tensor(t.entry->name), "expected one element, found shape " + shape_text(t.entry->shape));
}

// Values of a float tensor (F32, BF16, F16) as binary32.
LayerResult<std::vector<float>> floats(const CheckpointReader& c, const quant::TensorRef& t) {
  const auto ft = float_type_of(t.entry->dtype);
  if (!ft) return layer_invalid(Place::tensor(t.entry->name), "expected a float dtype F32, BF16 or F16");
  auto b = c.bytes(t);
  if (!b) return b.error();
  return decode_floats(*ft, b.value());
}

LayerResult<std::vector<std::uint8_t>> raw(const CheckpointReader& c, const quant::TensorRef& t) { return c.bytes(t); }

std::vector<float> e4m3_values(std::span<const std::uint8_t> b) {
  std::vector<float> out(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) out[i] = num::decode_e4m3fn(b[i]);
  return out;
}

deq::Mat<std::uint8_t> mat(const TensorEntry& e, std::vector<std::uint8_t> bytes) {
  return deq::Mat<std::uint8_t>(e.shape[0], e.shape[1], std::move(bytes));
}

// P.<suffix>, present, of a dtype its row accepts, and 2-D.
LayerResult<const quant::TensorRef*> need_2d(const CheckpointReader& c, const quant::Layer& l, std::string_view suffix) {
  auto t = need(c, l, suffix);
  if (!t) return t;
  if (auto s = two_d(*t.value()); !s) return s.error();
  return t;
}

// A 2-D tensor's bytes as a matrix of its shape.
LayerResult<deq::Mat<std::uint8_t>> matrix(const CheckpointReader& c, const quant::TensorRef& t) {
  auto b = c.bytes(t);
  if (!b) return b.error();
  return mat(*t.entry, std::move(b).value());
}

}  // namespace

LayerResult<std::optional<std::vector<float>>> read_bias(const CheckpointReader& c, const quant::Layer& l,
                                                         std::uint64_t n) {
  const quant::TensorRef* t = c.find(quant::tensor_name(l, "bias"));
  if (!t) return std::optional<std::vector<float>>{};
  if (auto s = shape_is(*t, {n}); !s) return s.error();
  auto v = floats(c, *t);
  if (!v) return v.error();
  return std::optional<std::vector<float>>(std::move(v).value());
}

LayerResult<numerics::W4a8Layer> read_w4a8(const CheckpointReader& c, const quant::Layer& l) {
  const quant::MarkerDefaults& d = quant::marker_defaults(QuantFormat::W4a8);
  auto g = marker_uint(l, "group_size", d.group_size);
  if (!g) return g.error();
  auto conv = marker_uint(l, "convrot_groupsize", d.convrot_groupsize);
  if (!conv) return conv.error();
  if (g.value() == 0)
    return layer_invalid(Place::layer(l.prefix), "expected group_size >= 4, found 0", RuleId::QuantW4a8GroupSize);

  auto w = need_2d(c, l, "weight");
  if (!w) return w.error();
  const std::uint64_t n = w.value()->entry->shape[0];
  auto s_rel = need(c, l, "weight_s_rel");
  if (!s_rel) return s_rel.error();
  // A row 3K/4 wide for K = s_rel columns * G is 6-bit storage, as kitchen
  // 2a6f4ef reads it (the rules read it the same way); else K = 2 * columns.
  const auto k6 = quant::six_bit_k(w.value()->entry->shape, s_rel.value()->entry->shape, g.value());
  const auto k = k6 ? k6 : quant::times2(w.value()->entry->shape[1]);
  if (!k) return layer_invalid(Place::tensor(w.value()->entry->name), "K = 2 * packed columns overflows 64 bits");
  const std::uint64_t groups = *k / g.value();
  if (auto s = shape_is(*s_rel.value(), {n, groups}); !s) return s.error();
  auto s_ch = need(c, l, "weight_s_channel");
  if (!s_ch) return s_ch.error();
  if (auto s = shape_is(*s_ch.value(), {n}); !s) return s.error();

  numerics::W4a8Layer out;
  out.n = static_cast<std::size_t>(n);
  out.k = static_cast<std::size_t>(*k);
  out.bits = k6 ? 6 : 4;
  out.group_size = static_cast<std::size_t>(g.value());
  out.convrot_groupsize = static_cast<std::size_t>(conv.value());
  auto wb = raw(c, *w.value());
  if (!wb) return wb.error();
  out.weight = std::move(wb).value();
  if (s_rel.value()->entry->dtype == Dtype::F32) {
    auto v = floats(c, *s_rel.value());
    if (!v) return v.error();
    out.s_rel = std::move(v).value();
  } else {  // F8_E4M3, or U8 viewed as E4M3 (CU ops.py:1220-1221)
    auto b = raw(c, *s_rel.value());
    if (!b) return b.error();
    out.s_rel = e4m3_values(b.value());
  }
  auto sc = floats(c, *s_ch.value());
  if (!sc) return sc.error();
  out.s_channel = std::move(sc).value();

  if (c.find(quant::tensor_name(l, "weight_codebook"))) {
    auto t = need(c, l, "weight_codebook");
    if (!t) return t.error();
    if (auto s = shape_is(*t.value(), {16}); !s) return s.error();
    auto v = floats(c, *t.value());
    if (!v) return v.error();
    std::array<float, 16> cb{};
    std::copy_n(v.value().begin(), 16, cb.begin());
    out.codebook = cb;
  }
  if (c.find(quant::tensor_name(l, "weight_correction"))) {
    auto t = need(c, l, "weight_correction");
    if (!t) return t.error();
    if (auto s = shape_is(*t.value(), {groups, n}); !s) return s.error();
    auto v = floats(c, *t.value());
    if (!v) return v.error();
    out.correction = std::move(v).value();
  }
  auto bias = read_bias(c, l, n);
  if (!bias) return bias.error();
  out.bias = std::move(bias).value();
  return out;
}

LayerResult<deq::Fp8Weight> read_fp8(const CheckpointReader& c, const quant::Layer& l) {
  const bool e5m2 = l.is(QuantFormat::Fp8E5m2);
  auto w = need_2d(c, l, "weight");
  if (!w) return w.error();
  auto sc = need(c, l, "weight_scale");
  if (!sc) return sc.error();
  if (auto s = one_element(*sc.value()); !s) return s.error();
  auto b = matrix(c, *w.value());
  if (!b) return b.error();
  auto s = floats(c, *sc.value());
  if (!s) return s.error();
  return deq::Fp8Weight{e5m2 ? deq::Fp8::E5M2 : deq::Fp8::E4M3, std::move(b).value(),
                        s.value()[0]};
}

LayerResult<deq::Int8Weight> read_int8(const CheckpointReader& c, const quant::Layer& l) {
  auto w = need_2d(c, l, "weight");
  if (!w) return w.error();
  const std::uint64_t n = w.value()->entry->shape[0];
  auto sc = need(c, l, "weight_scale");
  if (!sc) return sc.error();
  const auto& shape = sc.value()->entry->shape;
  const bool rowwise = shape == std::vector<std::uint64_t>{n, 1};
  if (!rowwise && element_count(*sc.value()->entry) != 1)  // L14: [N] would broadcast along K
    return layer_invalid(Place::tensor(sc.value()->entry->name),
                         "expected shape () or " + shape_text({n, 1}) + ", found " + shape_text(shape));
  std::uint64_t conv = 0;
  const py::Value* on = quant::comfy_get(*l.marker, "convrot");
  if (on && quant::truthy(*on)) {
    auto cv = marker_uint(l, "convrot_groupsize", quant::marker_defaults(QuantFormat::Int8).convrot_groupsize);
    if (!cv) return cv.error();
    conv = cv.value();
  }
  auto b = raw(c, *w.value());
  if (!b) return b.error();
  auto s = floats(c, *sc.value());
  if (!s) return s.error();
  std::vector<std::int8_t> q(b.value().size());
  std::memcpy(q.data(), b.value().data(), q.size());
  return deq::Int8Weight{deq::Mat<std::int8_t>(n, w.value()->entry->shape[1], std::move(q)), std::move(s).value(), conv};
}

LayerResult<deq::W4a4Weight> read_w4a4(const CheckpointReader& c, const quant::Layer& l) {
  auto w = need_2d(c, l, "weight");
  if (!w) return w.error();
  auto sc = need(c, l, "weight_scale");
  if (!sc) return sc.error();
  if (auto s = shape_is(*sc.value(), {w.value()->entry->shape[0]}); !s) return s.error();
  auto cv = marker_uint(l, "convrot_groupsize", quant::marker_defaults(QuantFormat::W4a4).convrot_groupsize);
  if (!cv) return cv.error();
  auto b = matrix(c, *w.value());
  if (!b) return b.error();
  auto s = floats(c, *sc.value());
  if (!s) return s.error();
  return deq::W4a4Weight{std::move(b).value(), std::move(s).value(), cv.value()};
}

LayerResult<deq::Nvfp4Weight> read_nvfp4(const CheckpointReader& c, const quant::Layer& l) {
  auto w = need_2d(c, l, "weight");
  if (!w) return w.error();
  auto bs = need_2d(c, l, "weight_scale");
  if (!bs) return bs.error();
  auto gs = need(c, l, "weight_scale_2");
  if (!gs) return gs.error();
  if (auto s = one_element(*gs.value()); !s) return s.error();
  const auto cols = quant::times2(w.value()->entry->shape[1]);
  if (!cols) return layer_invalid(Place::tensor(w.value()->entry->name), "2 * packed columns overflows");
  auto b = matrix(c, *w.value());
  if (!b) return b.error();
  auto sb = matrix(c, *bs.value());
  if (!sb) return sb.error();
  auto g = floats(c, *gs.value());
  if (!g) return g.error();
  // The logical [N, K] is not stored (L12: zero padding to N16, K16); the
  // padded weight is returned whole.
  return deq::Nvfp4Weight{std::move(b).value(), std::move(sb).value(),
                          g.value()[0], w.value()->entry->shape[0], *cols};
}

LayerResult<deq::Mxfp8Weight> read_mxfp8(const CheckpointReader& c, const quant::Layer& l) {
  auto w = need_2d(c, l, "weight");
  if (!w) return w.error();
  auto bs = need_2d(c, l, "weight_scale");
  if (!bs) return bs.error();
  auto b = matrix(c, *w.value());
  if (!b) return b.error();
  auto sb = matrix(c, *bs.value());
  if (!sb) return sb.error();
  const auto& e = *w.value()->entry;
  return deq::Mxfp8Weight{std::move(b).value(), std::move(sb).value(), e.shape[0],
                          e.shape[1], num::E8M0::Kitchen};
}

LayerResult<deq::AwqWeight> read_awq(const CheckpointReader& c, const quant::Layer& l) {
  auto g = marker_uint(l, "group_size", quant::marker_defaults(QuantFormat::Awq).group_size);
  if (!g) return g.error();
  auto w = need_2d(c, l, "weight");
  if (!w) return w.error();
  auto sc = need(c, l, "weight_scale");
  if (!sc) return sc.error();
  auto zs = need(c, l, "weight_zeros", {&sc.value()->entry->dtype, 1});  // in the scale's dtype
  if (!zs) return zs.error();
  if (auto s = two_d(*sc.value()); !s) return s.error();
  if (auto s = shape_is(*zs.value(), sc.value()->entry->shape); !s) return s.error();
  auto b = matrix(c, *w.value());
  if (!b) return b.error();
  auto s = floats(c, *sc.value());
  if (!s) return s.error();
  auto z = floats(c, *zs.value());
  if (!z) return z.error();
  const auto& se = *sc.value()->entry;
  return deq::AwqWeight{std::move(b).value(),
                        deq::Mat<float>(se.shape[0], se.shape[1], std::move(s).value()),
                        deq::Mat<float>(se.shape[0], se.shape[1], std::move(z).value()), g.value(), se.dtype};
}

LayerResult<deq::SvdquantWeight> read_svdquant(const CheckpointReader& c, const quant::Layer& l) {
  const py::Value* layout = quant::get(*l.marker, "layout");
  const auto* layout_name = layout ? std::get_if<std::string>(&layout->data) : nullptr;
  if (layout && (!layout_name || *layout_name != "kitchen_tile_packed_w4a4"))
    return layer_invalid(Place::layer(l.prefix), "expected no layout or 'kitchen_tile_packed_w4a4', found " + py::repr(*layout));
  const bool tiled = layout != nullptr;
  auto w = need(c, l, "weight");
  if (!w) return w.error();
  std::vector<const quant::TensorRef*> floats_in;
  for (const char* suffix : {"weight_scale", "proj_down", "proj_up"}) {
    auto t = need(c, l, suffix);
    if (!t) return t.error();
    floats_in.push_back(t.value());
  }
  auto wb = raw(c, *w.value());
  if (!wb) return wb.error();
  std::vector<std::vector<float>> v;
  for (const quant::TensorRef* t : floats_in) {
    auto f = floats(c, *t);
    if (!f) return f.error();
    v.push_back(std::move(f).value());
  }
  const auto refused_by = [&](const Error& e) {
    return layer_invalid(Place::tensor(quant::tensor_name(l, e.where.name)), e.message, e.rule);
  };
  const TensorEntry& we = *w.value()->entry;
  const TensorEntry& se = *floats_in[0]->entry;
  const TensorEntry& de = *floats_in[1]->entry;
  const TensorEntry& ue = *floats_in[2]->entry;
  if (de.shape.size() != 2)
    return layer_invalid(Place::tensor(de.name), "expected a 2-D (K, R) tensor, found shape " + shape_text(de.shape));
  deq::SvdquantWeight out;
  out.proj_down = deq::Mat<float>(de.shape[0], de.shape[1], std::move(v[1]));
  if (tiled) {
    auto packed = deq::svdquant_untile_weight(we.shape, wb.value());
    if (!packed) return refused_by(packed.error());
    auto scale = deq::svdquant_untile_scale(se.shape, v[0]);
    if (!scale) return refused_by(scale.error());
    auto up = deq::svdquant_untile_proj_up(ue.shape, v[2]);
    if (!up) return refused_by(up.error());
    out.packed = std::move(packed).value();
    out.scale = std::move(scale).value();
    out.proj_up = std::move(up).value();
    return out;
  }
  if (auto s = two_d(*w.value()); !s) return s.error();
  if (auto s = two_d(*floats_in[0]); !s) return s.error();
  if (auto s = two_d(*floats_in[2]); !s) return s.error();
  out.packed = mat(we, std::move(wb).value());
  out.scale = deq::Mat<float>(se.shape[0], se.shape[1], std::move(v[0]));
  out.proj_up = deq::Mat<float>(ue.shape[0], ue.shape[1], std::move(v[2]));
  return out;
}

LayerResult<std::vector<float>> read_svdquant_smooth(const CheckpointReader& c, const quant::Layer& l, std::uint64_t k) {
  auto t = need(c, l, "smooth_factor");
  if (!t) return t.error();
  if (auto s = shape_is(*t.value(), {k}); !s) return s.error();
  return floats(c, *t.value());
}

}  // namespace safespec
