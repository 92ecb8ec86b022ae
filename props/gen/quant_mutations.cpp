// The quantized-layer mutation catalogue (quant_mutations.hpp). Templates are
// verbatim from comfy-quant-markers.md §3 (cited per constant); values are
// rendered the Python way through spec/quant/render.hpp (§6).
//
// Companions: a mutation lists another error rule only where its defect
// implies that rule's invariant is broken too, and says why next to it.
#include "props/gen/quant_mutations.hpp"

#include <algorithm>
#include <optional>

#include "spec/quant/render.hpp"

namespace safespec::gen::quant {

namespace {

using rc::gen::element;
using rc::gen::inRange;
using safespec::quant::repr;
using Shape = std::vector<std::uint64_t>;

// sglang, quantization_utils.py and the configs (§3), verbatim.
constexpr std::string_view kS31 = "Invalid _quantization_metadata in {path}";
constexpr std::string_view kS32 = "_quantization_metadata in {path} must contain an object";
constexpr std::string_view kS33 = "_quantization_metadata in {path} must contain a layers object";
constexpr std::string_view kS34 = "Comfy quantization metadata for {prefix!r} must be an object";
constexpr std::string_view kConflict = "Conflicting Comfy quantization markers for {prefix!r}";  // S3.4, S6.3
constexpr std::string_view kS61 = "Invalid Comfy quantization marker {key!r} in {path}";
constexpr std::string_view kS62 = "Comfy quantization marker {key!r} must contain a JSON object";
constexpr std::string_view kS7 =
    "MXFP8 layer {prefix!r} has incompatible weight/scale metadata: {weight_meta} and {scale_meta}";
constexpr std::string_view kS8 = "Quantized weights are missing comfy_quant metadata: {sorted(missing)[:5]}";
constexpr std::string_view kS91 = "Comfy layer {prefix!r} is missing checkpoint tensors: {sorted(missing)}";
constexpr std::string_view kA1 = "Comfy W4A8 layer {prefix!r} has invalid group_size={group_size}";
constexpr std::string_view kA2 =
    "Comfy W4A8 layer {prefix!r} needs I8 weights and FP8 group scales, got {weight_dtype} and {scale_dtype}";
constexpr std::string_view kA3 = "Comfy W4A8 layer {prefix!r} needs F32 channel scales, got {channel_dtype}";
constexpr std::string_view kA4 = "Comfy W4A8 layer {prefix!r} needs a 2D packed weight, got {weight_shape}";
constexpr std::string_view kA5 =
    "Comfy W4A8 layer {prefix!r} has incompatible weight/scale shapes: {weight_shape}, {scale_shape}, and "
    "{channel_shape}";
constexpr std::string_view kA7 = "Comfy W4A8 layer {prefix!r} needs an F32[16] codebook";
constexpr std::string_view kA8 = "Comfy W4A8 layer {prefix!r} has an incompatible correction tensor";
constexpr std::string_view kW4a4Dtypes =
    "Comfy W4A4 layer {prefix!r} needs I8 packed weights and F32 scales, got {weight_dtype} and {scale_dtype}";
constexpr std::string_view kW4a4Shapes =
    "Comfy W4A4 layer {prefix!r} has incompatible weight/scale shapes: {weight_shape} and {scale_shape}";
constexpr std::string_view kW4a4Group =
    "Comfy W4A4 layer {prefix!r} has unsupported convrot_groupsize={convrot_group_size}";
constexpr std::string_view kW4a4K =
    "Comfy W4A4 layer {prefix!r} has input size {logical_input_size}, incompatible with quant_group_size=64 and "
    "convrot_groupsize={convrot_group_size}";
constexpr std::string_view kNvDtypes =
    "Comfy NVFP4 layer {prefix!r} needs U8 packed weights and FP8 block scales, got {weight_dtype} and {scale_dtype}";
constexpr std::string_view kNvScale2 =
    "Comfy NVFP4 layer {prefix!r} needs a scalar F32 weight_scale_2, got {scale_2_dtype}{scale_2_shape}";
constexpr std::string_view kNvRank = "Comfy NVFP4 layer {prefix!r} needs a 2D packed weight, got {weight_shape}";
constexpr std::string_view kNvShapes =
    "Comfy NVFP4 layer {prefix!r} has incompatible weight/scale shapes: {weight_shape} and {scale_shape}";
constexpr std::string_view kNvPqs = "Comfy NVFP4 layer {prefix!r} has an incompatible pre_quant_scale: {dtype}{shape}";
constexpr std::string_view kInt8Rank = "Comfy tensorwise INT8 layer {prefix!r} needs a 2D weight, got {weight_shape}";
constexpr std::string_view kInt8Dtypes =
    "Comfy INT8 layer {prefix!r} needs I8 weights and F32 scales, got {weight_dtype} and {scale_dtype}";
constexpr std::string_view kInt8Shapes =
    "Comfy INT8 layer {prefix!r} has incompatible weight/scale shapes: {weight_shape} and {scale_shape}";
constexpr std::string_view kS11 = "Unsupported Comfy quantization format(s): {formats}";
constexpr std::string_view kS12Companion = "Unsupported Comfy W4A8 format for {prefix!r}: {marker_format!r}";
constexpr std::string_view kS12Convrot = "Serialized W4A8 layer {prefix!r} must set convrot=true";
constexpr std::string_view kS135 =
    "Serialized W4A8 layer {prefix!r} has input size {layer.input_size}, incompatible with group_size={group_size} "
    "and convrot_groupsize={convrot_group_size}";
constexpr std::string_view kS155 =
    "Serialized W4A4 layer {prefix!r} has unsupported linear_dtype={linear_dtype!r}; expected one of ('int4', 'int8')";
constexpr std::string_view kS17Convrot = "Serialized kitchen_int8 layer {prefix!r} must set convrot=true";
constexpr std::string_view kS17Group =
    "Serialized kitchen_int8 layer {prefix!r} must declare convrot_groupsize in (16, 64, 256), got {value!r}";
constexpr std::string_view kS19Companion = "Unsupported Comfy NVFP4 companion for {prefix!r}: {marker_format!r}";
constexpr std::string_view kS19Full = "Comfy NVFP4 layer {prefix!r} must request full_precision_matrix_mult";

using Args = std::vector<std::pair<std::string, std::string>>;

std::string shape(const Shape& s) { return safespec::quant::shape_repr(s); }
std::string dt(Dtype d) { return std::string(dtype_name(d)); }
std::uint64_t roundup(std::uint64_t a, std::uint64_t m) { return (a + m - 1) / m * m; }

Applied rejects(std::string what, std::string_view tmpl, Args args, Stage stage, std::string key, std::size_t file = 0,
                std::string_view error = "ValueError") {
  Applied a;
  a.ok = true;
  a.what = std::move(what);
  a.sg = SgKind::Rejects;
  a.sg_error = error;
  a.sg_template = tmpl;
  a.args = std::move(args);
  a.stage = stage;
  a.key = std::move(key);
  a.file = file;
  return a;
}

Applied accepts(std::string what) {
  Applied a;
  a.ok = true;
  a.what = std::move(what);
  a.sg = SgKind::Accepts;
  return a;
}

// A phase-3 rejection of layer l.
Applied layer_rejects(const QLayer& l, std::string what, std::string_view tmpl, Args args) {
  args.insert(args.begin(), {"prefix!r", repr(l.prefix)});
  return rejects(std::move(what), tmpl, std::move(args), Stage::Layer, l.prefix);
}

bool has_format(const QCheckpoint& c, Format f) {
  return std::any_of(c.layers.begin(), c.layers.end(), [f](const QLayer& l) { return l.format == f; });
}

// An int8 layer sglang accepts only as a companion of W4A8 or NVFP4 (S12.3,
// S19): damaging its weight or scale also makes it no companion.
bool int8_companion(const QCheckpoint& c, const QLayer& l) {
  return l.format == Format::Int8 && (has_format(c, Format::W4a8) || has_format(c, Format::Nvfp4));
}

template <class Pred>
QLayer* pick(QCheckpoint& c, std::set<std::string>& used, Pred pred) {
  std::vector<QLayer*> ok;
  for (QLayer& l : c.layers)
    if (!used.count(l.prefix) && !l.tensors.empty() && pred(l)) ok.push_back(&l);
  if (ok.empty()) return nullptr;
  QLayer* l = ok[*inRange<std::size_t>(0, ok.size())];
  used.insert(l->prefix);
  return l;
}

QLayer* pick_format(QCheckpoint& c, std::set<std::string>& used, Format f) {
  return pick(c, used, [f](const QLayer& l) { return l.format == f; });
}

std::string fresh_prefix(const QCheckpoint& c, std::string stem) {
  for (int i = 0;; ++i) {
    std::string p = stem + "." + std::to_string(i);
    bool taken = false;
    for (const QLayer& l : c.layers) taken = taken || l.prefix == p;
    for (const QFile& f : c.files)
      for (const QTensor& t : f.extra) taken = taken || t.name.rfind(p + ".", 0) == 0;
    if (!taken) return p;
  }
}

void strip_global(QCheckpoint& c) {
  for (QFile& f : c.files)
    std::erase_if(f.metadata, [](const auto& kv) { return kv.first == "quant_format"; });
}

// Every marker of file f becomes a tensor marker, so the file's metadata can
// be replaced without losing a declaration.
void to_tensor_site(QCheckpoint& c, std::size_t f) {
  for (QLayer& l : c.layers)
    if (l.file == f) l.site = Site::Tensor;
  c.files[f].qmeta_extra.clear();
}

QTensor bytes_tensor(std::string name, const std::string& bytes) {
  return QTensor{std::move(name), Dtype::U8, {bytes.size()}, std::vector<std::uint8_t>(bytes.begin(), bytes.end())};
}

std::size_t any_file(const QCheckpoint& c) { return *inRange<std::size_t>(0, c.files.size()); }

// ---- markers and metadata (§1, S3, S6-S8, S11) -------------------------

Applied stray_marker(QCheckpoint& c, const std::string& bytes, std::string_view tmpl) {
  const std::string key = fresh_prefix(c, "stray") + ".comfy_quant";
  const std::size_t f = any_file(c);
  if (bytes.empty())
    c.files[f].extra.push_back(QTensor{key, Dtype::U8, {0}, {}});
  else
    c.files[f].extra.push_back(bytes_tensor(key, bytes));
  Args args{{"key!r", repr(key)}};
  if (tmpl == kS61) args.emplace_back("path", c.files[f].name);
  return rejects("stray marker " + key + " = " + bytes, tmpl, std::move(args), Stage::TensorMarker, key, f);
}

Applied marker_json(QCheckpoint& c, std::set<std::string>&) {
  // S6.1: JSONDecodeError (truncation, NUL padding "Extra data", empty) or
  // UnicodeDecodeError (invalid UTF-8) are both caught.
  return stray_marker(c, *element<std::string>("{\"format\": \"nvfp4\"", "{\"format\": nvfp4}", "",
                                               std::string("{\"format\": \"mxfp8\"}\0", 20), "{\"a\": 1} x",
                                               "{\"format\": \"\xff\"}"),
                      kS61);
}

Applied marker_not_object(QCheckpoint& c, std::set<std::string>&) {
  return stray_marker(c, *element<std::string>("[1, 2]", "\"nvfp4\"", "16", "null", "true"), kS62);
}

Applied marker_too_large(QCheckpoint& c, std::set<std::string>&) {
  const std::string key = fresh_prefix(c, "stray") + ".comfy_quant";
  c.files[any_file(c)].extra.push_back(QTensor{key, Dtype::U8, {(std::uint64_t{1} << 20) + 1}, {}});
  Applied a;  // safespec does not read it, so it makes no consumer claim
  a.ok = true;
  a.what = "1 MiB + 1 marker " + key;
  return a;
}

Applied marker_bom(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick(c, used, [](const QLayer&) { return true; });
  if (!l) return {};
  l->site = Site::Tensor;
  l->marker_bytes = "\xef\xbb\xbf" + json_dumps(l->marker);  // json.loads takes the BOM (M3)
  return accepts("UTF-8 BOM before the marker of " + l->prefix);
}

Applied marker_dtype(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick(c, used, [](const QLayer&) { return true; });
  if (!l) return {};
  l->site = Site::Tensor;
  if (*rc::gen::arbitrary<bool>()) l->marker_dtype = Dtype::I8;  // same bytes, json.loads cannot tell (M3)
  else l->marker_2d = true;
  return accepts("marker tensor of " + l->prefix + " as I8 or [1, n]");
}

Applied qmeta_raw(QCheckpoint& c, std::string text, std::string_view tmpl, std::uint32_t step) {
  const std::size_t f = any_file(c);
  to_tensor_site(c, f);
  c.files[f].qmeta_raw = text;
  Applied a = rejects("_quantization_metadata of " + c.files[f].name + " = " + text, tmpl, {{"path", c.files[f].name}},
                      Stage::Qmeta, "", f);
  a.step = step;
  return a;
}

Applied qmeta_json(QCheckpoint& c, std::set<std::string>&) {
  // S3: parsed even when empty.
  return qmeta_raw(c, *element<std::string>("", "{", "{'layers': {}}", "{\"layers\": {}} x"), kS31, 0);
}

Applied qmeta_not_object(QCheckpoint& c, std::set<std::string>&) {
  return qmeta_raw(c, *element<std::string>("[]", "\"layers\"", "1", "null"), kS32, 1);
}

Applied qmeta_layers(QCheckpoint& c, std::set<std::string>&) {
  return qmeta_raw(c,
                   *element<std::string>("{\"format_version\": \"1.0\"}", "{\"format_version\": \"1.0\", \"layers\": []}",
                                         "{\"layers\": null}"),
                   kS33, 2);
}

Applied qmeta_layer_not_object(QCheckpoint& c, std::set<std::string>&) {
  const std::size_t f = any_file(c);
  const std::string p = fresh_prefix(c, "stray");
  const std::string v = *element<std::string>("\"nvfp4\"", "[]", "null", "16");
  c.files[f].qmeta_extra.push_back({p, v});
  return rejects("metadata layer " + p + " = " + v, kS34, {{"prefix!r", repr(p)}}, Stage::QmetaLayer, p, f);
}

Applied marker_conflict(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick(c, used, [](const QLayer&) { return true; });
  if (!l) return {};
  Marker other = l->marker;
  other.push_back({"note", *element<std::string>("\"x\"", "1", "null")});  // ignored by every consumer
  if (l->site == Site::Tensor) {
    // The file's metadata is read first (§3.1): it is stored, the tensor conflicts.
    c.files[l->file].qmeta_extra.push_back({l->prefix, json_dumps(other)});
  } else {
    c.files[l->file].extra.push_back(bytes_tensor(l->prefix + ".comfy_quant", json_dumps(other)));
  }
  return rejects("second declaration of " + l->prefix, kConflict, {{"prefix!r", repr(l->prefix)}}, Stage::TensorMarker,
                 l->prefix + ".comfy_quant", l->file);
}

// The required tensors S9.1 names for a format sglang validates, or {}.
std::vector<std::string> s91_required(Format f) {
  switch (f) {
    case Format::Fp8E4m3: case Format::Int8: case Format::W4a4: return {"weight", "weight_scale"};
    case Format::W4a8: return {"weight", "weight_s_rel", "weight_s_channel"};
    case Format::Nvfp4: return {"weight", "weight_scale", "weight_scale_2"};
    default: return {};
  }
}

RuleId tensors_rule(Format f) {
  switch (f) {
    case Format::Fp8E4m3: case Format::Fp8E5m2: return RuleId::QuantFp8Tensors;
    case Format::Nvfp4: return RuleId::QuantNvfp4Tensors;
    case Format::Mxfp8: return RuleId::QuantMxfp8Tensors;
    case Format::Int8: return RuleId::QuantInt8Tensors;
    case Format::W4a4: return RuleId::QuantW4a4Tensors;
    case Format::W4a8: return RuleId::QuantW4a8Tensors;
    case Format::Awq: return RuleId::QuantAwqTensors;
  }
  return RuleId::QuantFp8Tensors;
}

Applied marker_orphan(QCheckpoint& c, std::set<std::string>&) {
  std::vector<const QLayer*> ok;
  for (const QLayer& l : c.layers)
    if (!l.tensors.empty() && !int8_companion(c, l)) ok.push_back(&l);
  QLayer stray = *ok[*inRange<std::size_t>(0, ok.size())];
  stray.prefix = fresh_prefix(c, "orphan");
  stray.tensors.clear();
  stray.file = any_file(c);
  stray.site = *element(Site::Tensor, Site::Metadata);
  stray.marker_bytes.reset();
  c.layers.push_back(stray);
  const std::string what = "marker without tensors at " + stray.prefix;
  std::vector<std::string> missing;
  for (const std::string& s : s91_required(stray.format)) missing.push_back(stray.prefix + "." + s);
  Applied a = missing.empty() ? accepts(what)
                              : layer_rejects(stray, what, kS91,
                                              {{"sorted(missing)", safespec::quant::sorted_list_repr(missing)}});
  // A layer without tensors lacks its format's required tensors: sglang's
  // S9.1 for the formats it validates, the strict TENSORS rule for all.
  a.companions.push_back(tensors_rule(stray.format));
  return a;
}

Applied marker_missing(QCheckpoint& c, std::set<std::string>&) {
  strip_global(c);  // under quant_format mxfp8, S7 would mark them instead
  std::vector<std::string> missing;
  const std::size_t n = *inRange<std::size_t>(1, 8);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string p = fresh_prefix(c, *element<std::string>("unmarked", "b", "z'q", "Z"));
    QFile& f = c.files[any_file(c)];
    f.extra.push_back(QTensor{p + ".weight", *element(Dtype::I8, Dtype::U8, Dtype::F8_E4M3), {4, 8}, {}});
    if (*rc::gen::arbitrary<bool>()) f.extra.push_back(QTensor{p + ".weight_scale", Dtype::F32, {}, {}});
    missing.push_back(p);
  }
  return rejects(std::to_string(n) + " unmarked quantized weights", kS8,
                 {{"sorted(missing)[:5]", safespec::quant::sorted_list_repr(missing, 5)}}, Stage::Missing, "");
}

Applied legacy_scaled_fp8(QCheckpoint& c, std::set<std::string>&) {
  const std::size_t f = any_file(c);
  to_tensor_site(c, f);  // M8 runs only without _quantization_metadata
  c.files[f].extra.push_back(QTensor{*element<std::string>("scaled_fp8", "model.diffusion_model.scaled_fp8"),
                                     Dtype::F8_E4M3, {2}, {}});
  return accepts("legacy scaled_fp8 marker");
}

// S7's predicate for one tracked prefix.
bool s7_ok(const QLayer& l) {
  const QTensor* w = l.find("weight");
  const QTensor* s = l.find("weight_scale");
  return w && w->dtype == Dtype::F8_E4M3 && w->shape.size() == 2 && w->shape[1] % 32 == 0 && s &&
         s->dtype == Dtype::U8 && s->shape == Shape{w->shape[0], w->shape[1] / 32};
}

std::string meta(const QTensor* t) {
  return t ? "(" + repr(dt(t->dtype)) + ", " + shape(t->shape) + ")" : "None";
}

Applied mxfp8_global(QCheckpoint& c, std::set<std::string>&) {
  strip_global(c);
  c.files[any_file(c)].metadata.emplace_back("quant_format", *element<std::string>("mxfp8", "MXFP8", "MxFp8"));
  // The first failing prefix: markers.cpp walks the tracked prefixes sorted
  // (upstream iterates a set; its order is not recorded, §8).
  const QLayer* first = nullptr;
  for (const QLayer& l : c.layers) {
    const QTensor* w = l.find("weight");
    if (!w || (w->dtype != Dtype::F8_E4M3 && w->dtype != Dtype::I8 && w->dtype != Dtype::U8) || s7_ok(l)) continue;
    if (!first || l.prefix < first->prefix) first = &l;
  }
  if (!first) return Applied{};
  return rejects("quant_format mxfp8", kS7,
                 {{"prefix!r", repr(first->prefix)}, {"weight_meta", meta(first->find("weight"))},
                  {"scale_meta", meta(first->find("weight_scale"))}},
                 Stage::Mxfp8Global, first->prefix);
}

std::string joined_formats(const QCheckpoint& c) {
  std::string s;
  for (const std::string& f : sglang_formats(c)) s += (s.empty() ? "" : ", ") + f;
  return s;
}

Applied resolution_rejects(const QCheckpoint& c, std::string what) {
  return rejects(std::move(what), kS11, {{"formats", joined_formats(c)}}, Stage::Resolution, "", 0,
                 "NotImplementedError");
}

Applied format_missing(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick(c, used, [](const QLayer&) { return true; });
  if (!l) return {};
  if (*rc::gen::arbitrary<bool>()) marker_erase(l->marker, "format");
  else marker_set(l->marker, "format", "null");
  Applied a = resolution_rejects(c, "no format for " + l->prefix);
  a.companions = {RuleId::QuantSglangFormats};  // str(None) is in no set S11 resolves
  return a;
}

Applied format_unknown(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick(c, used, [](const QLayer&) { return true; });
  if (!l) return {};
  marker_set(l->marker, "format",
             *element<std::string>("\"int8_blockwise\"", "\"float8_e4m3fn_rowwise\"", "\"MXFP8\"", "7"));
  Applied a = resolution_rejects(c, "unknown format for " + l->prefix);
  a.companions = {RuleId::QuantSglangFormats};  // every format S11 resolves is one ComfyUI knows
  return a;
}

Applied sglang_formats_mix(QCheckpoint& c, std::set<std::string>&) {
  strip_global(c);  // S7 would judge the new layer's weight instead
  std::vector<Format> options;
  for (Format f : {Format::Fp8E4m3, Format::Fp8E5m2, Format::Nvfp4, Format::Mxfp8, Format::Int8, Format::W4a4,
                   Format::W4a8, Format::Awq}) {
    auto formats = sglang_formats(c);
    formats.emplace_back(format_name(f));
    std::sort(formats.begin(), formats.end());
    formats.erase(std::unique(formats.begin(), formats.end()), formats.end());
    if (!sglang_resolves(formats)) options.push_back(f);
  }
  QLayer l = *layer(*rc::gen::elementOf(options), Validity::AllConsumers, Int8Role::Convrot);
  const std::string p = fresh_prefix(c, "mixed");
  for (QTensor& t : l.tensors) t.name = p + t.name.substr(l.prefix.size());
  l.prefix = p;
  l.file = any_file(c);
  l.site = *element(Site::Tensor, Site::Metadata);
  c.layers.push_back(std::move(l));
  return resolution_rejects(c, "a " + std::string(format_name(c.layers.back().format)) + " layer " + p);
}

Applied sglang_companion(QCheckpoint& c, std::set<std::string>&) {
  const bool w4a8 = has_format(c, Format::W4a8);
  // Beside W4A8 a ConvRot int8 layer is no embedding (S12.3); beside NVFP4 a
  // tensor-wise (scalar-scale) one is not row-wise (S19).
  QLayer l = *layer(Format::Int8, Validity::AllConsumers, w4a8 ? Int8Role::Convrot : Int8Role::Embedding);
  const std::string p = fresh_prefix(c, "companion");
  for (QTensor& t : l.tensors) t.name = p + t.name.substr(l.prefix.size());
  l.prefix = p;
  if (!w4a8) l.find("weight_scale")->shape = {};
  l.file = any_file(c);
  l.site = *element(Site::Tensor, Site::Metadata);
  c.layers.push_back(l);
  Applied a = rejects("int8 layer " + p + " beside " + (w4a8 ? "W4A8" : "NVFP4"), w4a8 ? kS12Companion : kS19Companion,
                      {{"prefix!r", repr(p)}, {"marker_format!r", "'int8_tensorwise'"}}, Stage::Config, p);
  return a;
}

Applied key_type(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick(c, used, [](const QLayer&) { return true; });
  if (!l) return {};
  // Keys no consumer reads for these formats: only the type is off.
  if (*rc::gen::arbitrary<bool>()) marker_set(l->marker, "num_experts", *element<std::string>("\"8\"", "8.0", "true"));
  else marker_set(l->marker, "params", *element<std::string>("[]", "5", "\"x\""));
  return accepts("mistyped num_experts/params on " + l->prefix);
}

Applied key_int(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick(c, used, [](const QLayer& x) { return x.format == Format::W4a8 || x.format == Format::W4a4; });
  if (!l) return {};
  struct Bad {
    std::string_view json, error;
  };
  // Python int(): None -> TypeError, "x" / "16.5" / nan -> ValueError,
  // inf -> OverflowError (§6.11).
  const Bad bad = *element(Bad{"null", "TypeError"}, Bad{"\"x\"", "ValueError"}, Bad{"\"16.5\"", "ValueError"},
                           Bad{"NaN", "ValueError"}, Bad{"Infinity", "OverflowError"}, Bad{"-Infinity", "OverflowError"});
  marker_set(l->marker, l->format == Format::W4a8 ? "group_size" : "convrot_groupsize", std::string(bad.json));
  Applied a;
  a.ok = true;
  a.what = "int() fails on " + l->prefix + ": " + std::string(bad.json);
  a.sg = SgKind::ErrorOnly;
  a.sg_error = bad.error;
  a.stage = Stage::Layer;
  a.key = l->prefix;
  return a;
}

Applied params_nested(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  // Values equal to sglang's defaults (16, 256): only where they sit differs.
  std::string params = "{\"convrot_groupsize\": 256";
  marker_erase(l->marker, "convrot_groupsize");
  const std::string* g = marker_get(l->marker, "group_size");
  if ((!g || *g == "16") && *rc::gen::arbitrary<bool>()) {
    marker_erase(l->marker, "group_size");
    params += ", \"group_size\": 16";
  }
  marker_set(l->marker, "params", params + "}");
  return accepts("keys only in params on " + l->prefix);
}

Applied dtype_comfy_mmap(QCheckpoint& c, std::set<std::string>& used) {
  strip_global(c);  // S7 wants U8 scales
  QLayer* l = pick_format(c, used, Format::Mxfp8);
  if (!l) return {};
  l->find("weight_scale")->dtype = Dtype::F8_E8M0;
  return accepts("F8_E8M0 mxfp8 scale on " + l->prefix);
}


// ---- float8 (L10, S9.1, S9.2, C13) --------------------------------------

Applied weight_cast(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Fp8E4m3);
  if (!l) return {};
  l->find("weight")->dtype = *element(Dtype::BF16, Dtype::F16, Dtype::F32, Dtype::F8_E5M2, Dtype::U8);
  return accepts("fp8 weight of " + l->prefix + " stored as " + dt(l->find("weight")->dtype));  // S9.2: no dtype check
}

