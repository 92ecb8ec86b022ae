// sglang's get_quant_method per marked layer as far as it depends on the
// layer's kind (comfy-quant-markers.md §3.6 S13.1-S13.3, §3.10 S19).
#include "spec/quant/layer_kinds.hpp"

#include "spec/quant/marker_values.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"
#include "spec/quant/resolution.hpp"

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

void check_layer_kinds(const std::vector<Layer>& layers, const TensorTable& t, const LayerKinds& kinds, Sink& out,
                       std::vector<Assumption>& assumptions) {
  for (const Layer& l : layers) {
    const bool w4a8 = l.sglang_config == format_spec(QuantFormat::W4a8).sglang_config;
    const bool nvfp4 = l.sglang_config == format_spec(QuantFormat::Nvfp4).sglang_config;
    if (!w4a8 && !nvfp4) return;
    const std::optional<LayerKind> kind = kinds.of(l.prefix);
    // The markers each config's constructor lets through beside its own.
    const bool companion = w4a8 ? is_int8_embedding(l, t) : is_rowwise_int8(l, t);
    if (companion) {
      const Verdict linear = verdict(Msg::KindsSgLinearMarker, At{l.index}, {{"prefix!r", repr(l.prefix)}});
      if (!kind) {
        assumptions.push_back(Assumption{l.prefix, LayerKind::Embedding, linear});
      } else if (*kind == LayerKind::Linear) {
        out.add(l.file, RuleId::QuantSglangCompanion, Place::layer(l.prefix),
                "expected an int8 embedding marker beside " + std::string(w4a8 ? "W4A8" : "NVFP4") +
                    " layers to be on an embedding layer, found it on a Linear layer (S13.3)",
                {linear});
      }
      continue;
    }
    // S13.1: a W4A8 marker on an embedding. (What ComfyNvfp4Config does with
    // an NVFP4 marker on an embedding is not recorded.)
    if (w4a8 && l.is(QuantFormat::W4a8) && kind == LayerKind::Embedding)
      out.add(l.file, RuleId::QuantSglangCompanion, Place::layer(l.prefix),
              "expected a W4A8 marker on a Linear layer, found it on an embedding layer (S13.1)",
              {verdict(Msg::KindsSgEmbeddingMarker, At{l.index}, {{"prefix!r", repr(l.prefix)}, {"marker", py::repr(w4a8_marker_with_flags(l, t))}})});
  }
}

}  // namespace safespec::quant
