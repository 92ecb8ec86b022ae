// sglang's get_quant_method per marked layer as far as it depends on the
// layer's kind (comfy-quant-markers.md §3.6 S13.1-S13.3, §3.10 S19).
#include "spec/quant/layer_kinds.hpp"

#include "spec/quant/marker_values.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"
#include "spec/quant/resolution.hpp"
#include "spec/quant/sglang_versions.hpp"

namespace safespec::quant {

namespace {


// The marker as sglang holds it after S9.3: its JSON keys, then the private
// flags A6 sets (a key already present keeps its position).
py::Value w4a8_marker_with_flags(const Layer& l, const TensorTable& t) {
  py::Value m = *l.marker;
  auto& items = std::get<py::Dict>(m.data).items;
  const auto set = [&](const char* key, bool v) {
    for (py::DictEntry& e : items)
      if (const auto* s = std::get_if<std::string>(&e.key.data); s && *s == key) {
        e.value = py::Value(v);
        return;
      }
    items.push_back(py::DictEntry{py::Value(key), py::Value(v)});
  };
  set("_has_codebook", t.find(tensor_name(l, "weight_codebook")) != nullptr);
  set("_has_correction", t.find(tensor_name(l, "weight_correction")) != nullptr);
  return m;
}

}  // namespace

std::string_view layer_kind_name(LayerKind k) { return k == LayerKind::Linear ? "linear" : "embedding"; }

std::optional<LayerKind> parse_layer_kind(std::string_view s) {
  if (s == "linear") return LayerKind::Linear;
  if (s == "embedding") return LayerKind::Embedding;
  return std::nullopt;
}

std::optional<LayerKind> LayerKinds::of(std::string_view prefix) const {
  if (auto it = named.find(prefix); it != named.end()) return it->second;
  if (all_linear) return LayerKind::Linear;
  return std::nullopt;
}

std::string assumption_text(const Assumption& a) {
  std::string out = a.about_kind() ? repr(a.layer) + (a.kind == LayerKind::Embedding ? " is an embedding layer"
                                                                                      : " is a Linear layer")
                                   : a.machine;
  if (a.otherwise.error.empty()) return out + "; otherwise unknown: " + a.otherwise.message;
  return out + "; otherwise " + a.otherwise.error + ": " + a.otherwise.message;
}

namespace {

// A verdict safespec cannot settle for `versions` of sglang: why, at `order`.
Verdict unknown_for(std::string why, CheckOrder order, VersionMask versions) {
  return Verdict{Consumer::Sglang, Effect::Rejects, "", std::move(why), order, 0, versions};
}


struct KindCheck {
  const Layer& l;
  const TensorTable& t;
  std::optional<LayerKind> kind;
  Sink& out;
  std::vector<Assumption>& assumptions;

  void add(std::string message, std::vector<Verdict> v) const {
    out.add(l.file, RuleId::QuantSglangCompanion, Place::layer(l.prefix), std::move(message), std::move(v));
  }

