// LI1-LI6 (legacy_int8_rules.hpp), after sglang's MiniMax-H3 loader:
// vivym/sglang b8b85d66 python/sglang/multimodal_gen/runtime/loader/
// minimax_h3_weights.py (search-index id 69267248320),
// is_legacy_minimax_h3_int8_config, inspect_minimax_h3_safetensors and
// _validate_legacy_int8_tensors.
#include "spec/quant/legacy_int8_rules.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "spec/quant/consumer_messages.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"
#include "spec/quote.hpp"

namespace safespec::quant {

namespace {

constexpr std::string_view kLegacyWeight = ".weight";

std::string legacy_declared_in(const ModelConfig& c) {
  return "config.json " + quote_name(c.path) + " (" + c.source + ")";
}

// One file's I8 ".weight" tensors by name, in the order safespec checks them:
// sorted, where sglang iterates a Python set of the file's keys.
std::vector<const TensorEntry*> legacy_weights(const Header& h) {
  std::vector<const TensorEntry*> out;
  for (const TensorEntry& t : h.tensors)
    if (t.dtype == Dtype::I8 && t.name.view().ends_with(kLegacyWeight)) out.push_back(&t);
  std::sort(out.begin(), out.end(), [](const TensorEntry* a, const TensorEntry* b) { return a->name.view() < b->name.view(); });
  return out;
}

std::string legacy_meta_text(const TensorEntry& t) { return std::string(dtype_name(t.dtype)) + shape_repr(t.shape); }

// _validate_legacy_int8_tensors over one file: its own keys only, so a scale
// in another shard is missing.
std::size_t check_legacy_file(std::size_t f, const Header& h, Sink& out) {
  std::unordered_map<std::string_view, const TensorEntry*> by_name;
  for (const TensorEntry& t : h.tensors) by_name.emplace(t.name.view(), &t);
  const std::vector<const TensorEntry*> weights = legacy_weights(h);
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const TensorEntry& w = *weights[i];
    const std::string_view key = w.name.view();
    const std::string scale_key = std::string(key.substr(0, key.size() - kLegacyWeight.size())) + ".weight_scale";
    const CheckOrder at = order::sg_legacy_tensor(f, i);
    const auto found = by_name.find(scale_key);
    if (found == by_name.end()) {
      out.add(f, RuleId::QuantLegacyInt8ScaleMissing, Place::tensor(key),
              "expected the legacy INT8 weight to have " + quote_name(scale_key) + " in the same file, found none",
              {verdict(Msg::LegacySgMissingScale, at, {{"key!r", repr(key)}, {"scale_key!r", repr(scale_key)}})});
      continue;
    }
    const TensorEntry& s = *found->second;
    const bool ok = w.shape.size() == 2 && s.dtype == Dtype::F32 && s.shape.size() == 2 && s.shape[0] == w.shape[0] &&
                    s.shape[1] == 1;
    if (ok) continue;
    out.add(f, RuleId::QuantLegacyInt8ScaleMeta, Place::tensor(key),
            "expected a 2-D I8 weight (N, K) with an F32 weight_scale of shape (N, 1), found weight " + legacy_meta_text(w) +
                " and scale " + legacy_meta_text(s),
            {verdict(Msg::LegacySgScaleMeta, at,
                     {{"key!r", repr(key)},
                      {"weight.get_dtype()", std::string(dtype_name(w.dtype))},
                      {"weight_shape", shape_repr(w.shape)},
                      {"scale.get_dtype()", std::string(dtype_name(s.dtype))},
                      {"tuple(scale.get_shape())", shape_repr(s.shape)}})});
  }
  return weights.size();
}

}  // namespace

void check_legacy_int8_config(const ModelConfig& config, Sink& out) {
  if (!config.unread.empty()) {
    out.skip(0, "config.json " + quote_name(config.path),
             "its quantization declaration (CQ-LEGACY-INT8) was not read: " + config.unread, {Consumer::Sglang});
    return;
  }
  if (!config.type_error_source.empty()) {
    out.add(0, RuleId::QuantLegacyInt8Config, Place::checkpoint(""),
            "expected config.json " + quote_name(config.path) + " to hold its quantization metadata in JSON objects, "
                "found " + config.type_error_source + " of type " + config.type_error_type,
            {verdict(Msg::LegacySgConfigType, order::sg_legacy_config(),
                     {{"source", config.type_error_source}, {"type(value).__name__", config.type_error_type}})});
    return;
  }
  if (!config.declares_legacy_int8() || config.convrot_true) return;
  out.add(0, RuleId::QuantLegacyInt8Config, Place::checkpoint(""),
          "expected " + legacy_declared_in(config) + " to declare \"convrot\": true beside quant_method \"int8\", found " +
              (config.convrot_repr ? "convrot " + *config.convrot_repr : std::string("no convrot")),
          {verdict(Msg::LegacySgConvrot, order::sg_legacy_config(), {})});
}

void check_legacy_int8_tensors(std::span<const CheckpointFile> files, const Collected& collected,
                               const ModelConfig& config, Sink& out) {
  if (!config.legacy_int8()) return;
  out.add(0, RuleId::QuantLegacyInt8, Place::checkpoint(""),
          "expected per-layer comfy_quant markers, found a legacy marker-less INT8 ConvRot checkpoint (" +
              legacy_declared_in(config) + ": quant_method \"int8\", convrot true): only sglang's MiniMax-H3 loader reads it, "
              "as " + std::string(kLegacyInt8Config) + " (serialized int8, ConvRot group " +
              std::to_string(kLegacyInt8ConvrotGroupSize) + "); ComfyUI sees unmarked int8 weights",
          {});
  if (!collected.layers.empty()) {
    const Layer& first = collected.layers.front();
    out.add(first.file, RuleId::QuantLegacyInt8Markers, Place::checkpoint(""),
            "expected no comfy_quant marker in a legacy INT8 checkpoint, found " +
                std::to_string(collected.layers.size()) + " marked layer" +
                (collected.layers.size() == 1 ? "" : "s") + ", the first " + quote_name(first.prefix),
            {verdict(Msg::LegacySgMixMarkers, order::sg_legacy_markers(), {})});
  }
  std::size_t weights = 0;
  for (std::size_t f = 0; f < files.size(); ++f) weights += check_legacy_file(f, files[f].model->header, out);
  if (weights == 0)
    out.add(0, RuleId::QuantLegacyInt8NoWeights, Place::checkpoint(""),
            "expected at least one I8 .weight in a legacy INT8 checkpoint, found none",
            {verdict(Msg::LegacySgNoWeights, order::sg_legacy_count(), {})});
}

}  // namespace safespec::quant
