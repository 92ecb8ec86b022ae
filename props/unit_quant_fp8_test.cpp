// spec/quant fp8 rules: exact findings and consumer messages.
#include "props/catch.hpp"
#include "props/quant_support.hpp"

#include "spec/quant/order.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

using T = std::optional<std::pair<Dtype, std::vector<std::uint64_t>>>;

quant::Sink run_fp8(std::string_view format, T weight, T scale, T input = std::nullopt, std::string prefix = "p",
                    std::string_view config = "") {
  QuantFixture fx;
  if (weight) fx.tensor(prefix + ".weight", weight->first, weight->second);
  if (scale) fx.tensor(prefix + ".weight_scale", scale->first, scale->second);
  if (input) fx.tensor(prefix + ".input_scale", input->first, input->second);
  return layer_findings(fx, prefix, std::string(R"({"format": ")") + std::string(format) + "\"}", config);
}

constexpr std::string_view kE4 = "float8_e4m3fn", kE5 = "float8_e5m2";

}  // namespace

TEST_CASE("CQ-FP8 (L10, L11): valid layers have no findings", "[quant]") {
  CHECK(run_fp8(kE4, t(Dtype::F8_E4M3, {3, 128}), t(Dtype::F32, {})).findings().empty());
  CHECK(run_fp8(kE4, t(Dtype::F8_E4M3, {3, 128}), t(Dtype::F32, {1}), t(Dtype::F32, {}), "p", "ComfyFp8Config")
            .findings()
            .empty());
  CHECK(run_fp8(kE5, t(Dtype::F8_E5M2, {3, 128}), t(Dtype::BF16, {1})).findings().empty());
}

TEST_CASE("CQ-FP8-TENSORS (S9.1, G14): a missing weight_scale", "[quant][CQ-FP8-TENSORS]") {
  auto s = run_fp8(kE4, t(Dtype::F8_E4M3, {3, 128}), std::nullopt);
  auto f = of_rule(s, RuleId::QuantFp8Tensors);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) == "Comfy layer 'p' is missing checkpoint tensors: ['p.weight_scale']");
  CHECK(f[0].verdict(Consumer::Sglang)->order == quant::order::sg_layer(0, 0));
  // ComfyUI loads it (no check); kitchen fails at the first forward, message not recorded.
  CHECK(f[0].verdict(Consumer::Comfyui) == nullptr);
  REQUIRE(f[0].verdict(Consumer::Kitchen) != nullptr);
  CHECK(f[0].verdict(Consumer::Kitchen)->effect == Effect::Rejects);
  CHECK(s.findings().size() == 1);

  // float8_e5m2 is not validated by sglang (S9.0).
  auto e5 = run_fp8(kE5, t(Dtype::F8_E5M2, {3, 128}), std::nullopt);
  REQUIRE(of_rule(e5, RuleId::QuantFp8Tensors).size() == 1);
  CHECK(of_rule(e5, RuleId::QuantFp8Tensors)[0].verdict(Consumer::Sglang) == nullptr);
}

TEST_CASE("CQ-FP8-TENSORS (S9.1, C6): a missing weight", "[quant][CQ-FP8-TENSORS]") {
  auto s = run_fp8(kE4, std::nullopt, std::nullopt, std::nullopt, "model.diffusion_model.x\"'\xe2\x80\x8b");
  auto f = of_rule(s, RuleId::QuantFp8Tensors);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Comfy layer 'model.diffusion_model.x\"\\'\\u200b' is missing checkpoint tensors: "
        "['model.diffusion_model.x\"\\'\\u200b.weight', 'model.diffusion_model.x\"\\'\\u200b.weight_scale']");
  CHECK(f[0].verdict(Consumer::Comfyui) == nullptr);  // C6 is CQ-MARKER-ORPHAN's (analyze.cpp)
  CHECK(f[0].verdict(Consumer::Kitchen) == nullptr);
  // Only the scale present: sglang lists the weight alone.
  auto w = run_fp8(kE4, std::nullopt, t(Dtype::F32, {}));
  CHECK(message_for(of_rule(w, RuleId::QuantFp8Tensors)[0], Consumer::Sglang) ==
        "Comfy layer 'p' is missing checkpoint tensors: ['p.weight']");
}

TEST_CASE("CQ-FP8-SCALE (L10): single-element float scales, no consumer checks", "[quant][CQ-FP8-SCALE]") {
  auto s = run_fp8(kE4, t(Dtype::F8_E4M3, {3, 128}), t(Dtype::F32, {3}), t(Dtype::U8, {}));
  auto f = of_rule(s, RuleId::QuantFp8Scale);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message ==
        "float8_e4m3fn weight_scale and input_scale must be single-element floats (F32 canonical), found "
        "weight_scale is F32 (3,); input_scale is U8 ()");
  CHECK(f[0].verdicts.empty());
  CHECK(of_rule(run_fp8(kE4, t(Dtype::F8_E4M3, {3, 128}), t(Dtype::F32, {0})), RuleId::QuantFp8Scale).size() == 1);
  CHECK(of_rule(run_fp8(kE4, t(Dtype::F8_E4M3, {3, 128}), t(Dtype::F32, {1, 1})), RuleId::QuantFp8Scale).empty());
}

TEST_CASE("CQ-FP8-WEIGHT (L10): a 2-D weight", "[quant][CQ-FP8-WEIGHT]") {
  auto s = run_fp8(kE5, t(Dtype::F8_E5M2, {2, 3, 128}), t(Dtype::F32, {}));
  auto f = of_rule(s, RuleId::QuantFp8Weight);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message == "float8_e5m2 weight must be 2-D [N, K], found shape (2, 3, 128)");
  CHECK(f[0].verdicts.empty());
}

TEST_CASE("CQ-WEIGHT-CAST (C13): fp8 weights stored in their own fp8 dtype", "[quant][CQ-WEIGHT-CAST]") {
  for (Dtype d : {Dtype::U8, Dtype::F16, Dtype::F8_E5M2, Dtype::I8}) {
    auto s = run_fp8(kE4, t(d, {3, 128}), t(Dtype::F32, {}));
    auto f = of_rule(s, RuleId::QuantWeightCast);
    REQUIRE(f.size() == 1);
    CHECK(f[0].where.text() == "tensor 'p.weight'");
    REQUIRE(f[0].verdict(Consumer::Comfyui) != nullptr);
    CHECK(f[0].verdict(Consumer::Comfyui)->effect == Effect::MisLoads);
    CHECK(f[0].verdict(Consumer::Comfyui)->order == quant::order::cu_layer(0, 4));
    CHECK(f[0].verdict(Consumer::Sglang) == nullptr);
  }
  auto e5 = run_fp8(kE5, t(Dtype::F8_E4M3, {3, 128}), t(Dtype::F32, {}));
  REQUIRE(of_rule(e5, RuleId::QuantWeightCast).size() == 1);
  CHECK(of_rule(e5, RuleId::QuantWeightCast)[0].message ==
        "expected the float8_e5m2 weight stored as F8_E5M2, found F8_E4M3, which ComfyUI converts to float8_e5m2 by "
        "value");
}

TEST_CASE("CQ-FP8 (L10): hostile shapes never crash", "[quant]") {
  auto s = run_fp8(kE4, t(Dtype::F8_E4M3, {UINT64_MAX, UINT64_MAX, 2}), t(Dtype::F32, {UINT64_MAX, UINT64_MAX}),
                   t(Dtype::BOOL, {0}));
  CHECK(of_rule(s, RuleId::QuantFp8Scale).size() == 1);
  CHECK(of_rule(s, RuleId::QuantFp8Weight).size() == 1);
}
