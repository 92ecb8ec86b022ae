// sglang's get_quant_method as far as it depends on the model rather than the
// file (spec/quant/layer_kinds.cpp, S13.1-S13.3, S19), and which of two equal
// declarations sglang keeps (S3.4, S6.3: raw_markers[prefix] = marker).
#include <algorithm>

#include "props/catch.hpp"
#include "props/quant_support.hpp"
#include "spec/quant/analyze.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

std::string first_rejection(const quant::Analysis& a) {
  const Verdict* first = nullptr;
  for (const auto& lf : a.findings)
    for (const Verdict& v : lf.finding.verdicts)
      if (v.consumer == Consumer::Sglang && v.holds_for(consumer_info(Consumer::Sglang).default_version) &&
          v.effect == Effect::Rejects && (!first || v.order < first->order))
        first = &v;
  return first ? first->error + ": " + first->message : "";
}

// A W4A8 layer 'a' that passes every check, and a non-ConvRot int8 layer 'e'
// (S9.6 scalar branch) beside it: the companion KitchenW4A8Config lets through.
Marked w4a8_with_int8() {
  Marked m;
  m.marker("a", R"({"format": "asym_w4a8_int8", "convrot": true})");
  m.fx.tensor("a.weight", Dtype::I8, {256, 128})
      .tensor("a.weight_s_rel", Dtype::F8_E4M3, {256, 16})
      .tensor("a.weight_s_channel", Dtype::F32, {256});
  m.marker("e", R"({"format": "int8_tensorwise"})");
  m.fx.tensor("e.weight", Dtype::I8, {4, 16}).tensor("e.weight_scale", Dtype::F32, {});
  return m;
}

}  // namespace

TEST_CASE("S13.3: an int8 embedding marker beside W4A8 loads only on an embedding", "[quant][sglang]") {
  Marked m = w4a8_with_int8();
  const quant::Analysis unknown = m.run();
  CHECK(first_rejection(unknown).empty());
  CHECK(unknown.sglang_config == "KitchenW4A8Config");
  REQUIRE(unknown.assumptions.size() == 1);
  CHECK(unknown.assumptions[0].layer == "e");
  CHECK(unknown.assumptions[0].kind == quant::LayerKind::Embedding);
  CHECK(unknown.assumptions[0].otherwise.message == "Unsupported quantized linear marker for 'e'");

  quant::LayerKinds linear;
  linear.named.emplace("e", quant::LayerKind::Linear);
  const quant::Analysis l = m.run(linear);
  CHECK(first_rejection(l) == "ValueError: Unsupported quantized linear marker for 'e'");
  CHECK(l.assumptions.empty());
  CHECK(l.sglang_config.empty());

  quant::LayerKinds all;
  all.all_linear = true;
  CHECK(first_rejection(m.run(all)) == "ValueError: Unsupported quantized linear marker for 'e'");

  quant::LayerKinds embedding;
  embedding.all_linear = true;
  embedding.named.emplace("e", quant::LayerKind::Embedding);
  const quant::Analysis e = m.run(embedding);
  CHECK(first_rejection(e).empty());
  CHECK(e.assumptions.empty());
}

TEST_CASE("S13.1: a W4A8 marker on an embedding, with sglang's private keys", "[quant][sglang]") {
  Marked m = w4a8_with_int8();
  quant::LayerKinds kinds;
  kinds.named.emplace("a", quant::LayerKind::Embedding);
  kinds.named.emplace("e", quant::LayerKind::Embedding);
  CHECK(first_rejection(m.run(kinds)) ==
        "ValueError: Unsupported quantized embedding marker for 'a': {'format': 'asym_w4a8_int8', 'convrot': True, "
        "'_has_codebook': False, '_has_correction': False}");
}

TEST_CASE("S19: a row-wise int8 marker beside NVFP4 on a Linear layer", "[quant][sglang]") {
  Marked m;
  m.marker("a", R"({"format": "nvfp4", "full_precision_matrix_mult": true})");
  m.fx.tensor("a.weight", Dtype::U8, {16, 16})
      .tensor("a.weight_scale", Dtype::F8_E4M3, {16, 2})
      .tensor("a.weight_scale_2", Dtype::F32, {});
  m.marker("e", R"({"format": "int8_tensorwise"})");
  m.fx.tensor("e.weight", Dtype::I8, {4, 16}).tensor("e.weight_scale", Dtype::F32, {4, 1});
  const quant::Analysis unknown = m.run();
  CHECK(first_rejection(unknown).empty());
  REQUIRE(unknown.assumptions.size() == 1);
  quant::LayerKinds all;
  all.all_linear = true;
  CHECK(first_rejection(m.run(all)) == "ValueError: Unsupported quantized linear marker for 'e'");
}

TEST_CASE("S3.4, S6.3: of two equal declarations sglang keeps the later", "[quant][sglang]") {
  // convrot 1 == True, so they do not conflict; the tensor marker comes after
  // the metadata and is the one stored, and 1 is not True (S17).
  Marked later_one;
  later_one.fx.metadata("_quantization_metadata",
                        R"({"layers": {"a": {"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 16}}})");
  later_one.marker("a", R"({"format": "int8_tensorwise", "convrot": 1, "convrot_groupsize": 16})");
  later_one.fx.tensor("a.weight", Dtype::I8, {4, 16}).tensor("a.weight_scale", Dtype::F32, {});
  CHECK(first_rejection(later_one.run()) == "ValueError: Serialized kitchen_int8 layer 'a' must set convrot=true");

  Marked later_true;
  later_true.fx.metadata("_quantization_metadata",
                         R"({"layers": {"a": {"format": "int8_tensorwise", "convrot": 1, "convrot_groupsize": 16}}})");
  later_true.marker("a", R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 16})");
  later_true.fx.tensor("a.weight", Dtype::I8, {4, 16}).tensor("a.weight_scale", Dtype::F32, {});
  CHECK(first_rejection(later_true.run()).empty());
}
