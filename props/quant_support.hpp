// Building quantized checkpoints in memory for the spec/quant tests: tensors
// by name, dtype and shape (offsets laid out contiguously), markers from JSON
// text, and a Layer as the analysis would build it.
#pragma once

#include <initializer_list>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/python/python_json.hpp"
#include "spec/quant/analyze.hpp"
#include "spec/quant/data_rules.hpp"
#include "spec/quant/layer.hpp"

namespace safespec::test {

// A tensor's dtype and shape, as the format tests hand them to their layers.
inline std::pair<Dtype, std::vector<std::uint64_t>> t(Dtype d, std::vector<std::uint64_t> shape) {
  return {d, std::move(shape)};
}

struct QuantFixture {
  Model model;

  // Adds a tensor with contiguous offsets; returns *this for chaining.
  QuantFixture& tensor(std::string name, Dtype dtype, std::vector<std::uint64_t> shape);
  QuantFixture& metadata(std::string key, std::string value);

  // A one-file view of the model (markers empty) and its table.
  std::vector<quant::CheckpointFile> files() const;
};

// A Layer for prefix with the marker parsed from json (must be an object).
// The marker value is owned by the returned holder.
struct LayerHolder {
  std::unique_ptr<py::Value> marker;
  quant::Layer layer;
};
// The layer's format row (spec/quant/formats.hpp), as analyze runs it: its
// header rules; its data rules and K bound.
void run_header_rules(const quant::Layer& l, const quant::TensorTable& t, quant::Sink& out);
void run_data_rules(const quant::Layer& l, const quant::TensorTable& t, const quant::TensorData& data,
                    quant::Sink& out);

LayerHolder make_layer(std::string prefix, std::string_view marker_json, std::string_view sglang_config = "",
                       std::size_t index = 0);

// A one-file checkpoint with markers as P.comfy_quant tensors (M1), analysed
// as `safespec check` analyses it.
struct Marked {
  QuantFixture fx;
  std::vector<quant::MarkerBytes> markers;

  Marked& marker(std::string prefix, std::string bytes);
  // config: the checkpoint's config.json (spec/quant/model_config.hpp), if any.
  quant::Analysis run(const quant::LayerKinds& kinds = {}, const quant::ModelConfig* config = nullptr);
};

// The header rules' findings for the layer at `prefix` of fx, marked with
// marker_json and, for sglang, the config class sglang_config.
quant::Sink layer_findings(const QuantFixture& fx, const std::string& prefix, std::string_view marker_json,
                           std::string_view sglang_config);

// The findings of one rule, in order.
std::vector<Finding> of_rule(const quant::Sink& sink, RuleId rule);
// The one finding of `rule` (REQUIREs exactly one).
Finding only_finding(const quant::Sink& sink, RuleId rule);
// A verdict's message for one consumer, "" when the finding has none.
std::string message_for(const Finding& f, Consumer c);

// Little-endian F32 bytes of the values, as a tensor's data holds them.
std::vector<std::uint8_t> f32s(std::initializer_list<float> vs);

}  // namespace safespec::test
