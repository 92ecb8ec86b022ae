#include "src/parse/layer_io.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "spec/checked_math.hpp"
#include "spec/number_formats.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quant/render.hpp"
#include "spec/quant/w4a8_geometry.hpp"
#include "spec/quote.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/parse/load.hpp"
#include "src/parse/marker_reader.hpp"

namespace safespec {

namespace {

using numerics::FloatType;

// The layer's own tensors or marker break an invariant: refused (exit 1).
LayerError fail(std::string message) { return LayerError{std::move(message), true}; }
// The files cannot be read, or the request names what is not there (exit 2).
LayerError io_fail(std::string message) { return LayerError{std::move(message), false}; }

std::string shape_text(const Shape& s) { return quant::shape_repr(s); }

std::uint64_t element_count(const TensorEntry& e) {
  const auto p = shape_product(e.shape);
  return p.count ? *p.count : 0;
}

// The tensor `name`, present and of one of `dtypes`.
LayerResult<const quant::TensorRef*> need(const CheckpointReader& c, const std::string& name,
                                          std::initializer_list<Dtype> dtypes) {
  const quant::TensorRef* t = c.find(name);
  if (!t) return fail("expected a tensor " + quote_name(name) + ", found none");
  if (std::find(dtypes.begin(), dtypes.end(), t->entry->dtype) == dtypes.end()) {
    std::string names;
    for (Dtype d : dtypes) names += (names.empty() ? "" : ", ") + std::string(dtype_name(d));
    return fail(Place::tensor(name).text() + ": expected dtype " + names + ", found " + std::string(dtype_name(t->entry->dtype)));
  }
  return t;
}

LayerResult<Unit> shape_is(const quant::TensorRef& t, const Shape& expected) {
  if (t.entry->shape == expected) return Unit{};
  return fail(Place::tensor(t.entry->name).text() + ": expected shape " + shape_text(expected) + ", found " +
              shape_text(t.entry->shape));
}

LayerResult<Unit> two_d(const quant::TensorRef& t) {
  if (t.entry->shape.size() == 2) return Unit{};
  return fail(Place::tensor(t.entry->name).text() + ": expected a 2-D tensor, found shape " + shape_text(t.entry->shape));
}

LayerResult<Unit> one_element(const quant::TensorRef& t) {
  if (element_count(*t.entry) == 1) return Unit{};
  return fail(Place::tensor(t.entry->name).text() + ": expected one element, found shape " + shape_text(t.entry->shape));
}

// Values of a float tensor (F32, BF16, F16) as binary32.
LayerResult<std::vector<float>> floats(const CheckpointReader& c, const quant::TensorRef& t) {
  const auto ft = float_type_of(t.entry->dtype);
  if (!ft) return fail(Place::tensor(t.entry->name).text() + ": expected a float dtype F32, BF16 or F16");
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

}  // namespace

LayerResult<std::unique_ptr<CheckpointReader>> CheckpointReader::open(const std::string& path) {
  std::unique_ptr<CheckpointReader> c(new CheckpointReader());
  c->path_ = path;
  HeaderParser parser;
  auto loaded = load_model(path, parser);
  if (!loaded) return io_fail(path + ": " + loaded.error().message);
  if (!loaded.value()) {
    const Error& e = loaded.value().error();
    return LayerError{path + ": " + std::string(rule_name(e.rule)) + " at " + e.where.text() + ": " + e.message, true};
  }
  c->model_ = std::make_unique<Model>(std::move(loaded.value()).value());
  auto file = ByteFile::open(path);
  if (!file) return io_fail(path + ": " + file.error().message);
  auto markers = read_markers(file.value(), *c->model_);
  if (!markers) return io_fail(path + ": " + markers.error().message);
  c->analyse(std::move(markers).value());
  c->data_ = std::make_unique<FileTensorData>(c->files_);
  return c;
}

LayerResult<std::unique_ptr<CheckpointReader>> CheckpointReader::from_memory(std::string name, std::vector<std::uint8_t> file) {
  std::unique_ptr<CheckpointReader> c(new CheckpointReader());
  c->path_ = std::move(name);
  c->memory_ = std::move(file);
  HeaderParser parser;
  auto model = read_model_fast(c->memory_, parser);
  if (!model) {
    const Error& e = model.error();
    return LayerError{c->path_ + ": " + std::string(rule_name(e.rule)) + " at " + e.where.text() + ": " + e.message, true};
  }
  c->model_ = std::make_unique<Model>(std::move(model).value());
  c->analyse(read_markers(c->memory_, *c->model_));
  return c;
}

void CheckpointReader::analyse(std::vector<quant::MarkerBytes> markers) {
  files_.push_back(quant::CheckpointFile{path_, model_.get(), std::move(markers)});
  table_ = std::make_unique<quant::TensorTable>(files_);
  quant::Sink sink;
  collected_ = std::make_unique<quant::Collected>(quant::collect_markers(files_, *table_, sink));
  analysis_ = quant::analyze(files_, nullptr);
}

LayerResult<const quant::Layer*> CheckpointReader::layer(std::string_view prefix) const {
  std::string known;
  for (const quant::Layer& l : collected_->layers) {
    if (l.prefix == prefix) return &l;
    if (known.size() < 400) known += (known.empty() ? "" : ", ") + quote_name(l.prefix);
  }
  return io_fail(path_ + ": no marked layer " + quote_name(prefix) + " (marked layers: " +
              (known.empty() ? "none" : known) + ")");
}

LayerResult<const quant::TensorRef*> CheckpointReader::only_tensor() const {
  const auto& names = table_->names();
  if (names.size() != 1)
    return io_fail("expected exactly one tensor (or --input-tensor NAME), found " + std::to_string(names.size()));
  return table_->find(names[0]);
}

bool CheckpointReader::six_bit(const quant::Layer& l) const {
  if (!l.is(quant::QuantFormat::W4a8)) return false;
  const quant::TensorRef* w = find(quant::tensor_name(l, "weight"));
  const quant::TensorRef* s_rel = find(quant::tensor_name(l, "weight_s_rel"));
  auto g = marker_uint(l, "group_size", 16);
  return w && s_rel && g && quant::six_bit_k(w->entry->shape, s_rel->entry->shape, g.value());
}

LayerResult<Unit> CheckpointReader::refuse_invalid(const quant::Layer& l, bool cuda_kernel) const {
  // Only comfy-kitchen 2a6f4ef reads 6-bit storage, and the numerics follow
  // it: only its verdicts refuse such a layer.
  const std::optional<std::size_t> w6 = six_bit(l) ? version_by_id(Consumer::Kitchen, "2a6f4ef") : std::nullopt;
  const std::string companion = l.prefix + ".";  // any tensor of P
  const auto about_layer = [&](const Place& at) {
    return (at.kind == PlaceKind::Layer && at.name == l.prefix) ||
           (at.kind == PlaceKind::Tensor && at.name.starts_with(companion));
  };
  // A format ComfyUI does not register has one contract, its producer's: any
  // error of the layer refuses it, and ComfyUI's refusal of the name does not.
  const quant::FormatSpec* format = quant::find_format(l.format);
  const bool producer_only = format && !format->comfyui_registers;
  for (const quant::LocatedFinding& lf : analysis_.findings) {
    const Finding& f = lf.finding;
    if (f.severity != Severity::Error || (f.rule == RuleId::QuantW4a8CudaGroupsize && !cuda_kernel)) continue;
    if (!about_layer(f.where)) continue;
    if (producer_only && f.rule != RuleId::QuantFormatUnknown && is_quant_rule(f.rule))
      return LayerError{path_ + ": " + std::string(rule_name(f.rule)) + " at " + f.where.text() + ": " + f.message, true};
    if (producer_only) continue;
    for (const Verdict& v : f.verdicts) {
      if (v.effect != Effect::Rejects || (v.consumer != Consumer::Comfyui && v.consumer != Consumer::Kitchen)) continue;
      if (w6 && (v.consumer != Consumer::Kitchen || !v.holds_for(*w6))) continue;
      return LayerError{path_ + ": " + std::string(rule_name(f.rule)) + " at " + f.where.text() + ": " + f.message + " (" +
                            std::string(consumer_name(v.consumer)) + ": " + v.error + ": " + v.message + ")",
                        true};
    }
  }
  return Unit{};
}

LayerResult<std::vector<std::uint8_t>> CheckpointReader::bytes(const quant::TensorRef& t) const {
  const auto count = shape_product(t.entry->shape).count;
  const auto expected = count ? checked_mul(*count, dtype_bits(t.entry->dtype)) : std::nullopt;
  if (!expected || *expected % 8 != 0 || t.entry->end < t.entry->begin || t.entry->end - t.entry->begin != *expected / 8)
    return fail(Place::tensor(t.entry->name).text() + ": its data_offsets do not match its shape and dtype");
  if (!data_) {  // from_memory: the parser held every tensor inside the file
    const std::uint64_t at = 8 + model_->header_length + t.entry->begin;
    if (at > memory_.size() || memory_.size() - at < *expected / 8)
      return fail(Place::tensor(t.entry->name).text() + ": its data lies outside the file");
    return std::vector<std::uint8_t>(memory_.begin() + static_cast<std::ptrdiff_t>(at),
                                     memory_.begin() + static_cast<std::ptrdiff_t>(at + *expected / 8));
  }
  auto b = data_->whole(t);
  if (!b) return io_fail(Place::tensor(t.entry->name).text() + ": cannot read its data: " + b.error());
  return std::move(b).value();
}

LayerResult<std::uint64_t> marker_uint(const quant::Layer& l, std::string_view key, std::uint64_t fallback) {
  const py::Value* v = quant::comfy_get(*l.marker, key);
  if (!v) return fallback;
  auto i = py::py_int(*v);
  const auto n = i ? quant::as_int64(i.value()) : std::nullopt;
  if (!n || *n < 0)
    return fail(Place::layer(l.prefix).text() + ": expected marker key \"" + std::string(key) +
                "\" to be a non-negative int, found " + py::repr(*v));
  return static_cast<std::uint64_t>(*n);
}

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
  auto g = marker_uint(l, "group_size", 16);
  if (!g) return g.error();
  auto conv = marker_uint(l, "convrot_groupsize", 256);
  if (!conv) return conv.error();
  if (g.value() == 0) return fail(Place::layer(l.prefix).text() + ": expected group_size >= 4, found 0");