  // An int8 companion the config let through beside `main` layers raises on
  // a Linear layer (S13.3, S19) in `versions`: assumed an embedding when
  // the kind is not known, refused when it is Linear.
  void companion_on_linear(std::string_view main, VersionMask versions) const {
    const Verdict linear =
        for_versions(verdict(Msg::KindsSgLinearMarker, At{l.index}, {{"prefix!r", repr(l.prefix)}}), versions);
    if (!kind)
      assumptions.push_back(Assumption{l.prefix, LayerKind::Embedding, linear});
    else if (*kind == LayerKind::Linear)
      add("expected an int8 embedding marker beside " + std::string(main) +
              " layers to be on an embedding layer, found it on a Linear layer (S13.3)",
          {linear});
  }
};

// KitchenW4A8Config: the int8 markers its constructor let through raise on
// a Linear layer (S13.3); a W4A8 marker raises on an embedding (S13.1) in
// the versions with an embedding branch, and gets no quant method in those
// without one.
void w4a8_kinds(const KindCheck& k) {
  bool none = false;
  const VersionMask passed =
      sglang_versions_where([&](const SglangConfigSet& s) { return w4a8_passes(s.w4a8_passes, k.l, k.t); }, none);
  if (!none) {
    k.companion_on_linear("W4A8", passed);
    return;
  }
  if (!k.l.is(QuantFormat::W4a8) || k.kind != LayerKind::Embedding) return;
  bool no_branch = false, no_raise = false;
  const VersionMask raising = sglang_versions_where([](const SglangConfigSet& s) { return s.w4a8_embedding_branch; }, no_raise);
  const VersionMask silent = sglang_versions_where([](const SglangConfigSet& s) { return !s.w4a8_embedding_branch; }, no_branch);
  std::vector<Verdict> v;
  if (!no_raise)
    v.push_back(for_versions(verdict(Msg::KindsSgEmbeddingMarker, At{k.l.index},
                                     {{"prefix!r", repr(k.l.prefix)}, {"marker", py::repr(w4a8_marker_with_flags(k.l, k.t))}}),
                             raising));
  if (!no_branch)
    v.push_back(unknown_for("this KitchenW4A8Config has no embedding branch: the embedding " + repr(k.l.prefix) +
                                " gets no quant method, and what the weight loader then does with its W4A8 tensors "
                                "is not modelled",
                            order::sg_method(k.l.index, 0), silent));
  k.add("expected a W4A8 marker on a Linear layer, found it on an embedding layer (S13.1)", std::move(v));
}

// ComfyNvfp4Config lets row-wise int8 markers through; they raise on a
// Linear layer (S19). (What it does with an NVFP4 marker on an embedding
// is not recorded.)
void nvfp4_kinds(const KindCheck& k) {
  if (is_rowwise_int8(k.l, k.t)) k.companion_on_linear("NVFP4", 0);
}

// ConvRotInt8Config (the versions that read int8 markers with it): an int8
// embedding marker is skipped, so only an embedding of an int8-only
// checkpoint gets its method (ComfyInt8EmbeddingMethod); a Linear layer gets
// UnquantizedLinearMethod, and under KitchenW4A4Config an embedding gets
// none. What the weight loader does in those cases is not modelled. A
// layer it serves with group 64 or 256 and an output width that is not a
// multiple of 8 loads through comfy_kitchen, and has no kernel without it.
void convrot_int8_kinds(const KindCheck& k) {
  if (!k.l.is(QuantFormat::Int8)) return;
  const bool w4a4 = k.l.sglang_config == format_spec(QuantFormat::W4a4).sglang_config;
  bool none = false;
  const VersionMask convrot = sglang_versions_where(
      [&](const SglangConfigSet& s) {
        const Int8Class* c = int8_class_for(s, k.l.sglang_config);
        return c && int8_class_info(*c).skips_embeddings;
      },
      none);
  if (none) return;
  if (is_int8_embedding(k.l, k.t)) {
    const std::string linear = "ConvRotInt8Config skips the int8 marker of " + repr(k.l.prefix) +
                               " as an embedding's and gives the Linear layer UnquantizedLinearMethod; what the weight "
                               "loader then does with its I8 weight and F32 weight_scale is not modelled";
    const std::string embedding = "KitchenW4A4Config gives the embedding " + repr(k.l.prefix) +
                                  " no quant method (only Linear layers get one); what the weight loader then does "
                                  "with its int8 tensors is not modelled";
    const CheckOrder at = order::sg_method(k.l.index, 0);
    const std::string found = "expected an int8 embedding marker that sglang's ConvRotInt8Config skips to be on an "
                              "embedding layer of an int8-only checkpoint, found ";
    if (w4a4 && k.kind) {
      k.add(found + "it beside W4A4 layers", {unknown_for(*k.kind == LayerKind::Linear ? linear : embedding, at, convrot)});
    } else if (w4a4) {
      k.add(found + "it beside W4A4 layers", {unknown_for(linear + "; on an embedding: " + embedding, at, convrot)});
    } else if (!k.kind) {
      k.assumptions.push_back(Assumption{k.l.prefix, LayerKind::Embedding, unknown_for(linear, at, convrot)});
    } else if (*k.kind == LayerKind::Linear) {
      k.add(found + "it on a Linear layer", {unknown_for(linear, at, convrot)});
    }
    return;
  }
  const TensorRef* w = k.t.find(tensor_name(k.l, "weight"));
  const py::Value* group = get(*k.l.marker, "convrot_groupsize");
  if (!w || w->entry->shape.size() != 2 || !group || w->entry->shape[0] % 8 == 0) return;
  if (!py::py_equal(*group, py::Value(64)) && !py::py_equal(*group, py::Value(256))) return;
  const Verdict no_kernel = for_versions(
      verdict(Msg::Int8SgConvRotNoKernel, At{k.l.index},
              {{"prefix!r", repr(k.l.prefix)}, {"group_size", py::str(*group)}, {"out_size", std::to_string(w->entry->shape[0])}}),
      convrot);
  k.assumptions.push_back(Assumption{k.l.prefix, LayerKind::Linear, no_kernel,
                                     "comfy_kitchen is installed"});
}

}  // namespace

void check_layer_kinds(const std::vector<Layer>& layers, const TensorTable& t, const LayerKinds& kinds, Sink& out,
                       std::vector<Assumption>& assumptions) {
  for (const Layer& l : layers) {
    const KindCheck k{l, t, kinds.of(l.prefix), out, assumptions};
    if (l.sglang_config == format_spec(QuantFormat::W4a8).sglang_config) w4a8_kinds(k);
    if (l.sglang_config == format_spec(QuantFormat::Nvfp4).sglang_config) nvfp4_kinds(k);
    convrot_int8_kinds(k);
  }
}

}  // namespace safespec::quant