Applied fp8_tensors(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Fp8E4m3);
  if (!l) return {};
  std::erase_if(l->tensors, [&](const QTensor& t) { return t.name == l->name("weight_scale"); });
  return layer_rejects(*l, "no weight_scale", kS91, {{"sorted(missing)", "[" + repr(l->name("weight_scale")) + "]"}});
}

Applied fp8_scale(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick(c, used, [](const QLayer& x) { return x.format == Format::Fp8E4m3; });
  if (!l) return {};
  QTensor* s = l->find("input_scale");
  if (!s || *rc::gen::arbitrary<bool>()) s = l->find("weight_scale");
  s->shape = *element(Shape{2}, Shape{1, 2}, Shape{l->n, 2});
  return accepts(s->name + " with more than one element");  // sglang never looks (S9.2)
}

Applied fp8_weight(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Fp8E4m3);
  if (!l) return {};
  l->find("weight")->shape = *element(Shape{l->n * l->k}, Shape{1, l->n, l->k});
  return accepts("non-2-D fp8 weight of " + l->prefix);
}

// ---- nvfp4 (L12, S9.5, S19, G13) ----------------------------------------

Applied nvfp4_tensors(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  const int which = *inRange(0, 3);
  std::vector<std::string> missing;
  if (which != 1) missing.push_back(l->name("weight_scale"));
  if (which != 0) missing.push_back(l->name("weight_scale_2"));
  std::erase_if(l->tensors, [&](const QTensor& t) { return std::count(missing.begin(), missing.end(), t.name) > 0; });
  return layer_rejects(*l, "nvfp4 scales missing", kS91,
                       {{"sorted(missing)", safespec::quant::sorted_list_repr(missing)}});
}

