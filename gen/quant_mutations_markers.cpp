// Mutations of markers and metadata (§1, S3, S6-S8, S11) for the catalogue
// (quant_mutations.hpp). Companions: a mutation lists another error rule only
// where its defect implies that rule's invariant is broken too, and says why
// next to it.
#include "gen/quant_mutation_tools.hpp"

namespace safespec::gen::quant::mut {

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
  Applied a;  // read and parsed all the same: 1,048,577 NUL bytes are not JSON (UTF-32-BE, M3)
  a.ok = true;
  a.what = "1 MiB + 1 marker " + key;
  a.companions = {RuleId::QuantMarkerJson};
  return a;
}

Applied marker_padded(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick(c, used, [](const QLayer&) { return true; });
  if (!l) return {};
  l->site = Site::Tensor;
  std::string bytes = json_dumps(l->marker);
  bytes.resize((std::size_t{1} << 20) + 1, ' ');
  l->marker_bytes = std::move(bytes);  // JSON whitespace after the value (M3)
  return accepts("marker of " + l->prefix + " padded with spaces to 1 MiB + 1");
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

// The required tensors S9.1 names for a format sglang validates, or {}:
// the format table's required rows, in its order.
std::vector<std::string> s91_required(Format f) {
  const safespec::quant::FormatSpec& spec = safespec::quant::format_spec(f);
  std::vector<std::string> out;
  if (!spec.sglang_validates) return out;
  for (const safespec::quant::FormatTensor& t : spec.tensors)
    if (t.required) out.emplace_back(t.suffix);
  return out;
}

RuleId tensors_rule(Format f) { return safespec::quant::format_spec(f).tensors_rule; }

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
  // The formats ComfyUI registers (a layer ComfyUI refuses by name is another rule's).
  for (const safespec::quant::FormatSpec& spec : safespec::quant::all_formats()) {
    if (!spec.comfyui_registers) continue;
    const Format f = spec.format;
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
  // Values equal to sglang's defaults (the row's): only where they sit differs.
  const safespec::quant::MarkerDefaults& d = safespec::quant::marker_defaults(Format::W4a8);
  const std::string g_default = std::to_string(d.group_size);
  std::string params = "{\"convrot_groupsize\": " + std::to_string(d.convrot_groupsize);
  marker_erase(l->marker, "convrot_groupsize");
  const std::string* g = marker_get(l->marker, "group_size");
  if ((!g || *g == g_default) && *rc::gen::arbitrary<bool>()) {
    marker_erase(l->marker, "group_size");
    params += ", \"group_size\": " + g_default;
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



}  // namespace safespec::gen::quant::mut
