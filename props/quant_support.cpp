#include "props/quant_support.hpp"

#include <algorithm>
#include <bit>
#include <cassert>

#include "props/catch.hpp"

#include "spec/quant/marker_values.hpp"
#include "spec/format_rules.hpp"

namespace safespec::test {

QuantFixture& QuantFixture::tensor(std::string name, Dtype dtype, std::vector<std::uint64_t> shape) {
  const std::uint64_t begin = model.header.tensors.empty() ? 0 : model.header.tensors.back().end;
  const std::uint64_t size = tensor_byte_size(shape, dtype).value_or(0);
  model.header.tensors.push_back(TensorEntry{std::move(name), dtype, std::move(shape), begin, begin + size});
  model.header_length = 8;
  model.file_size = 16 + begin + size;
  return *this;
}

QuantFixture& QuantFixture::metadata(std::string key, std::string value) {
  model.header.metadata_state = MetadataState::Present;
  model.header.metadata.emplace_back(std::move(key), std::move(value));
  return *this;
}

std::vector<quant::CheckpointFile> QuantFixture::files() const {
  std::vector<quant::CheckpointFile> out(1);
  out[0].path = "test.safetensors";
  out[0].model = &model;
  return out;
}

void run_header_rules(const quant::Layer& l, const quant::TensorTable& t, quant::Sink& out) {
  const quant::FormatSpec* f = quant::find_format(l.format);
  REQUIRE(f);
  f->header_rules(quant::LayerCheck{l, t, out, *f});
}

void run_data_rules(const quant::Layer& l, const quant::TensorTable& t, const quant::TensorData& data,
                    quant::Sink& out) {
  const quant::FormatSpec* f = quant::find_format(l.format);
  if (!f) return;  // a format no consumer knows has no rules, as in analyze
  const quant::LayerCheck c{l, t, out, *f};
  if (f->data_rules) f->data_rules(c, data);
  quant::check_layer_k_bound(c);
}

Marked& Marked::marker(std::string prefix, std::string bytes) {
  fx.tensor(prefix + ".comfy_quant", Dtype::U8, {bytes.size()});
  markers.push_back({prefix + ".comfy_quant", true, std::move(bytes)});
  std::sort(markers.begin(), markers.end(), [](const auto& a, const auto& b) { return a.tensor < b.tensor; });
  return *this;
}

quant::Analysis Marked::run(const quant::LayerKinds& kinds, const quant::ModelConfig* config) {
  auto files = fx.files();
  files[0].markers = markers;
  return quant::analyze(files, nullptr, kinds, config);
}

LayerHolder make_layer(std::string prefix, std::string_view marker_json, std::string_view sglang_config,
                       std::size_t index) {
  auto parsed = py::loads(marker_json);
  assert(parsed.ok() && quant::is_dict(parsed.value()));
  LayerHolder h{std::make_unique<py::Value>(std::move(parsed).value()), {}};
  h.layer.prefix = std::move(prefix);
  h.layer.marker = h.marker.get();
  h.layer.index = index;
  h.layer.file = 0;
  h.layer.format = quant::sglang_format(*h.marker);
  h.layer.sglang_config = sglang_config;
  return h;
}

quant::Sink layer_findings(const QuantFixture& fx, const std::string& prefix, std::string_view marker_json,
                           std::string_view sglang_config) {
  auto files = fx.files();
  quant::TensorTable table(files);
  auto h = make_layer(prefix, marker_json, sglang_config);
  quant::Sink sink;
  run_header_rules(h.layer, table, sink);
  return sink;
}

Finding only_finding(const quant::Sink& sink, RuleId rule) {
  auto f = of_rule(sink, rule);
  REQUIRE(f.size() == 1);
  return f[0];
}

std::vector<Finding> of_rule(const quant::Sink& sink, RuleId rule) {
  std::vector<Finding> out;
  for (const auto& lf : sink.findings())
    if (lf.finding.rule == rule) out.push_back(lf.finding);
  return out;
}

std::string message_for(const Finding& f, Consumer c) {
  const Verdict* v = f.verdict(c);
  return v ? v->message : std::string();
}

std::vector<std::uint8_t> f32s(std::initializer_list<float> vs) {
  std::vector<std::uint8_t> b;
  for (float v : vs) {
    const auto u = std::bit_cast<std::uint32_t>(v);
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(u >> (8 * i)));
  }
  return b;
}

}  // namespace safespec::test