Applied nvfp4_dtypes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  QTensor* w = l->find("weight");
  QTensor* s = l->find("weight_scale");
  const int which = *inRange(0, 3);
  if (which != 1) w->dtype = Dtype::I8;  // ComfyUI takes both (same bits, viewed scale)
  if (which != 0) s->dtype = Dtype::U8;
  return layer_rejects(*l, "nvfp4 I8 weight / U8 scale", kNvDtypes,
                       {{"weight_dtype", dt(w->dtype)}, {"scale_dtype", dt(s->dtype)}});
}

Applied nvfp4_global_scale(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  QTensor* s2 = l->find("weight_scale_2");
  struct V {
    Dtype d;
    Shape s;
  };
  const V v = *element(V{Dtype::F32, {2}}, V{Dtype::BF16, {}}, V{Dtype::F16, {1}}, V{Dtype::F32, {1, 1}});
  s2->dtype = v.d;
  s2->shape = v.s;
  return layer_rejects(*l, "nvfp4 global scale", kNvScale2, {{"scale_2_dtype", dt(v.d)}, {"scale_2_shape", shape(v.s)}});
}

Applied nvfp4_weight_rank(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  QTensor* w = l->find("weight");
  w->shape = *element(Shape{1, w->shape[0], w->shape[1]}, Shape{w->shape[0] * w->shape[1]});
  Applied a = layer_rejects(*l, "non-2-D nvfp4 weight", kNvRank, {{"weight_shape", shape(w->shape)}});
  a.companions = {RuleId::QuantNvfp4Layout};  // kitchen's layout [N16, K16/2] is 2-D too
  return a;
}

