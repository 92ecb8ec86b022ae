// The layer reader's errors are data: the rule that decides a refusal and
// the tensor or layer at fault, besides the text the CLI prints; and the
// format table's columns the reader reads (marker defaults, accepted dtypes).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "spec/quant/formats.hpp"
#include "src/io/writer.hpp"
#include "src/parse/layer_io.hpp"

using namespace safespec;

namespace {

// A one-layer asym_w4a8_int8 checkpoint "lin" (N = 2, K = 256, G = 16), in
// memory, with the weight stored as `weight_dtype` and s_rel left out when
// `with_s_rel` is false.
std::unique_ptr<CheckpointReader> layer_error_w4a8(Dtype weight_dtype, bool with_s_rel) {
  static const std::string marker = R"({"format": "asym_w4a8_int8", "convrot": true})";
  static const std::vector<std::uint8_t> mb(marker.begin(), marker.end());
  static const std::vector<std::uint8_t> w32(2 * 128 * 4, 0), w8(2 * 128, 0), s_rel(2 * 16, 0x38), s_ch(2 * 4, 0);
  std::vector<TensorView> t{{"lin.comfy_quant", Dtype::U8, {mb.size()}, mb}};
  if (weight_dtype == Dtype::F32) t.push_back({"lin.weight", Dtype::F32, {2, 128}, w32});
  else t.push_back({"lin.weight", weight_dtype, {2, 128}, w8});
  if (with_s_rel) t.push_back({"lin.weight_s_rel", Dtype::F8_E4M3, {2, 16}, s_rel});
  t.push_back({"lin.weight_s_channel", Dtype::F32, {2}, s_ch});
  auto bytes = serialize(t, std::nullopt);
  REQUIRE(bytes.ok());
  auto c = CheckpointReader::from_memory("mem.safetensors", std::move(bytes).value());
  REQUIRE(c.ok());
  return std::move(c).value();
}

}  // namespace

TEST_CASE("layer error: refuse_invalid names the finding's rule and place", "[layer_io][CQ-W4A8-TENSORS]") {
  const auto c = layer_error_w4a8(Dtype::I8, false);
  auto l = c->layer("lin");
  REQUIRE(l.ok());
  auto r = c->refuse_invalid(*l.value(), false);
  REQUIRE(!r.ok());
  const LayerError& e = r.error();
  CHECK(e.refused);
  CHECK(e.rule == RuleId::QuantW4a8Tensors);
  CHECK(e.where == Place::layer("lin"));
  CHECK(e.message.starts_with("mem.safetensors: CQ-W4A8-TENSORS at layer 'lin': "));

  // The reader's own check, reached without the analysis: the row's tensors_rule.
  auto w = read_w4a8(*c, *l.value());
  REQUIRE(!w.ok());
  CHECK(w.error().refused);
  CHECK(w.error().rule == RuleId::QuantW4a8Tensors);
  CHECK(w.error().where == Place::tensor("lin.weight_s_rel"));
  CHECK(w.error().message == "expected a tensor 'lin.weight_s_rel', found none");
}

TEST_CASE("layer error: a dtype the reader does not take is refused at the tensor", "[layer_io]") {
  const auto c = layer_error_w4a8(Dtype::F32, true);
  auto l = c->layer("lin");
  REQUIRE(l.ok());
  auto w = read_w4a8(*c, *l.value());
  REQUIRE(!w.ok());
  CHECK(w.error().refused);
  CHECK(!w.error().rule);
  CHECK(w.error().where == Place::tensor("lin.weight"));
  CHECK(w.error().message == "tensor 'lin.weight': expected dtype I8, U8, found F32");
}

TEST_CASE("layer error: a file that cannot be opened has no rule and no place", "[layer_io]") {
  auto c = CheckpointReader::open("/nonexistent/safespec_layer_error.safetensors");
  REQUIRE(!c.ok());
  CHECK(!c.error().refused);
  CHECK(!c.error().rule);
  CHECK(c.error().where.empty());
  CHECK(c.error().message.starts_with("/nonexistent/safespec_layer_error.safetensors: "));

  const auto r = layer_error_w4a8(Dtype::I8, true);
  auto l = r->layer("other");
  REQUIRE(!l.ok());
  CHECK(!l.error().refused);
  CHECK(l.error().where == Place::layer("other"));
  CHECK(l.error().message == "mem.safetensors: no marked layer 'other' (marked layers: 'lin')");
}

TEST_CASE("layer error: the reader takes what each format's exporter writes", "[layer_io]") {
  for (const quant::FormatSpec& f : quant::all_formats()) {
    for (const quant::FormatTensor& t : f.tensors) {
      INFO(std::string(f.name) + "." + std::string(t.suffix));
      if (t.accepts.empty()) continue;  // not read (input_scale, pre_quant_scale)
      CHECK(std::find(t.accepts.begin(), t.accepts.end(), t.dtype) != t.accepts.end());
    }
  }
  CHECK(quant::marker_defaults(quant::QuantFormat::W4a8).group_size == 16);
  CHECK(quant::marker_defaults(quant::QuantFormat::W4a8).convrot_groupsize == 256);
  CHECK(quant::marker_defaults(quant::QuantFormat::Awq).group_size == 64);
  CHECK(quant::marker_defaults(quant::QuantFormat::Fp8E4m3).group_size == 0);
}
