// spec/quant w4a4 rules: exact findings and consumer messages.
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/quant_support.hpp"
#include "spec/quant/order.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

constexpr const char* kW4a4Config = "KitchenW4A4Config";
constexpr const char* kW4a4Marker = R"({"format": "convrot_w4a4", "convrot_groupsize": 64, "linear_dtype": "int4"})";

// A valid layer: N = 3, K = 256.
QuantFixture fixture(Dtype wd = Dtype::I8, std::vector<std::uint64_t> ws = {3, 128}, Dtype sd = Dtype::F32,
                     std::vector<std::uint64_t> ss = {3}, const std::string& p = "p") {
  QuantFixture fx;
  fx.tensor(p + ".weight", wd, std::move(ws)).tensor(p + ".weight_scale", sd, std::move(ss));
  return fx;
}

quant::Sink run_w4a4(const QuantFixture& fx, const std::string& prefix, std::string_view marker,
                std::string_view config = kW4a4Config) {
  return layer_findings(fx, prefix, marker, config);
}

std::string w4a4_marker_with(const std::string& extra) { return R"({"format": "convrot_w4a4", )" + extra + "}"; }

}  // namespace

TEST_CASE("L15: a canonical convrot_w4a4 layer has no findings", "[quant]") {
  CHECK(run_w4a4(fixture(), "p", kW4a4Marker).findings().empty());
  // Defaults: C = 256, linear_dtype "int4"; "int8" and C = 16 too.
  CHECK(run_w4a4(fixture(), "p", R"({"format": "convrot_w4a4"})").findings().empty());
  CHECK(run_w4a4(fixture(), "p", w4a4_marker_with(R"("convrot_groupsize": 16, "linear_dtype": "int8")")).findings().empty());
  // int() and `in` make 16.0 and "64" pass sglang (§6.11); they are CQ-MARKER-KEY-TYPE's business.
  CHECK(of_rule(run_w4a4(fixture(), "p", w4a4_marker_with(R"("convrot_groupsize": "64")")), RuleId::QuantW4a4Groupsize).empty());
}

TEST_CASE("CQ-W4A4-TENSORS (S9.1, C12): missing weight_scale", "[quant][CQ-W4A4-TENSORS]") {
  QuantFixture fx;
  fx.tensor("model.diffusion_model.blocks.0.q.weight", Dtype::I8, {3, 128});
  auto f = only_finding(run_w4a4(fx, "model.diffusion_model.blocks.0.q", kW4a4Marker), RuleId::QuantW4a4Tensors);
  CHECK(f.where.text() == "layer 'model.diffusion_model.blocks.0.q'");
  CHECK(message_for(f, Consumer::Sglang) ==
        "Comfy layer 'model.diffusion_model.blocks.0.q' is missing checkpoint tensors: "
        "['model.diffusion_model.blocks.0.q.weight_scale']");
  CHECK(message_for(f, Consumer::Comfyui) == "Missing ConvRot W4A4 weight scale for layer blocks.0.q");
  CHECK(f.verdict(Consumer::Comfyui)->order == quant::order::cu_layer(0, 12));

  QuantFixture empty;
  f = only_finding(run_w4a4(empty, "p", kW4a4Marker), RuleId::QuantW4a4Tensors);
  CHECK(message_for(f, Consumer::Sglang) ==
        "Comfy layer 'p' is missing checkpoint tensors: ['p.weight', 'p.weight_scale']");
  CHECK(f.verdicts.size() == 1);  // no weight at all: ComfyUI's C6 (CQ-MARKER-ORPHAN)
}

TEST_CASE("CQ-W4A4-DTYPES (S9.4 step 1) and CQ-WEIGHT-CAST (C13)", "[quant][CQ-W4A4-DTYPES][CQ-WEIGHT-CAST]") {
  const std::string p = "x\"y'\xc3\xa9";
  auto sink = run_w4a4(fixture(Dtype::U8, {3, 128}, Dtype::F16, {3}, p), p, kW4a4Marker);
  auto f = only_finding(sink, RuleId::QuantW4a4Dtypes);
  CHECK(message_for(f, Consumer::Sglang) ==
        "Comfy W4A4 layer 'x\"y\\'\xc3\xa9' needs I8 packed weights and F32 scales, got U8 and F16");
  CHECK(f.verdict(Consumer::Sglang)->order == quant::order::sg_layer(0, 1));
  CHECK(of_rule(sink, RuleId::QuantWeightCast).empty());

  sink = run_w4a4(fixture(Dtype::BF16), "p", kW4a4Marker);
  auto cast = only_finding(sink, RuleId::QuantWeightCast);
  REQUIRE(cast.verdict(Consumer::Comfyui));
  CHECK(cast.verdict(Consumer::Comfyui)->effect == Effect::MisLoads);
  CHECK(cast.message ==
        "expected the convrot_w4a4 weight stored as I8 or U8, found BF16, which ComfyUI converts to int8 by value");
}