// A new packed [r, cols] nvfp4 weight with the block scale `scale`; a
// pre_quant_scale follows K.
void nvfp4_reshape(QLayer& l, std::uint64_t r, std::uint64_t cols, Shape scale) {
  l.find("weight")->shape = {r, cols};
  l.find("weight_scale")->shape = std::move(scale);
  if (QTensor* p = l.find("pre_quant_scale")) p->shape = {2 * cols};
  l.n = r;
  l.k = 2 * cols;
}

Applied nvfp4_shapes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  // kitchen's swizzled padding where it differs from sglang's (N, K/16).
  std::uint64_t r = l->n, cols = l->k / 2;
  if (*rc::gen::arbitrary<bool>()) r = 16 * *element<std::uint64_t>(1, 3, 5, 9, 10);
  else cols = 8 * *element<std::uint64_t>(1, 2, 3, 5, 6, 7);
  nvfp4_reshape(*l, r, cols, {roundup(r, 128), roundup(cols / 8, 4)});
  return layer_rejects(*l, "nvfp4 swizzled scale", kNvShapes,
                       {{"weight_shape", shape({r, cols})}, {"scale_shape", shape(l->find("weight_scale")->shape)}});
}

Applied nvfp4_layout(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  // sglang's logical (N, K/16) where kitchen's padded shape differs, or rows
  // that are no N16.
  const std::uint64_t r = *element<std::uint64_t>(16, 48, 80, 144, 7, 129);
  const std::uint64_t cols = 8 * *element<std::uint64_t>(1, 2, 4, 5);
  nvfp4_reshape(*l, r, cols, {r, cols / 8});
  return accepts("nvfp4 unswizzled scale on " + l->prefix);
}

