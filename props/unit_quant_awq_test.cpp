// spec/quant awq rules: exact findings and consumer messages.
#include "props/catch.hpp"
#include "props/quant_support.hpp"

#include "spec/quant/order.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

using T = std::optional<std::pair<Dtype, std::vector<std::uint64_t>>>;

quant::Sink run_awq(std::string_view marker, T weight, T scale, T zeros, std::string prefix = "p") {
  QuantFixture fx;
  if (weight) fx.tensor(prefix + ".weight", weight->first, weight->second);
  if (scale) fx.tensor(prefix + ".weight_scale", scale->first, scale->second);
  if (zeros) fx.tensor(prefix + ".weight_zeros", zeros->first, zeros->second);
  return layer_findings(fx, prefix, marker, "");
}

constexpr std::string_view kAwq = R"({"format": "awq_w4a16"})";

std::string with_g(std::string_view g) { return std::string(R"({"format": "awq_w4a16", "group_size": )") + std::string(g) + "}"; }

}  // namespace

TEST_CASE("CQ-AWQ (L17): valid layers have no findings", "[quant]") {
  // K = 256, G = 64 by default: [K/G, N] = [4, 3].
  CHECK(run_awq(kAwq, t(Dtype::I8, {3, 128}), t(Dtype::BF16, {4, 3}), t(Dtype::BF16, {4, 3})).findings().empty());
  CHECK(run_awq(with_g("128"), t(Dtype::I8, {3, 128}), t(Dtype::F16, {2, 3}), t(Dtype::F16, {2, 3})).findings().empty());
  CHECK(run_awq(with_g("\"32\""), t(Dtype::I8, {3, 128}), t(Dtype::F32, {8, 3}), t(Dtype::F32, {8, 3}))
            .findings()
            .empty());
}

TEST_CASE("CQ-AWQ-TENSORS (C12): scale and zeros are required", "[quant][CQ-AWQ-TENSORS]") {
  auto s = run_awq(kAwq, t(Dtype::I8, {3, 128}), t(Dtype::BF16, {4, 3}), std::nullopt, "model.diffusion_model.a'b");
  auto f = of_rule(s, RuleId::QuantAwqTensors);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Comfyui) == "Missing AWQ W4A16 scale/zeros for layer a'b");
  CHECK(f[0].verdict(Consumer::Comfyui)->error == "ValueError");
  CHECK(f[0].verdict(Consumer::Comfyui)->order == quant::order::cu_layer(0, 2));
  CHECK(f[0].verdict(Consumer::Sglang) == nullptr);
  CHECK(f[0].message ==
        "expected the awq_w4a16 tensors weight, weight_scale and weight_zeros, missing "
        "'model.diffusion_model.a\\'b.weight_zeros'");
  CHECK(s.findings().size() == 1);

  auto nw = run_awq(kAwq, std::nullopt, std::nullopt, std::nullopt);
  f = of_rule(nw, RuleId::QuantAwqTensors);
  REQUIRE(f.size() == 1);
  CHECK(f[0].verdict(Consumer::Comfyui) == nullptr);  // C6 is CQ-MARKER-ORPHAN's (analyze.cpp)
}