TEST_CASE("CQ-W4A4-SHAPES (S9.4 step 2)", "[quant][CQ-W4A4-SHAPES]") {
  auto f = only_finding(run_w4a4(fixture(Dtype::I8, {3, 128}, Dtype::F32, {3, 1}), "p", kW4a4Marker), RuleId::QuantW4a4Shapes);
  CHECK(message_for(f, Consumer::Sglang) ==
        "Comfy W4A4 layer 'p' has incompatible weight/scale shapes: (3, 128) and (3, 1)");
  CHECK(f.message == "convrot_w4a4 needs a 2-D weight (N, K/2) and weight_scale (N,) = (3,); found (3, 128) and (3, 1)");
  auto sink = run_w4a4(fixture(Dtype::I8, {128}, Dtype::F32, {128}), "p", kW4a4Marker);
  CHECK(message_for(only_finding(sink, RuleId::QuantW4a4Shapes), Consumer::Sglang) ==
        "Comfy W4A4 layer 'p' has incompatible weight/scale shapes: (128,) and (128,)");
  CHECK(of_rule(sink, RuleId::QuantW4a4K).empty());  // no K without a 2-D weight
  CHECK_NOTHROW(run_w4a4(fixture(Dtype::I8, {}, Dtype::F32, {}), "p", kW4a4Marker));
}

TEST_CASE("CQ-W4A4-GROUPSIZE (S9.4 step 3, G17, K6)", "[quant][CQ-W4A4-GROUPSIZE]") {
  auto f = only_finding(run_w4a4(fixture(), "p", w4a4_marker_with(R"("convrot_groupsize": 32)")), RuleId::QuantW4a4Groupsize);
  CHECK(message_for(f, Consumer::Sglang) == "Comfy W4A4 layer 'p' has unsupported convrot_groupsize=32");
  CHECK(f.verdict(Consumer::Sglang)->order == quant::order::sg_layer(0, 3));
  CHECK(message_for(f, Consumer::Kitchen) == "Regular Hadamard size must be a power of 4, got 32");
  CHECK(f.verdict(Consumer::Comfyui) == nullptr);

  // A power of 4 other than 16, 64, 256: sglang only (G17).
  f = only_finding(run_w4a4(fixture(), "p", w4a4_marker_with(R"("convrot_groupsize": 4)")), RuleId::QuantW4a4Groupsize);
  CHECK(f.verdict(Consumer::Kitchen) == nullptr);
  CHECK(message_for(f, Consumer::Sglang) == "Comfy W4A4 layer 'p' has unsupported convrot_groupsize=4");
  f = only_finding(run_w4a4(fixture(), "p", w4a4_marker_with(R"("convrot_groupsize": true)")), RuleId::QuantW4a4Groupsize);
  CHECK(message_for(f, Consumer::Sglang) == "Comfy W4A4 layer 'p' has unsupported convrot_groupsize=1");

  // Nested in params only: sglang sees the default 256, ComfyUI the value.
  f = only_finding(run_w4a4(fixture(), "p", w4a4_marker_with(R"("params": {"convrot_groupsize": 8})")), RuleId::QuantW4a4Groupsize);
  CHECK(f.verdict(Consumer::Sglang) == nullptr);
  CHECK(message_for(f, Consumer::Kitchen) == "Regular Hadamard size must be a power of 4, got 8");
  CHECK(f.message == "convrot_w4a4 convrot_groupsize must be 16, 64 or 256; found 256 (as ComfyUI reads it)");
}

TEST_CASE("CQ-MARKER-INT (S9.4 step 3): int(convrot_groupsize) raises", "[quant][CQ-MARKER-INT]") {
  auto f = only_finding(run_w4a4(fixture(), "p", w4a4_marker_with(R"("convrot_groupsize": "x")")), RuleId::QuantKeyInt);
  const Verdict* v = f.verdict(Consumer::Sglang);
  REQUIRE(v);
  CHECK(v->error == "ValueError");
  CHECK(v->message == "invalid literal for int() with base 10: 'x'");
  CHECK(v->order == quant::order::sg_layer(0, 3));
  f = only_finding(run_w4a4(fixture(), "p", w4a4_marker_with(R"("convrot_groupsize": null)"), ""), RuleId::QuantKeyInt);
  CHECK(f.verdict(Consumer::Sglang)->error == "TypeError");
  CHECK(f.message == "expected marker values that survive Python int(), found convrot_groupsize: int(None) raises "
                     "TypeError: int() argument must "
                     "be a string, a bytes-like object or a real number, not 'NoneType'");
}