Applied nvfp4_pre_quant_scale(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  std::erase_if(l->tensors, [&](const QTensor& t) { return t.name == l->name("pre_quant_scale"); });
  struct V {
    Dtype d;
    Shape s;
  };
  const V v = *element(V{Dtype::I8, {l->k}}, V{Dtype::F8_E4M3, {l->k}}, V{Dtype::F32, {l->k + 16}},
                       V{Dtype::BF16, {1, l->k}}, V{Dtype::F16, {}});
  l->tensors.push_back(QTensor{l->name("pre_quant_scale"), v.d, v.s, {}});
  return layer_rejects(*l, "bad pre_quant_scale", kNvPqs, {{"dtype", dt(v.d)}, {"shape", shape(v.s)}});
}

Applied nvfp4_full_precision(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Nvfp4);
  if (!l) return {};
  if (*rc::gen::arbitrary<bool>()) marker_erase(l->marker, "full_precision_matrix_mult");
  else marker_set(l->marker, "full_precision_matrix_mult", *element<std::string>("false", "1", "\"true\"", "null"));
  Applied a = rejects("full_precision_matrix_mult not true on " + l->prefix, kS19Full, {{"prefix!r", repr(l->prefix)}},
                      Stage::Config, l->prefix);
  a.step = 1;
  return a;
}

// ---- mxfp8 (L13, C12, G12) ----------------------------------------------

Applied mxfp8_tensors(QCheckpoint& c, std::set<std::string>& used) {
  strip_global(c);
  QLayer* l = pick_format(c, used, Format::Mxfp8);
  if (!l) return {};
  std::erase_if(l->tensors, [&](const QTensor& t) { return t.name == l->name("weight_scale"); });
  return accepts("mxfp8 without scale on " + l->prefix);  // S9.0: marker mxfp8 is not validated
}

Applied mxfp8_dtypes(QCheckpoint& c, std::set<std::string>& used) {
  strip_global(c);
  QLayer* l = pick_format(c, used, Format::Mxfp8);
  if (!l) return {};
  l->find("weight_scale")->dtype = *element(Dtype::I8, Dtype::F8_E4M3, Dtype::BF16);
  return accepts("mxfp8 scale dtype on " + l->prefix);
}

Applied mxfp8_layout(QCheckpoint& c, std::set<std::string>& used) {
  strip_global(c);
  QLayer* l = pick_format(c, used, Format::Mxfp8);
  if (!l) return {};
  QTensor* s = l->find("weight_scale");
  s->shape = *element(Shape{s->shape[0] + 128, s->shape[1]}, Shape{s->shape[0], s->shape[1] + 4},
                      Shape{s->shape[1], s->shape[0]});
  if (s->shape == Shape{roundup(l->n, 128), roundup(l->k / 32, 4)}) s->shape[1] += 4;
  return accepts("mxfp8 scale shape on " + l->prefix);
}

// ---- int8_tensorwise (L14, S9.6, S17) ------------------------------------

Applied with_companion(const QCheckpoint& c, const QLayer& l, Applied a) {
  if (int8_companion(c, l)) a.companions.push_back(RuleId::QuantSglangCompanion);  // S9.6's flags decide it
  return a;
}

Applied int8_tensors(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Int8);
  if (!l) return {};
  std::erase_if(l->tensors, [&](const QTensor& t) { return t.name == l->name("weight_scale"); });
  return with_companion(c, *l,
                        layer_rejects(*l, "no int8 scale", kS91, {{"sorted(missing)", "[" + repr(l->name("weight_scale")) + "]"}}));
}

Applied int8_weight_rank(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Int8);
  if (!l) return {};
  l->find("weight_scale")->shape = {};
  QTensor* w = l->find("weight");
  w->shape = *element(Shape{1, l->n, l->k}, Shape{l->n * l->k});
  Applied a = layer_rejects(*l, "non-2-D int8 weight", kInt8Rank, {{"weight_shape", shape(w->shape)}});
  a = with_companion(c, *l, std::move(a));
  // Beside NVFP4 the new scalar scale alone already makes it no companion.
  if (has_format(c, Format::Nvfp4) && a.companions.empty()) a.companions.push_back(RuleId::QuantSglangCompanion);
  return a;
}

Applied int8_dtypes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Int8);
  if (!l) return {};
  QTensor* w = l->find("weight");
  QTensor* s = l->find("weight_scale");
  if (*rc::gen::arbitrary<bool>()) w->dtype = Dtype::U8;
  else s->dtype = *element(Dtype::F16, Dtype::BF16, Dtype::F64);
  return with_companion(c, *l, layer_rejects(*l, "int8 dtypes", kInt8Dtypes,
                                             {{"weight_dtype", dt(w->dtype)}, {"scale_dtype", dt(s->dtype)}}));
}

Applied int8_shapes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Int8);
  if (!l) return {};
  QTensor* s = l->find("weight_scale");
  s->shape = *element(Shape{l->n}, Shape{l->n, 2}, Shape{l->n + 1, 1});
  return with_companion(c, *l, layer_rejects(*l, "int8 scale shape", kInt8Shapes,
                                             {{"weight_shape", shape(l->find("weight")->shape)}, {"scale_shape", shape(s->shape)}}));
}

Applied int8_convrot(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Int8);
  if (!l) return {};
  if (*rc::gen::arbitrary<bool>()) marker_erase(l->marker, "convrot");
  else marker_set(l->marker, "convrot", *element<std::string>("false", "1", "\"true\""));  // `is True` (S17)
  return rejects("convrot not true on " + l->prefix, kS17Convrot, {{"prefix!r", repr(l->prefix)}}, Stage::Config,
                 l->prefix);
}

Applied int8_convrot_groupsize(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Int8);
  if (!l) return {};
  struct V {
    std::string_view json, repr;
  };
  const V v = *element(V{"", "None"}, V{"4", "4"}, V{"\"16\"", "'16'"}, V{"32", "32"});
  if (v.json.empty()) marker_erase(l->marker, "convrot_groupsize");  // S17 has no default
  else marker_set(l->marker, "convrot_groupsize", std::string(v.json));
  Applied a = rejects("convrot_groupsize " + std::string(v.repr) + " on " + l->prefix, kS17Group,
                      {{"prefix!r", repr(l->prefix)}, {"value!r", std::string(v.repr)}}, Stage::Config, l->prefix);
  a.step = 1;
  return a;
}

Applied k_int32(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Int8);
  if (!l) return {};
  // K = 2^17 > 131071 = (2^31 - 1) // (128 * 128), divisible by every C.
  l->n = 1;
  l->k = std::uint64_t{1} << 17;
  l->find("weight")->shape = {1, l->k};
  QTensor* s = l->find("weight_scale");
  if (!s->shape.empty()) s->shape = {1, 1};
  return accepts("int8 K = 131072 on " + l->prefix);
}

// ---- convrot_w4a4 (L15, S9.4, S15) ---------------------------------------

std::string w4a4_c(const QLayer& l) {
  const std::string* c = marker_get(l.marker, "convrot_groupsize");
  return c ? *c : "256";
}