TEST_CASE("CQ-AWQ-SHAPES (L17): [N, K/2] and [K/G, N]", "[quant][CQ-AWQ-SHAPES]") {
  auto tr = run_awq(kAwq, t(Dtype::I8, {3, 128}), t(Dtype::BF16, {3, 4}), t(Dtype::BF16, {4, 3}));
  auto f = of_rule(tr, RuleId::QuantAwqShapes);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message ==
        "awq_w4a16 layout (weight I8 [N, K/2], weight_scale and weight_zeros [K/G, N]): weight_scale shape (3, 4) "
        "is not (4, 3)");
  CHECK(f[0].verdicts.empty());
  auto nd = run_awq(with_g("48"), t(Dtype::I8, {3, 128}), t(Dtype::BF16, {5, 3}), t(Dtype::I8, {5, 3}));
  f = of_rule(nd, RuleId::QuantAwqShapes);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message ==
        "awq_w4a16 layout (weight I8 [N, K/2], weight_scale and weight_zeros [K/G, N]): group_size 48 does not "
        "divide K=256; weight_zeros is I8, not a float");
  auto u8 = run_awq(kAwq, t(Dtype::U8, {3}), t(Dtype::BF16, {4, 3}), t(Dtype::BF16, {4, 3}));
  f = of_rule(u8, RuleId::QuantAwqShapes);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message ==
        "awq_w4a16 layout (weight I8 [N, K/2], weight_scale and weight_zeros [K/G, N]): weight is U8, not I8; "
        "weight shape (3,) is not 2-D [N, K/2]");
  CHECK(of_rule(u8, RuleId::QuantWeightCast).empty());
}

TEST_CASE("CQ-MARKER-INT (C12): ComfyUI's int(group_size) raises", "[quant][CQ-MARKER-INT]") {
  auto s = run_awq(with_g("\"x\""), t(Dtype::I8, {3, 128}), t(Dtype::BF16, {4, 3}), t(Dtype::BF16, {4, 3}));
  auto f = of_rule(s, RuleId::QuantKeyInt);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Comfyui) == "invalid literal for int() with base 10: 'x'");
  CHECK(f[0].verdict(Consumer::Comfyui)->error == "ValueError");
  CHECK(f[0].verdict(Consumer::Comfyui)->order == quant::order::cu_layer(0, 3));
  CHECK(of_rule(s, RuleId::QuantAwqShapes).empty());
  // Top level only: a params group_size is ignored, the default 64 applies.
  CHECK(run_awq(R"({"format": "awq_w4a16", "params": {"group_size": "x"}})", t(Dtype::I8, {3, 128}),
                t(Dtype::BF16, {4, 3}), t(Dtype::BF16, {4, 3}))
            .findings()
            .empty());
}

TEST_CASE("CQ-WEIGHT-CAST (C13): a float AWQ weight is converted numerically", "[quant][CQ-WEIGHT-CAST]") {
  auto s = run_awq(kAwq, t(Dtype::F16, {3, 128}), t(Dtype::BF16, {4, 3}), t(Dtype::BF16, {4, 3}));
  auto f = of_rule(s, RuleId::QuantWeightCast);
  REQUIRE(f.size() == 1);
  CHECK(f[0].verdict(Consumer::Comfyui)->effect == Effect::MisLoads);
}

TEST_CASE("CQ-AWQ (L17): hostile group sizes never crash", "[quant]") {
  for (std::string_view g : {"0", "-1", "1180591620717411303424", "\"16\"", "16.0", "true", "null", "\"x\"", "NaN",
                             "-Infinity", "9223372036854775807", "1"}) {
    auto s = run_awq(with_g(g), t(Dtype::I8, {UINT64_MAX, UINT64_MAX}), t(Dtype::BF16, {UINT64_MAX, UINT64_MAX}),
                     t(Dtype::BF16, {0, 0}));
    for (const auto& lf : s.findings()) CHECK(!lf.finding.message.empty());
    const bool raises = g == "null" || g == "\"x\"" || g == "NaN" || g == "-Infinity";
    CHECK(of_rule(s, RuleId::QuantKeyInt).size() == (raises ? 1u : 0u));
  }
  auto one = run_awq(with_g("1"), t(Dtype::I8, {3, UINT64_MAX}), t(Dtype::BF16, {4, 3}), t(Dtype::BF16, {4, 3}));
  REQUIRE(of_rule(one, RuleId::QuantAwqShapes).size() == 1);
  CHECK(of_rule(one, RuleId::QuantAwqShapes)[0].message.find("K/G for K=36893488147419103230 exceeds") !=
        std::string::npos);
}