TEST_CASE("CQ-W4A4-K (S9.4 step 4, K9)", "[quant][CQ-W4A4-K]") {
  auto f = only_finding(run_w4a4(fixture(Dtype::I8, {3, 96}), "p", R"({"format": "convrot_w4a4"})"), RuleId::QuantW4a4K);
  CHECK(message_for(f, Consumer::Sglang) ==
        "Comfy W4A4 layer 'p' has input size 192, incompatible with quant_group_size=64 and convrot_groupsize=256");
  CHECK(f.verdict(Consumer::Sglang)->order == quant::order::sg_layer(0, 4));
  CHECK(message_for(f, Consumer::Kitchen) == "Input K=192 not divisible by convrot_groupsize 256");

  // K % 64 != 0 with C = 16: sglang only (kitchen's K % 64 message is not recorded).
  f = only_finding(run_w4a4(fixture(Dtype::I8, {3, 80}), "p", w4a4_marker_with(R"("convrot_groupsize": 16)")), RuleId::QuantW4a4K);
  CHECK(message_for(f, Consumer::Sglang) ==
        "Comfy W4A4 layer 'p' has input size 160, incompatible with quant_group_size=64 and convrot_groupsize=16");
  CHECK(f.verdict(Consumer::Kitchen) == nullptr);

  // K past 2^64.
  const std::uint64_t big = UINT64_MAX;
  f = only_finding(run_w4a4(fixture(Dtype::I8, {big, big}, Dtype::F32, {big}), "p", kW4a4Marker), RuleId::QuantW4a4K);
  CHECK(message_for(f, Consumer::Sglang) ==
        "Comfy W4A4 layer 'p' has input size 36893488147419103230, incompatible with quant_group_size=64 and "
        "convrot_groupsize=64");
}

TEST_CASE("CQ-W4A4-LINEAR-DTYPE (S15.5, K2)", "[quant][CQ-W4A4-LINEAR-DTYPE]") {
  auto f = only_finding(run_w4a4(fixture(), "p", w4a4_marker_with(R"("linear_dtype": "fp8")")), RuleId::QuantW4a4LinearDtype);
  CHECK(message_for(f, Consumer::Sglang) ==
        "Serialized W4A4 layer 'p' has unsupported linear_dtype='fp8'; expected one of ('int4', 'int8')");
  CHECK(f.verdict(Consumer::Sglang)->order == quant::order::sg_config(0, 5));
  CHECK(message_for(f, Consumer::Comfyui) == "ConvRot W4A4 linear_dtype must be 'int4' or 'int8', got 'fp8'");
  CHECK(message_for(f, Consumer::Kitchen) == "ConvRot W4A4 linear_dtype must be 'int4' or 'int8', got 'fp8'");
  CHECK(f.verdict(Consumer::Kitchen)->order == quant::order::kt_params(0, 2));

  // str() for sglang, the raw value for kitchen.
  f = only_finding(run_w4a4(fixture(), "p", w4a4_marker_with(R"("linear_dtype": 8)")), RuleId::QuantW4a4LinearDtype);
  CHECK(message_for(f, Consumer::Sglang) ==
        "Serialized W4A4 layer 'p' has unsupported linear_dtype='8'; expected one of ('int4', 'int8')");
  CHECK(message_for(f, Consumer::Kitchen) == "ConvRot W4A4 linear_dtype must be 'int4' or 'int8', got 8");
  f = only_finding(run_w4a4(fixture(), "p", w4a4_marker_with(R"("linear_dtype": null)"), ""), RuleId::QuantW4a4LinearDtype);
  CHECK(f.verdict(Consumer::Sglang) == nullptr);  // not sglang's W4A4 config
  CHECK(message_for(f, Consumer::Comfyui) == "ConvRot W4A4 linear_dtype must be 'int4' or 'int8', got None");
  CHECK(f.message == "convrot_w4a4 linear_dtype must be 'int4' or 'int8'; found None");
}

TEST_CASE("CQ-W4A4 hostile marker values never crash", "[quant]") {
  for (const char* v : {"0", "-1", "-16", "1180591620717411303424", "-1180591620717411303424",
                        "123456789012345678901234567890123456789012345678901234567890", "\"16\"", "16.0", "true",
                        "false", "null", "\"x\"", "NaN", "Infinity", "[]", "{}", "1e400", "18446744073709551615"}) {
    for (const char* key : {"convrot_groupsize", "linear_dtype"}) {
      CHECK_NOTHROW(run_w4a4(fixture(), "p", w4a4_marker_with("\"" + std::string(key) + "\": " + v)));
      CHECK_NOTHROW(run_w4a4(fixture(Dtype::I8, {UINT64_MAX, UINT64_MAX}, Dtype::F32, {UINT64_MAX}), "p",
                        w4a4_marker_with(R"("params": {")" + std::string(key) + "\": " + v + "}")));
    }
  }
  // 0 never gets past sglang's step 3, so step 4 has no verdict (no division by zero).
  auto sink = run_w4a4(fixture(), "p", w4a4_marker_with(R"("convrot_groupsize": 0)"));
  CHECK(message_for(only_finding(sink, RuleId::QuantW4a4Groupsize), Consumer::Sglang) ==
        "Comfy W4A4 layer 'p' has unsupported convrot_groupsize=0");
  auto k = only_finding(sink, RuleId::QuantW4a4K);
  CHECK(k.verdicts.empty());
  // -64 divides K in Python (256 % -64 == 0) but is not in (16, 64, 256).
  sink = run_w4a4(fixture(), "p", w4a4_marker_with(R"("convrot_groupsize": -64)"));
  CHECK(of_rule(sink, RuleId::QuantW4a4K).empty());
  CHECK(of_rule(sink, RuleId::QuantW4a4Groupsize).size() == 1);
}