Applied w4a4_tensors(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a4);
  if (!l) return {};
  std::erase_if(l->tensors, [&](const QTensor& t) { return t.name == l->name("weight_scale"); });
  return layer_rejects(*l, "no w4a4 scale", kS91, {{"sorted(missing)", "[" + repr(l->name("weight_scale")) + "]"}});
}

Applied w4a4_dtypes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a4);
  if (!l) return {};
  QTensor* w = l->find("weight");
  QTensor* s = l->find("weight_scale");
  if (*rc::gen::arbitrary<bool>()) w->dtype = Dtype::U8;
  else s->dtype = *element(Dtype::F16, Dtype::BF16, Dtype::F64);
  return layer_rejects(*l, "w4a4 dtypes", kW4a4Dtypes, {{"weight_dtype", dt(w->dtype)}, {"scale_dtype", dt(s->dtype)}});
}

Applied w4a4_shapes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a4);
  if (!l) return {};
  QTensor* s = l->find("weight_scale");
  s->shape = *element(Shape{l->n, 1}, Shape{l->n + 1}, Shape{});
  return layer_rejects(*l, "w4a4 scale shape", kW4a4Shapes,
                       {{"weight_shape", shape(l->find("weight")->shape)}, {"scale_shape", shape(s->shape)}});
}

Applied w4a4_groupsize(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a4);
  if (!l) return {};
  marker_set(l->marker, "convrot_groupsize", "4");  // a power of 4 dividing K, not in (16, 64, 256)
  return layer_rejects(*l, "w4a4 C = 4", kW4a4Group, {{"convrot_group_size", "4"}});
}

Applied w4a4_k(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a4);
  if (!l) return {};
  l->k += 32;  // K % 64 == 32
  l->find("weight")->shape = {l->n, l->k / 2};
  return layer_rejects(*l, "w4a4 K = " + std::to_string(l->k), kW4a4K,
                       {{"logical_input_size", std::to_string(l->k)}, {"convrot_group_size", w4a4_c(*l)}});
}

Applied w4a4_linear_dtype(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a4);
  if (!l) return {};
  struct V {
    std::string_view json, repr;
  };
  const V v = *element(V{"\"fp8\"", "'fp8'"}, V{"\"INT4\"", "'INT4'"}, V{"8", "'8'"});  // str() first (S15.5)
  marker_set(l->marker, "linear_dtype", std::string(v.json));
  Applied a = rejects("linear_dtype " + std::string(v.json) + " on " + l->prefix, kS155,
                      {{"prefix!r", repr(l->prefix)}, {"linear_dtype!r", std::string(v.repr)}}, Stage::Config, l->prefix);
  a.step = 1;
  return a;
}

// ---- asym_w4a8_int8 (L16, S9.3, S12, S13, K1, K6, K7) ---------------------

std::uint64_t w4a8_g(const QLayer& l) {
  const std::string* g = marker_get(l.marker, "group_size");
  return g ? std::stoull(*g) : 16;
}

// A new group size g: s_rel and the correction follow K // g.
void w4a8_regroup(QLayer& l, std::uint64_t g, std::string json) {
  marker_set(l.marker, "group_size", std::move(json));
  l.find("weight_s_rel")->shape = {l.n, l.k / g};
  if (QTensor* corr = l.find("weight_correction")) corr->shape = {l.k / g, l.n};
}

Applied w4a8_tensors(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  const int which = *inRange(0, 3);
  std::vector<std::string> missing;
  if (which != 1) missing.push_back(l->name("weight_s_rel"));
  if (which != 0) missing.push_back(l->name("weight_s_channel"));
  std::erase_if(l->tensors, [&](const QTensor& t) { return std::count(missing.begin(), missing.end(), t.name) > 0; });
  return layer_rejects(*l, "w4a8 scales missing", kS91, {{"sorted(missing)", safespec::quant::sorted_list_repr(missing)}});
}

Applied w4a8_group_size(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  struct V {
    std::uint64_t g;
    std::string_view json;
  };
  const V v = *element(V{1, "1"}, V{2, "2"}, V{3, "3"}, V{1, "true"});  // int(True) == 1
  w4a8_regroup(*l, v.g, std::string(v.json));
  Applied a = layer_rejects(*l, "group_size " + std::string(v.json), kA1, {{"group_size", std::to_string(v.g)}});
  a.companions = {RuleId::QuantW4a8K};  // S13.5 and K1.2 also demand G >= 4
  return a;
}

Applied w4a8_dtypes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  QTensor* w = l->find("weight");
  QTensor* s = l->find("weight_s_rel");
  if (*rc::gen::arbitrary<bool>()) w->dtype = Dtype::U8;
  else s->dtype = *element(Dtype::U8, Dtype::F32, Dtype::F16);
  return layer_rejects(*l, "w4a8 dtypes", kA2, {{"weight_dtype", dt(w->dtype)}, {"scale_dtype", dt(s->dtype)}});
}

Applied w4a8_channel_dtype(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  QTensor* s = l->find("weight_s_channel");
  s->dtype = *element(Dtype::F16, Dtype::BF16, Dtype::F64);
  return layer_rejects(*l, "w4a8 channel dtype", kA3, {{"channel_dtype", dt(s->dtype)}});
}

Applied w4a8_weight_rank(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  QTensor* w = l->find("weight");
  w->shape = *element(Shape{1, l->n, l->k / 2}, Shape{l->n * l->k / 2});
  return layer_rejects(*l, "non-2-D w4a8 weight", kA4, {{"weight_shape", shape(w->shape)}});
}

Applied w4a8_shapes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  QTensor* s = l->find("weight_s_rel");
  QTensor* ch = l->find("weight_s_channel");
  switch (*inRange(0, 4)) {
    case 0: ch->shape = {l->n, 1}; break;
    case 1: ch->shape = {l->n + 1}; break;
    case 2: s->shape[1] += 1; break;
    default: s->shape[0] += 1; break;
  }
  return layer_rejects(*l, "w4a8 scale shapes", kA5,
                       {{"weight_shape", shape(l->find("weight")->shape)}, {"scale_shape", shape(s->shape)},
                        {"channel_shape", shape(ch->shape)}});
}

Applied w4a8_codebook(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  std::erase_if(l->tensors, [&](const QTensor& t) { return t.name == l->name("weight_codebook"); });
  struct V {
    Dtype d;
    Shape s;
  };
  const V v = *element(V{Dtype::F32, {17}}, V{Dtype::F16, {16}}, V{Dtype::F32, {1, 16}}, V{Dtype::BF16, {16}});
  l->tensors.push_back(QTensor{l->name("weight_codebook"), v.d, v.s, {}});
  return layer_rejects(*l, "bad codebook", kA7, {});
}

Applied w4a8_correction(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  std::erase_if(l->tensors, [&](const QTensor& t) { return t.name == l->name("weight_correction"); });
  const std::uint64_t groups = l->k / w4a8_g(*l);
  struct V {
    Dtype d;
    Shape s;
  };
  V v = *element(V{Dtype::BF16, {groups, l->n}}, V{Dtype::F16, {groups, l->n}}, V{Dtype::F32, {l->n, groups}},
                 V{Dtype::F32, {groups, l->n + 1}});
  if (v.d == Dtype::F32 && v.s == Shape{groups, l->n}) v.s = {groups, l->n + 1};  // transposed square
  l->tensors.push_back(QTensor{l->name("weight_correction"), v.d, v.s, {}});
  return layer_rejects(*l, "bad correction", kA8, {});
}

Applied w4a8_correction_ignored(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  if (!l->find("weight_correction"))
    l->tensors.push_back(QTensor{l->name("weight_correction"), Dtype::F32, {l->k / w4a8_g(*l), l->n}, {}});
  return accepts("F32 correction on " + l->prefix);
}