  auto w = need(c, quant::tensor_name(l, "weight"), {Dtype::I8, Dtype::U8});
  if (!w) return w.error();
  if (auto s = two_d(*w.value()); !s) return s.error();
  const std::uint64_t n = w.value()->entry->shape[0];
  auto s_rel = need(c, quant::tensor_name(l, "weight_s_rel"), {Dtype::F8_E4M3, Dtype::U8, Dtype::F32});
  if (!s_rel) return s_rel.error();
  // A row 3K/4 wide for K = s_rel columns * G is 6-bit storage, as kitchen
  // 2a6f4ef reads it (the rules read it the same way); else K = 2 * columns.
  const auto k6 = quant::six_bit_k(w.value()->entry->shape, s_rel.value()->entry->shape, g.value());
  const auto k = k6 ? k6 : quant::times2(w.value()->entry->shape[1]);
  if (!k) return fail(Place::tensor(w.value()->entry->name).text() + ": K = 2 * packed columns overflows 64 bits");
  const std::uint64_t groups = *k / g.value();
  if (auto s = shape_is(*s_rel.value(), {n, groups}); !s) return s.error();
  auto s_ch = need(c, quant::tensor_name(l, "weight_s_channel"), {Dtype::F32});
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
    auto t = need(c, quant::tensor_name(l, "weight_codebook"), {Dtype::F32});
    if (!t) return t.error();
    if (auto s = shape_is(*t.value(), {16}); !s) return s.error();
    auto v = floats(c, *t.value());
    if (!v) return v.error();
    std::array<float, 16> cb{};
    std::copy_n(v.value().begin(), 16, cb.begin());
    out.codebook = cb;
  }
  if (c.find(quant::tensor_name(l, "weight_correction"))) {
    auto t = need(c, quant::tensor_name(l, "weight_correction"), {Dtype::F32, Dtype::BF16, Dtype::F16});
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
  const bool e5m2 = l.is(quant::QuantFormat::Fp8E5m2);
  // Any other dtype is value-cast by ComfyUI (L10), not the stored codes.
  auto w = need(c, quant::tensor_name(l, "weight"), {e5m2 ? Dtype::F8_E5M2 : Dtype::F8_E4M3});
  if (!w) return w.error();
  if (auto s = two_d(*w.value()); !s) return s.error();
  auto sc = need(c, quant::tensor_name(l, "weight_scale"), {Dtype::F32, Dtype::BF16, Dtype::F16});
  if (!sc) return sc.error();
  if (auto s = one_element(*sc.value()); !s) return s.error();
  auto b = raw(c, *w.value());
  if (!b) return b.error();
  auto s = floats(c, *sc.value());
  if (!s) return s.error();
  return deq::Fp8Weight{e5m2 ? deq::Fp8::E5M2 : deq::Fp8::E4M3, mat(*w.value()->entry, std::move(b).value()),
                        s.value()[0]};
}

LayerResult<deq::Int8Weight> read_int8(const CheckpointReader& c, const quant::Layer& l) {
  auto w = need(c, quant::tensor_name(l, "weight"), {Dtype::I8, Dtype::U8});
  if (!w) return w.error();
  if (auto s = two_d(*w.value()); !s) return s.error();
  const std::uint64_t n = w.value()->entry->shape[0];
  auto sc = need(c, quant::tensor_name(l, "weight_scale"), {Dtype::F32, Dtype::BF16, Dtype::F16});
  if (!sc) return sc.error();
  const auto& shape = sc.value()->entry->shape;
  const bool rowwise = shape == std::vector<std::uint64_t>{n, 1};
  if (!rowwise && element_count(*sc.value()->entry) != 1)  // L14: [N] would broadcast along K
    return fail(Place::tensor(sc.value()->entry->name).text() + ": expected shape () or " + shape_text({n, 1}) + ", found " +
                shape_text(shape));
  std::uint64_t conv = 0;
  const py::Value* on = quant::comfy_get(*l.marker, "convrot");
  if (on && quant::truthy(*on)) {
    auto cv = marker_uint(l, "convrot_groupsize", 256);
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
  auto w = need(c, quant::tensor_name(l, "weight"), {Dtype::I8, Dtype::U8});
  if (!w) return w.error();
  if (auto s = two_d(*w.value()); !s) return s.error();
  auto sc = need(c, quant::tensor_name(l, "weight_scale"), {Dtype::F32, Dtype::BF16, Dtype::F16});
  if (!sc) return sc.error();
  if (auto s = shape_is(*sc.value(), {w.value()->entry->shape[0]}); !s) return s.error();
  auto cv = marker_uint(l, "convrot_groupsize", 256);
  if (!cv) return cv.error();
  auto b = raw(c, *w.value());
  if (!b) return b.error();
  auto s = floats(c, *sc.value());
  if (!s) return s.error();
  return deq::W4a4Weight{mat(*w.value()->entry, std::move(b).value()), std::move(s).value(), cv.value()};
}

LayerResult<deq::Nvfp4Weight> read_nvfp4(const CheckpointReader& c, const quant::Layer& l) {
  auto w = need(c, quant::tensor_name(l, "weight"), {Dtype::U8, Dtype::I8});
  if (!w) return w.error();
  if (auto s = two_d(*w.value()); !s) return s.error();
  auto bs = need(c, quant::tensor_name(l, "weight_scale"), {Dtype::F8_E4M3, Dtype::U8});
  if (!bs) return bs.error();
  if (auto s = two_d(*bs.value()); !s) return s.error();
  auto gs = need(c, quant::tensor_name(l, "weight_scale_2"), {Dtype::F32, Dtype::BF16, Dtype::F16});
  if (!gs) return gs.error();
  if (auto s = one_element(*gs.value()); !s) return s.error();
  const auto cols = quant::times2(w.value()->entry->shape[1]);
  if (!cols) return fail(Place::tensor(w.value()->entry->name).text() + ": 2 * packed columns overflows");
  auto b = raw(c, *w.value());
  if (!b) return b.error();
  auto sb = raw(c, *bs.value());
  if (!sb) return sb.error();
  auto g = floats(c, *gs.value());
  if (!g) return g.error();
  // The logical [N, K] is not stored (L12: zero padding to N16, K16); the
  // padded weight is returned whole.
  return deq::Nvfp4Weight{mat(*w.value()->entry, std::move(b).value()), mat(*bs.value()->entry, std::move(sb).value()),
                          g.value()[0], w.value()->entry->shape[0], *cols};
}

LayerResult<deq::Mxfp8Weight> read_mxfp8(const CheckpointReader& c, const quant::Layer& l) {
  auto w = need(c, quant::tensor_name(l, "weight"), {Dtype::F8_E4M3});
  if (!w) return w.error();
  if (auto s = two_d(*w.value()); !s) return s.error();
  auto bs = need(c, quant::tensor_name(l, "weight_scale"), {Dtype::U8, Dtype::F8_E8M0});
  if (!bs) return bs.error();
  if (auto s = two_d(*bs.value()); !s) return s.error();
  auto b = raw(c, *w.value());
  if (!b) return b.error();
  auto sb = raw(c, *bs.value());
  if (!sb) return sb.error();
  const auto& e = *w.value()->entry;
  return deq::Mxfp8Weight{mat(e, std::move(b).value()), mat(*bs.value()->entry, std::move(sb).value()), e.shape[0],
                          e.shape[1], num::E8M0::Kitchen};
}

LayerResult<deq::AwqWeight> read_awq(const CheckpointReader& c, const quant::Layer& l) {
  auto g = marker_uint(l, "group_size", 64);
  if (!g) return g.error();
  auto w = need(c, quant::tensor_name(l, "weight"), {Dtype::I8, Dtype::U8});
  if (!w) return w.error();
  if (auto s = two_d(*w.value()); !s) return s.error();
  auto sc = need(c, quant::tensor_name(l, "weight_scale"), {Dtype::F32, Dtype::BF16, Dtype::F16});
  if (!sc) return sc.error();
  auto zs = need(c, quant::tensor_name(l, "weight_zeros"), {sc.value()->entry->dtype});
  if (!zs) return zs.error();
  if (auto s = two_d(*sc.value()); !s) return s.error();
  if (auto s = shape_is(*zs.value(), sc.value()->entry->shape); !s) return s.error();
  auto b = raw(c, *w.value());
  if (!b) return b.error();
  auto s = floats(c, *sc.value());
  if (!s) return s.error();
  auto z = floats(c, *zs.value());
  if (!z) return z.error();
  const auto& se = *sc.value()->entry;
  return deq::AwqWeight{mat(*w.value()->entry, std::move(b).value()),
                        deq::Mat<float>(se.shape[0], se.shape[1], std::move(s).value()),
                        deq::Mat<float>(se.shape[0], se.shape[1], std::move(z).value()), g.value(), se.dtype};
}

LayerResult<deq::SvdquantWeight> read_svdquant(const CheckpointReader& c, const quant::Layer& l) {
  const py::Value* layout = quant::get(*l.marker, "layout");
  const auto* layout_name = layout ? std::get_if<std::string>(&layout->data) : nullptr;
  if (layout && (!layout_name || *layout_name != "kitchen_tile_packed_w4a4"))
    return fail(Place::layer(l.prefix).text() + ": expected no layout or 'kitchen_tile_packed_w4a4', found " + py::repr(*layout));
  const bool tiled = layout != nullptr;
  auto w = need(c, quant::tensor_name(l, "weight"), {Dtype::I8});
  if (!w) return w.error();
  std::vector<const quant::TensorRef*> floats_in;
  for (const char* suffix : {"weight_scale", "proj_down", "proj_up"}) {
    auto t = need(c, quant::tensor_name(l, suffix), {Dtype::F32, Dtype::BF16, Dtype::F16});
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
  const auto refused_by = [&](const Error& e) { return fail(Place::tensor(quant::tensor_name(l, e.where.name)).text() + ": " + e.message); };
  const TensorEntry& we = *w.value()->entry;
  const TensorEntry& se = *floats_in[0]->entry;
  const TensorEntry& de = *floats_in[1]->entry;
  const TensorEntry& ue = *floats_in[2]->entry;
  if (de.shape.size() != 2) return fail(Place::tensor(de.name).text() + ": expected a 2-D (K, R) tensor, found shape " + shape_text(de.shape));
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
  auto t = need(c, quant::tensor_name(l, "smooth_factor"), {Dtype::F32, Dtype::BF16, Dtype::F16});
  if (!t) return t.error();
  if (auto s = shape_is(*t.value(), {k}); !s) return s.error();
  return floats(c, *t.value());
}

}  // namespace safespec
