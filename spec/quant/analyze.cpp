// The whole quantized-layer spec over one checkpoint: collect the markers
// (markers.cpp), resolve sglang's config (resolution.cpp), then every layer
// through the checks every format shares and its own format's module.
#include "spec/quant/analyze.hpp"

#include <set>

#include "spec/quant/legacy_int8_rules.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quant/markers.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"
#include "spec/quant/resolution.hpp"
#include "spec/quote.hpp"

namespace safespec::quant {

namespace {

using C = Consumer;
using E = Effect;


// C6: ComfyUI warns and leaves the marker and scales as unexpected keys;
// sglang's S9.1 (in each module) rejects the validated formats.
void check_orphan(const Layer& l, bool has_weight, Sink& out) {
  if (has_weight) return;
  out.add(l.file, RuleId::QuantMarkerOrphan, Place::layer(l.prefix),
          "expected the marked layer to have a tensor " + quote_name(tensor_name(l, "weight")) + ", found none",
          {verdict(Msg::LayerCuMissingWeight, At{l.index}, {{"layer_name", comfy_layer_name(l.prefix)}})});
}

// C10, C11; sglang judges formats only at resolution (S11).
void check_format(const Layer& l, Sink& out) {
  const py::Value* f = get(*l.marker, "format");
  const At at{l.index};
  if (!f || std::holds_alternative<py::None>(f->data)) {
    out.add(l.file, RuleId::QuantFormatMissing, Place::layer(l.prefix), "expected a \"format\" key, found none",
            {verdict(Msg::LayerCuUnknownFormat, at, {{"layer_name", comfy_layer_name(l.prefix)}})});
    return;
  }
  const auto* s = std::get_if<std::string>(&f->data);
  const FormatSpec* known = s ? find_format(*s) : nullptr;
  if (known && known->comfyui_registers) return;
  const std::string_view type = type_name(*f);
  const bool unhashable = type == "list" || type == "dict";
  out.add(l.file, RuleId::QuantFormatUnknown, Place::layer(l.prefix),
          "expected a format ComfyUI knows, found " + py::repr(*f),
          {unhashable ? verdict(Msg::LayerCuUnhashable, at, {{"type", std::string(type)}})
                      : verdict(Msg::LayerCuKeyError, at, {{"format!r", py::repr(*f)}})});
}

// §1.5: the JSON type of each known key. Consumers coerce a wrong type in
// different ways (sglang int()/str(), ComfyUI passes it on), so a wrong type
// is where they start to disagree.
void check_key_types(const Layer& l, Sink& out) {
  struct Key {
    std::string_view name;
    std::string_view type;
  };
  static constexpr Key kKeys[] = {{"format", "str"},        {"full_precision_matrix_mult", "bool"},
                                  {"convrot", "bool"},      {"convrot_groupsize", "int"},
                                  {"linear_dtype", "str"},  {"group_size", "int"},
                                  {"params", "dict"},       {"num_experts", "int"}};
  for (const Key& k : kKeys) {
    const py::Value* v = get(*l.marker, k.name);
    if (!v || type_name(*v) == k.type) continue;
    if (k.name == "format" && std::holds_alternative<py::None>(v->data)) continue;  // CQ-FORMAT-MISSING
    out.add(l.file, RuleId::QuantKeyType, Place::layer(l.prefix),
            "expected \"" + std::string(k.name) + "\" to be a JSON " + std::string(k.type == "str" ? "string" : k.type == "dict" ? "object" : k.type == "int" ? "integer" : "boolean") +
                ", found " + py::repr(*v),
            {});
  }
}

// G4: ComfyUI falls back to params, sglang never reads it.
void check_params(const Layer& l, Sink& out) {
  const py::Value* params = get(*l.marker, "params");
  if (!params || !is_dict(*params)) return;
  for (std::string_view key : {"convrot", "convrot_groupsize", "linear_dtype", "group_size"}) {
    const py::Value* nested = get(*params, key);
    if (!nested || get(*l.marker, key)) continue;
    // sglang computes with its default instead: a mis-load when the nested
    // value differs from it. A nested convrot is refused outright where sglang
    // needs it (CQ-W4A8-CONVROT, CQ-INT8-CONVROT), so it needs no verdict here.
    // sglang's defaults for these keys are its W4A8 config's (W4A4's C is the same).
    const MarkerDefaults& sg = marker_defaults(QuantFormat::W4a8);
    const py::Value fallback = key == "group_size" ? py::Value(sg.group_size)
                               : key == "convrot_groupsize" ? py::Value(sg.convrot_groupsize)
                               : key == "linear_dtype" ? py::Value("int4")
                                                       : py::Value(*nested);
    std::vector<Verdict> v;
    if (!py::py_equal(fallback, *nested)) v.push_back(Verdict{C::Sglang, E::MisLoads, "", "", order::sg_layer(l.index, 0)});
    out.add(l.file, RuleId::QuantParamsNested, Place::layer(l.prefix),
            "expected \"" + std::string(key) + "\" at the marker's top level, found it only in params (" +
                py::repr(*nested) + "): ComfyUI uses it, sglang uses its default",
            std::move(v));
  }
}

// Whether sglang gets through every check: no finding carries an sglang
// rejection.
bool sglang_accepts(const std::vector<LocatedFinding>& findings) {
  for (const LocatedFinding& lf : findings) {
    const Verdict* v = lf.finding.verdict(C::Sglang);
    if (v && v->effect == E::Rejects) return false;
  }
  return true;
}

// Whether nothing below can find a layer: no marker tensor, no
// _quantization_metadata, no legacy scaled_fp8 marker, and no tensor of a
// dtype that sglang tracks (S5: F8_E4M3, I8, U8) or ComfyUI casts (C8: also
// F8_E5M2). Such a checkpoint has no layer, so no finding, and sglang
// resolves "None"; saying so without the tensor table saves a third of
// `check`'s time on a plain 100,000-tensor checkpoint. A
// "quant_format" alone marks nothing: S7 only reaches tracked weights.
bool nothing_quantized(std::span<const CheckpointFile> files) {
  for (const CheckpointFile& f : files)
    if (!f.markers.empty() || (f.signs ? *f.signs : model_signs(*f.model)).other) return false;
  return true;
}

}  // namespace

ModelSigns model_signs(const Model& model) {
  ModelSigns s;
  for (const auto& [key, value] : model.header.metadata)
    if (key == "_quantization_metadata") s.other = true;
  for (const TensorEntry& t : model.header.tensors) {
    const Dtype d = t.dtype;
    const std::string_view name = t.name;
    if (d == Dtype::F8_E4M3 || d == Dtype::F8_E5M2 || d == Dtype::I8 || d == Dtype::U8 || name == "scaled_fp8" ||
        name.ends_with(".scaled_fp8"))
      s.other = true;
    if (name.ends_with(kMarkerSuffix)) s.marker = true;
    if (s.marker && s.other) break;
  }
  return s;
}

Analysis analyze(std::span<const CheckpointFile> files, const TensorData* data, const LayerKinds& kinds,
                 const ModelConfig* model_config) {
  // A config.json that says something of quantization is read even beside a
  // checkpoint without a quantized tensor (LI2, LI6).
  const ModelConfig* mc = model_config;
  const bool config_speaks =
      mc && (!mc->unread.empty() || !mc->type_error_source.empty() || mc->declares_legacy_int8());
  if (!config_speaks && nothing_quantized(files)) {
    Analysis none;
    none.sglang_config = std::string(resolve_config({}));
    return none;
  }
  const bool legacy = mc && mc->legacy_int8();
  Sink sink;
  if (mc) check_legacy_int8_config(*mc, sink);
  const TensorTable table(files);
  Collected collected = collect_markers(files, table, sink, legacy);
  if (legacy) check_legacy_int8_tensors(files, collected, *mc, sink);
  std::set<std::string> format_set;
  for (const Layer& l : collected.layers) format_set.insert(l.format);
  const std::vector<std::string> formats(format_set.begin(), format_set.end());
  const std::string_view config = resolve_config(formats);
  for (Layer& l : collected.layers) l.sglang_config = config;
  // The data rules of every layer first, as jobs the TensorData may run on
  // several threads, each into its own recorder; their calls are replayed
  // below where a sequential run would have made them. They read only the
  // layer, the table and the bytes, never what the header rules found.
  std::vector<Sink> data_out;
  if (data) {
    data_out.reserve(collected.layers.size());
    for (std::size_t i = 0; i < collected.layers.size(); ++i) data_out.push_back(Sink::recorder());
    data->run_jobs(collected.layers.size(), [&](std::size_t i) {
      const Layer& l = collected.layers[i];
      const FormatSpec* format = find_format(l.format);
      if (!format || !format->data_rules) return;
      format->data_rules(LayerCheck{l, table, data_out[i], *format}, *data);
    });
  }
  for (std::size_t i = 0; i < collected.layers.size(); ++i) {
    const Layer& l = collected.layers[i];
    const FormatSpec* format = find_format(l.format);
    const auto marker_checks = [&](bool has_weight) {
      check_orphan(l, has_weight, sink);
      check_format(l, sink);
      check_key_types(l, sink);
      check_params(l, sink);
    };
    if (!format) {
      marker_checks(table.find(tensor_name(l, "weight")) != nullptr);
      continue;
    }
    // The layer's rules share its lookups (LayerCheck::tensor).
    const LayerCheck c{l, table, sink, *format};
    marker_checks(c.weight() != nullptr);
    format->header_rules(c);
    check_layer_k_bound(c);
    if (data) std::move(data_out[i]).replay_into(sink);
  }
  check_resolution(collected.layers, table, formats, sink);
  Analysis a;
  check_layer_kinds(collected.layers, table, kinds, sink, a.assumptions);
  a.findings = sink.findings();
  a.unchecked = std::move(sink.unchecked());
  if (sglang_accepts(a.findings)) a.sglang_config = std::string(legacy ? kLegacyInt8Config : config);
  a.formats = formats;
  return a;
}

}  // namespace safespec::quant