Applied w4a8_convrot(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  if (*rc::gen::arbitrary<bool>()) marker_erase(l->marker, "convrot");  // G1: ComfyUI's writer
  else marker_set(l->marker, "convrot", *element<std::string>("false", "1", "\"true\"", "1.0"));
  return rejects("convrot not true on " + l->prefix, kS12Convrot, {{"prefix!r", repr(l->prefix)}}, Stage::Config,
                 l->prefix);
}

Applied w4a8_k(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  // G >= 4 (A1 passes) but 16 % G != 0 and G % 16 != 0, or K % 48 != 0.
  std::uint64_t g = *element<std::uint64_t>(12, 24, 40, 48);
  if (g == 48 && l->k % 48 == 0) g = 12;
  w4a8_regroup(*l, g, std::to_string(g));
  const std::string* cs = marker_get(l->marker, "convrot_groupsize");
  Applied a = rejects("group_size " + std::to_string(g) + " on " + l->prefix, kS135,
                      {{"prefix!r", repr(l->prefix)}, {"layer.input_size", std::to_string(l->k)},
                       {"group_size", std::to_string(g)}, {"convrot_group_size", cs ? *cs : "256"}},
                      Stage::Method, l->prefix);
  return a;
}

Applied w4a8_hadamard(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  marker_set(l->marker, "convrot_groupsize", *element<std::string>("128", "32", "8"));  // not powers of 4, divide K
  Applied a = accepts("non-power-of-4 C on " + l->prefix);  // S13.5 tests K % C only (G5)
  a.companions = {RuleId::QuantW4a8CudaGroupsize};           // K7 needs C == 256
  return a;
}

Applied w4a8_cuda_groupsize(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  marker_set(l->marker, "convrot_groupsize", *element<std::string>("64", "16", "4"));
  return accepts("C != 256 on " + l->prefix);
}

// ---- awq_w4a16 (L17, CL only) ---------------------------------------------

Applied awq_tensors(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Awq);
  if (!l) return {};
  const int which = *inRange(0, 3);
  std::erase_if(l->tensors, [&](const QTensor& t) {
    return (which != 1 && t.name == l->name("weight_scale")) || (which != 0 && t.name == l->name("weight_zeros"));
  });
  Applied a;
  a.ok = true;
  a.what = "awq companions missing on " + l->prefix;
  return a;
}

Applied awq_shapes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Awq);
  if (!l) return {};
  QTensor* t = l->find(*rc::gen::arbitrary<bool>() ? "weight_scale" : "weight_zeros");
  const Shape was = t->shape;
  t->shape = *element(Shape{was[1], was[0]}, Shape{was[0] + 1, was[1]}, Shape{was[0], was[1] + 1});
  if (t->shape == was) t->shape[0] += 1;
  Applied a;
  a.ok = true;
  a.what = t->name + " reshaped";
  return a;
}

rc::Gen<QCheckpoint> any_valid() { return valid_checkpoint(); }
template <Format F>
rc::Gen<QCheckpoint> valid_with() { return valid_checkpoint_with(F); }
rc::Gen<QCheckpoint> w4a8_or_nvfp4() {
  return rc::gen::oneOf(valid_checkpoint_with(Format::W4a8), valid_checkpoint_with(Format::Nvfp4));
}
rc::Gen<QCheckpoint> w4a8_or_w4a4() {
  return rc::gen::oneOf(valid_checkpoint_with(Format::W4a8), valid_checkpoint_with(Format::W4a4));
}
// KitchenInt8Config runs S17 only for an int8-only checkpoint.
rc::Gen<QCheckpoint> int8_only() { return valid_checkpoint_of({Format::Int8}); }
rc::Gen<QCheckpoint> awq() { return comfy_checkpoint_with(Format::Awq); }

using R = RuleId;
constexpr bool kCombine = true, kAlone = false;

const QuantMutation kCatalogue[] = {
    {"marker-bytes-not-json", R::QuantMarkerJson, any_valid, marker_json, kCombine},
    {"marker-not-object", R::QuantMarkerNotObject, any_valid, marker_not_object, kCombine},
    {"marker-over-1mib", R::QuantMarkerTooLarge, any_valid, marker_too_large, kAlone},
    {"marker-utf8-bom", R::QuantMarkerEncoding, any_valid, marker_bom, kAlone},
    {"marker-tensor-dtype", R::QuantMarkerDtype, any_valid, marker_dtype, kAlone},
    {"qmeta-not-json", R::QuantMetaJson, any_valid, qmeta_json, kAlone},
    {"qmeta-not-object", R::QuantMetaNotObject, any_valid, qmeta_not_object, kAlone},
    {"qmeta-no-layers-object", R::QuantMetaLayers, any_valid, qmeta_layers, kAlone},
    {"qmeta-layer-not-object", R::QuantMetaLayerNotObject, any_valid, qmeta_layer_not_object, kCombine},
    {"marker-declared-twice", R::QuantMarkerConflict, any_valid, marker_conflict, kCombine},
    {"marker-without-tensors", R::QuantMarkerOrphan, any_valid, marker_orphan, kAlone},
    {"quantized-weight-unmarked", R::QuantMarkerMissing, any_valid, marker_missing, kCombine},
    {"legacy-scaled-fp8", R::QuantLegacyScaledFp8, any_valid, legacy_scaled_fp8, kAlone},
    {"quant-format-mxfp8", R::QuantMxfp8Global, any_valid, mxfp8_global, kAlone},
    {"format-missing", R::QuantFormatMissing, any_valid, format_missing, kAlone},
    {"format-unknown", R::QuantFormatUnknown, any_valid, format_unknown, kAlone},
    {"format-set-unresolved", R::QuantSglangFormats, any_valid, sglang_formats_mix, kAlone},
    {"config-companion", R::QuantSglangCompanion, w4a8_or_nvfp4, sglang_companion, kAlone},
    {"key-mistyped", R::QuantKeyType, any_valid, key_type, kAlone},
    {"key-int-fails", R::QuantKeyInt, w4a8_or_w4a4, key_int, kAlone},
    {"keys-only-in-params", R::QuantParamsNested, valid_with<Format::W4a8>, params_nested, kAlone},
    {"fp8-weight-cast", R::QuantWeightCast, valid_with<Format::Fp8E4m3>, weight_cast, kAlone},
    {"mxfp8-scale-e8m0", R::QuantDtypeComfyMmap, valid_with<Format::Mxfp8>, dtype_comfy_mmap, kAlone},
    {"fp8-no-scale", R::QuantFp8Tensors, valid_with<Format::Fp8E4m3>, fp8_tensors, kCombine},
    {"fp8-scale-not-scalar", R::QuantFp8Scale, valid_with<Format::Fp8E4m3>, fp8_scale, kAlone},
    {"fp8-weight-not-2d", R::QuantFp8Weight, valid_with<Format::Fp8E4m3>, fp8_weight, kAlone},
    {"nvfp4-scales-missing", R::QuantNvfp4Tensors, valid_with<Format::Nvfp4>, nvfp4_tensors, kCombine},
    {"nvfp4-dtypes", R::QuantNvfp4Dtypes, valid_with<Format::Nvfp4>, nvfp4_dtypes, kCombine},
    {"nvfp4-global-scale", R::QuantNvfp4GlobalScale, valid_with<Format::Nvfp4>, nvfp4_global_scale, kCombine},
    {"nvfp4-weight-not-2d", R::QuantNvfp4WeightRank, valid_with<Format::Nvfp4>, nvfp4_weight_rank, kAlone},
    {"nvfp4-swizzled-scale", R::QuantNvfp4Shapes, valid_with<Format::Nvfp4>, nvfp4_shapes, kCombine},
    {"nvfp4-logical-scale", R::QuantNvfp4Layout, valid_with<Format::Nvfp4>, nvfp4_layout, kAlone},
    {"nvfp4-pre-quant-scale", R::QuantNvfp4PreQuantScale, valid_with<Format::Nvfp4>, nvfp4_pre_quant_scale, kCombine},
    {"nvfp4-no-full-precision", R::QuantNvfp4FullPrecision, valid_with<Format::Nvfp4>, nvfp4_full_precision, kCombine},
    {"mxfp8-no-scale", R::QuantMxfp8Tensors, valid_with<Format::Mxfp8>, mxfp8_tensors, kAlone},
    {"mxfp8-scale-dtype", R::QuantMxfp8Dtypes, valid_with<Format::Mxfp8>, mxfp8_dtypes, kAlone},
    {"mxfp8-scale-shape", R::QuantMxfp8Layout, valid_with<Format::Mxfp8>, mxfp8_layout, kAlone},
    {"int8-no-scale", R::QuantInt8Tensors, valid_with<Format::Int8>, int8_tensors, kAlone},
    {"int8-weight-not-2d", R::QuantInt8WeightRank, valid_with<Format::Int8>, int8_weight_rank, kAlone},
    {"int8-dtypes", R::QuantInt8Dtypes, valid_with<Format::Int8>, int8_dtypes, kAlone},
    {"int8-scale-shape", R::QuantInt8Shapes, valid_with<Format::Int8>, int8_shapes, kAlone},
    {"int8-no-convrot", R::QuantInt8Convrot, int8_only, int8_convrot, kAlone},
    {"int8-convrot-groupsize", R::QuantInt8ConvrotGroupsize, int8_only, int8_convrot_groupsize, kAlone},
    {"w4a4-no-scale", R::QuantW4a4Tensors, valid_with<Format::W4a4>, w4a4_tensors, kCombine},
    {"w4a4-dtypes", R::QuantW4a4Dtypes, valid_with<Format::W4a4>, w4a4_dtypes, kCombine},
    {"w4a4-scale-shape", R::QuantW4a4Shapes, valid_with<Format::W4a4>, w4a4_shapes, kCombine},
    {"w4a4-groupsize-4", R::QuantW4a4Groupsize, valid_with<Format::W4a4>, w4a4_groupsize, kCombine},
    {"w4a4-k-not-64", R::QuantW4a4K, valid_with<Format::W4a4>, w4a4_k, kCombine},
    {"w4a4-linear-dtype", R::QuantW4a4LinearDtype, valid_with<Format::W4a4>, w4a4_linear_dtype, kAlone},
    {"w4a8-scales-missing", R::QuantW4a8Tensors, valid_with<Format::W4a8>, w4a8_tensors, kCombine},
    {"w4a8-group-size-below-4", R::QuantW4a8GroupSize, valid_with<Format::W4a8>, w4a8_group_size, kAlone},
    {"w4a8-dtypes", R::QuantW4a8Dtypes, valid_with<Format::W4a8>, w4a8_dtypes, kCombine},
    {"w4a8-channel-dtype", R::QuantW4a8ChannelDtype, valid_with<Format::W4a8>, w4a8_channel_dtype, kCombine},
    {"w4a8-weight-not-2d", R::QuantW4a8WeightRank, valid_with<Format::W4a8>, w4a8_weight_rank, kCombine},
    {"w4a8-scale-shapes", R::QuantW4a8Shapes, valid_with<Format::W4a8>, w4a8_shapes, kCombine},
    {"w4a8-codebook", R::QuantW4a8Codebook, valid_with<Format::W4a8>, w4a8_codebook, kCombine},
    {"w4a8-correction", R::QuantW4a8Correction, valid_with<Format::W4a8>, w4a8_correction, kCombine},
    {"w4a8-correction-present", R::QuantW4a8CorrectionIgnored, valid_with<Format::W4a8>, w4a8_correction_ignored, kAlone},
    {"w4a8-no-convrot", R::QuantW4a8Convrot, valid_with<Format::W4a8>, w4a8_convrot, kCombine},
    {"w4a8-k-predicate", R::QuantW4a8K, valid_with<Format::W4a8>, w4a8_k, kCombine},
    {"w4a8-c-not-power-of-4", R::QuantW4a8Hadamard, valid_with<Format::W4a8>, w4a8_hadamard, kAlone},
    {"w4a8-c-not-256", R::QuantW4a8CudaGroupsize, valid_with<Format::W4a8>, w4a8_cuda_groupsize, kAlone},
    {"awq-companions-missing", R::QuantAwqTensors, awq, awq_tensors, kAlone},
    {"awq-scale-shape", R::QuantAwqShapes, awq, awq_shapes, kAlone},
    {"int8-k-past-int32", R::QuantKInt32, valid_with<Format::Int8>, k_int32, kAlone},
};

}  // namespace

std::span<const QuantMutation> quant_mutation_catalogue() { return kCatalogue; }

std::string fill_template(std::string_view tmpl, const std::vector<std::pair<std::string, std::string>>& args) {
  std::string out;
  std::size_t i = 0;
  while (i < tmpl.size()) {
    bool replaced = false;
    if (tmpl[i] == '{')
      for (const auto& [name, value] : args)
        if (tmpl.substr(i + 1, name.size()) == name && tmpl.substr(i + 1 + name.size(), 1) == "}") {
          out += value;
          i += name.size() + 2;
          replaced = true;
          break;
        }
    if (!replaced) out += tmpl[i++];
  }
  return out;
}

std::string expected_sglang_message(const Applied& a) { return fill_template(a.sg_template, a.args); }

std::array<std::uint64_t, 4> sglang_position(const QCheckpoint& c, const Applied& a) {
  const std::uint64_t f = a.file;
  switch (a.stage) {
    case Stage::Qmeta: return {1, f, 1, a.step};
    case Stage::QmetaLayer: {
      std::uint64_t i = 0;
      for (const QLayer& l : c.layers) i += l.file == a.file && l.site == Site::Metadata;
      for (const MarkerEntry& e : c.files[a.file].qmeta_extra) {
        if (e.key == a.key) break;
        ++i;
      }
      return {1, f, 2, i};
    }
    case Stage::TensorMarker: {
      std::vector<std::string> keys;
      for (const QTensor& t : file_tensors(c, a.file))
        if (t.name.size() >= 12 && t.name.compare(t.name.size() - 12, 12, ".comfy_quant") == 0) keys.push_back(t.name);
      std::sort(keys.begin(), keys.end());
      return {1, f, 3, static_cast<std::uint64_t>(std::find(keys.begin(), keys.end(), a.key) - keys.begin())};
    }
    case Stage::Mxfp8Global: return {2, 0, 0, 0};
    case Stage::Missing: return {2, 1, 0, 0};
    case Stage::Layer: return {3, sglang_index(c, a.key), a.step, 0};
    case Stage::Resolution: return {5, 0, 0, 0};
    case Stage::Config: return {5, 1, sglang_index(c, a.key), a.step};
    case Stage::Method: return {5, 2, sglang_index(c, a.key), a.step};
    case Stage::None: break;
  }
  return {9, 0, 0, 0};
}

std::string expected_config(const QCheckpoint& c) {
  const auto f = sglang_formats(c);
  if (f.empty()) return "None";
  using V = std::vector<std::string>;
  if (f == V{"int8_tensorwise"}) return "KitchenInt8Config";
  if (f == V{"asym_w4a8_int8"} || f == V{"asym_w4a8_int8", "int8_tensorwise"}) return "KitchenW4A8Config";
  if (f == V{"convrot_w4a4"} || f == V{"convrot_w4a4", "int8_tensorwise"}) return "KitchenW4A4Config";
  if (f == V{"float8_e4m3fn"}) return "ComfyFp8Config";
  if (f == V{"nvfp4"} || f == V{"int8_tensorwise", "nvfp4"}) return "ComfyNvfp4Config";
  if (f == V{"mxfp8"}) return "MXFP8Config";
  return "";
}

}  // namespace safespec::gen::quant
