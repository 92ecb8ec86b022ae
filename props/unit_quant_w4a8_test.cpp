// spec/quant w4a8 rules: exact findings and consumer messages.
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/quant_support.hpp"
#include "spec/quant/order.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

constexpr const char* kW4a8Config = "KitchenW4A8Config";
constexpr const char* kW4a8Marker =
    R"({"format": "asym_w4a8_int8", "group_size": 16, "convrot_groupsize": 256, "convrot": true})";

// A valid layer: N = 3, K = 256, G = 16.
QuantFixture valid_fixture(const std::string& p = "p") {
  QuantFixture fx;
  fx.tensor(p + ".weight", Dtype::I8, {3, 128})
      .tensor(p + ".weight_s_rel", Dtype::F8_E4M3, {3, 16})
      .tensor(p + ".weight_s_channel", Dtype::F32, {3});
  return fx;
}

quant::Sink run_w4a8(const QuantFixture& fx, const std::string& prefix, std::string_view marker,
                std::string_view config = kW4a8Config) {
  return layer_findings(fx, prefix, marker, config);
}

std::string w4a8_marker_with(const std::string& extra) {
  return R"({"format": "asym_w4a8_int8", "convrot": true, )" + extra + "}";
}

}  // namespace

TEST_CASE("L16: a canonical W4A8 layer has no findings", "[quant]") {
  CHECK(run_w4a8(valid_fixture(), "p", kW4a8Marker).findings().empty());
  auto fx = valid_fixture();
  fx.tensor("p.weight_codebook", Dtype::F32, {16});
  CHECK(run_w4a8(fx, "p", kW4a8Marker).findings().empty());
  // Defaults G = 16, C = 256.
  CHECK(run_w4a8(valid_fixture(), "p", R"({"format": "asym_w4a8_int8", "convrot": true})").findings().empty());
}

TEST_CASE("CQ-W4A8-TENSORS (S9.1 A0, C12): missing companions", "[quant][CQ-W4A8-TENSORS]") {
  QuantFixture fx;
  fx.tensor("model.diffusion_model.b.weight", Dtype::I8, {3, 128});
  auto sink = run_w4a8(fx, "model.diffusion_model.b", kW4a8Marker);
  auto f = only_finding(sink, RuleId::QuantW4a8Tensors);
  CHECK(f.where.text() == "layer 'model.diffusion_model.b'");
  CHECK(message_for(f, Consumer::Sglang) ==
        "Comfy layer 'model.diffusion_model.b' is missing checkpoint tensors: "
        "['model.diffusion_model.b.weight_s_channel', 'model.diffusion_model.b.weight_s_rel']");
  CHECK(message_for(f, Consumer::Comfyui) == "Missing W4A8 group scale (weight_s_rel) for layer b");
  CHECK(f.verdict(Consumer::Sglang)->order == quant::order::sg_layer(0, 0));
  CHECK(f.verdict(Consumer::Kitchen) == nullptr);
}

TEST_CASE("CQ-W4A8-TENSORS (C13, K1.4): no weight_s_channel reaches kitchen Params as None",
          "[quant][CQ-W4A8-TENSORS]") {
  QuantFixture fx;
  fx.tensor("p.weight", Dtype::I8, {3, 128}).tensor("p.weight_s_rel", Dtype::F8_E4M3, {3, 16});
  auto f = only_finding(run_w4a8(fx, "p", kW4a8Marker), RuleId::QuantW4a8Tensors);
  CHECK(message_for(f, Consumer::Sglang) == "Comfy layer 'p' is missing checkpoint tensors: ['p.weight_s_channel']");
  CHECK(message_for(f, Consumer::Comfyui) == "s_channel must have shape (3,), got None");
  CHECK(message_for(f, Consumer::Kitchen) == "s_channel must have shape (3,), got None");
  CHECK(f.verdict(Consumer::Kitchen)->error == "ValueError");
}

TEST_CASE("CQ-W4A8-TENSORS (S9.1): no weight: sglang only (C6 is CQ-MARKER-ORPHAN)",
          "[quant][CQ-W4A8-TENSORS][CQ-MARKER-ORPHAN]") {
  QuantFixture fx;
  fx.tensor("p.weight_s_rel", Dtype::F8_E4M3, {3, 16});
  auto sink = run_w4a8(fx, "p", kW4a8Marker);
  auto f = only_finding(sink, RuleId::QuantW4a8Tensors);
  CHECK(message_for(f, Consumer::Sglang) ==
        "Comfy layer 'p' is missing checkpoint tensors: ['p.weight', 'p.weight_s_channel']");
  CHECK(f.verdicts.size() == 1);
}

TEST_CASE("CQ-W4A8-GROUP-SIZE (S9.3 A1): group_size below 4, with repr of a hostile prefix",
          "[quant][CQ-W4A8-GROUP-SIZE]") {
  const std::string p = "a'b\\\xc3\xa9\xe2\x80\x8b";
  auto sink = run_w4a8(valid_fixture(p), p, w4a8_marker_with(R"("group_size": 2)"));
  auto f = only_finding(sink, RuleId::QuantW4a8GroupSize);
  CHECK(message_for(f, Consumer::Sglang) ==
        "Comfy W4A8 layer \"a'b\\\\\xc3\xa9\\u200b\" has invalid group_size=2");
  CHECK(f.verdict(Consumer::Sglang)->order == quant::order::sg_layer(0, 1));
  // ComfyUI and kitchen reject G = 2 through K1.2.
  auto k = only_finding(sink, RuleId::QuantW4a8K);
  CHECK(message_for(k, Consumer::Kitchen) ==
        "K=256 must be divisible by 16, group_size=2, and convrot_groupsize=256; group_size must be >=4 and "
        "divide 16 or be a multiple of 16");
  CHECK(message_for(k, Consumer::Comfyui) == message_for(k, Consumer::Kitchen));
}

TEST_CASE("CQ-W4A8-GROUP-SIZE (S9.3 A1, §6.11): int() coercions", "[quant][CQ-W4A8-GROUP-SIZE]") {
  CHECK(message_for(only_finding(run_w4a8(valid_fixture(), "p", w4a8_marker_with(R"("group_size": true)")), RuleId::QuantW4a8GroupSize),
                    Consumer::Sglang) == "Comfy W4A8 layer 'p' has invalid group_size=1");
  CHECK(message_for(only_finding(run_w4a8(valid_fixture(), "p", w4a8_marker_with(R"("group_size": 3.9)")), RuleId::QuantW4a8GroupSize),
                    Consumer::Sglang) == "Comfy W4A8 layer 'p' has invalid group_size=3");
  CHECK(message_for(only_finding(run_w4a8(valid_fixture(), "p", w4a8_marker_with(R"("group_size": -1)")), RuleId::QuantW4a8GroupSize),
                    Consumer::Sglang) == "Comfy W4A8 layer 'p' has invalid group_size=-1");
  // "16" and 16.0 pass sglang's int() (G20).
  CHECK(of_rule(run_w4a8(valid_fixture(), "p", w4a8_marker_with(R"("group_size": "16")")), RuleId::QuantW4a8GroupSize).empty());
  CHECK(of_rule(run_w4a8(valid_fixture(), "p", w4a8_marker_with(R"("group_size": 16.0)")), RuleId::QuantW4a8GroupSize).empty());
}

TEST_CASE("CQ-MARKER-INT (S9.3 A1, S13.4): int() raises", "[quant][CQ-MARKER-INT]") {
  auto f = only_finding(run_w4a8(valid_fixture(), "p", w4a8_marker_with(R"("group_size": null)")), RuleId::QuantKeyInt);
  const Verdict* v = f.verdict(Consumer::Sglang);
  REQUIRE(v);
  CHECK(v->error == "TypeError");
  CHECK(v->message == "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'");
  CHECK(v->order == quant::order::sg_layer(0, 1));

  f = only_finding(run_w4a8(valid_fixture(), "p", w4a8_marker_with(R"("group_size": "x")")), RuleId::QuantKeyInt);
  CHECK(f.verdict(Consumer::Sglang)->error == "ValueError");
  CHECK(message_for(f, Consumer::Sglang) == "invalid literal for int() with base 10: 'x'");

  // convrot_groupsize is read only by get_quant_method (S13.4).
  f = only_finding(run_w4a8(valid_fixture(), "p", w4a8_marker_with(R"("convrot_groupsize": "x")")), RuleId::QuantKeyInt);
  CHECK(f.verdict(Consumer::Sglang)->order == quant::order::sg_method(0, 4));
  f = only_finding(run_w4a8(valid_fixture(), "p", w4a8_marker_with(R"("convrot_groupsize": Infinity)"), ""), RuleId::QuantKeyInt);
  CHECK(f.verdicts.empty());
  CHECK(f.message == "expected marker values that survive Python int(), found convrot_groupsize: int(inf) raises "
                     "OverflowError: "
                     "cannot convert float infinity to integer");
}

TEST_CASE("CQ-W4A8-DTYPES (S9.3 A2, G2) and CQ-WEIGHT-CAST (C13)", "[quant][CQ-W4A8-DTYPES][CQ-WEIGHT-CAST]") {
  QuantFixture fx;
  fx.tensor("p.weight", Dtype::U8, {3, 128})
      .tensor("p.weight_s_rel", Dtype::F8_E4M3, {3, 16})
      .tensor("p.weight_s_channel", Dtype::F32, {3});
  auto sink = run_w4a8(fx, "p", kW4a8Marker);
  auto f = only_finding(sink, RuleId::QuantW4a8Dtypes);
  CHECK(message_for(f, Consumer::Sglang) ==
        "Comfy W4A8 layer 'p' needs I8 weights and FP8 group scales, got U8 and F8_E4M3");
  CHECK(f.verdicts.size() == 1);
  CHECK(of_rule(sink, RuleId::QuantWeightCast).empty());  // U8 keeps its bits through .to(int8)

  QuantFixture fx2;
  fx2.tensor("p.weight", Dtype::F16, {3, 128})
      .tensor("p.weight_s_rel", Dtype::F32, {3, 16})
      .tensor("p.weight_s_channel", Dtype::F32, {3});
  sink = run_w4a8(fx2, "p", kW4a8Marker);
  CHECK(message_for(only_finding(sink, RuleId::QuantW4a8Dtypes), Consumer::Sglang) ==
        "Comfy W4A8 layer 'p' needs I8 weights and FP8 group scales, got F16 and F32");
  auto cast = only_finding(sink, RuleId::QuantWeightCast);
  CHECK(cast.where.text() == "tensor 'p.weight'");
  REQUIRE(cast.verdict(Consumer::Comfyui));
  CHECK(cast.verdict(Consumer::Comfyui)->effect == Effect::MisLoads);
  CHECK(cast.verdict(Consumer::Comfyui)->message.empty());
}

TEST_CASE("CQ-W4A8-CHANNEL-DTYPE (S9.3 A3)", "[quant][CQ-W4A8-CHANNEL-DTYPE]") {
  QuantFixture fx;
  fx.tensor("p.weight", Dtype::I8, {3, 128})
      .tensor("p.weight_s_rel", Dtype::F8_E4M3, {3, 16})
      .tensor("p.weight_s_channel", Dtype::BF16, {3});
  auto f = only_finding(run_w4a8(fx, "p", kW4a8Marker), RuleId::QuantW4a8ChannelDtype);
  CHECK(f.where.text() == "tensor 'p.weight_s_channel'");
  CHECK(message_for(f, Consumer::Sglang) == "Comfy W4A8 layer 'p' needs F32 channel scales, got BF16");
}

TEST_CASE("CQ-W4A8-WEIGHT-RANK (S9.3 A4, K1.1)", "[quant][CQ-W4A8-WEIGHT-RANK]") {
  QuantFixture fx;
  fx.tensor("p.weight", Dtype::I8, {2, 3, 128})
      .tensor("p.weight_s_rel", Dtype::F8_E4M3, {3, 16})
      .tensor("p.weight_s_channel", Dtype::F32, {3});
  auto sink = run_w4a8(fx, "p", kW4a8Marker);
  auto f = only_finding(sink, RuleId::QuantW4a8WeightRank);
  CHECK(message_for(f, Consumer::Sglang) == "Comfy W4A8 layer 'p' needs a 2D packed weight, got (2, 3, 128)");
  CHECK(message_for(f, Consumer::Kitchen) == "orig_shape must be 2D, got (2, 3, 256)");
  CHECK(message_for(f, Consumer::Comfyui) == "orig_shape must be 2D, got (2, 3, 256)");
  CHECK(f.verdict(Consumer::Kitchen)->order == quant::order::kt_params(0, 1));
  // Nothing that needs N and K runs on a weight that is not 2-D.
  CHECK(of_rule(sink, RuleId::QuantW4a8Shapes).empty());
  CHECK(of_rule(sink, RuleId::QuantW4a8K).empty());
}

TEST_CASE("CQ-W4A8-SHAPES (S9.3 A5, K1.3, K1.4)", "[quant][CQ-W4A8-SHAPES]") {
  QuantFixture fx;
  fx.tensor("p.weight", Dtype::I8, {3, 128})
      .tensor("p.weight_s_rel", Dtype::F8_E4M3, {3, 8})
      .tensor("p.weight_s_channel", Dtype::F32, {3});
  auto f = only_finding(run_w4a8(fx, "p", kW4a8Marker), RuleId::QuantW4a8Shapes);
  CHECK(message_for(f, Consumer::Sglang) ==
        "Comfy W4A8 layer 'p' has incompatible weight/scale shapes: (3, 128), (3, 8), and (3,)");
  CHECK(message_for(f, Consumer::Kitchen) == "scale must have shape (3, 16), got (3, 8)");
  CHECK(f.message ==
        "for weight (3, 128), weight_s_rel must be (N, K // group_size) = (3, 16) with K = 256, group_size = 16 "
        "and weight_s_channel (N,) = (3,); found (3, 8) and (3,)");

  QuantFixture fx2;
  fx2.tensor("p.weight", Dtype::I8, {3, 128})
      .tensor("p.weight_s_rel", Dtype::F8_E4M3, {3, 16})
      .tensor("p.weight_s_channel", Dtype::F32, {3, 1});
  f = only_finding(run_w4a8(fx2, "p", kW4a8Marker), RuleId::QuantW4a8Shapes);
  CHECK(message_for(f, Consumer::Comfyui) == "s_channel must have shape (3,), got (3, 1)");
  CHECK(f.verdict(Consumer::Comfyui)->order == quant::order::cu_layer(0, 24));
}

TEST_CASE("CQ-W4A8-CODEBOOK (S9.3 A7, K1.6)", "[quant][CQ-W4A8-CODEBOOK]") {
  auto fx = valid_fixture();
  fx.tensor("p.weight_codebook", Dtype::F16, {16});
  auto f = only_finding(run_w4a8(fx, "p", kW4a8Marker), RuleId::QuantW4a8Codebook);
  CHECK(message_for(f, Consumer::Sglang) == "Comfy W4A8 layer 'p' needs an F32[16] codebook");
  CHECK(f.verdict(Consumer::Kitchen) == nullptr);  // Params check the shape only

  auto fx2 = valid_fixture();
  fx2.tensor("p.weight_codebook", Dtype::F32, {8});
  f = only_finding(run_w4a8(fx2, "p", kW4a8Marker), RuleId::QuantW4a8Codebook);
  CHECK(message_for(f, Consumer::Kitchen) == "codebook must have shape (16,), got (8,)");
}

TEST_CASE("CQ-W4A8-CORRECTION (S9.3 A8) and CQ-W4A8-CORRECTION-IGNORED (C12, G3)",
          "[quant][CQ-W4A8-CORRECTION][CQ-W4A8-CORRECTION-IGNORED]") {
  auto fx = valid_fixture();
  fx.tensor("p.weight_correction", Dtype::F32, {16, 3});
  auto sink = run_w4a8(fx, "p", kW4a8Marker);
  CHECK(of_rule(sink, RuleId::QuantW4a8Correction).empty());
  auto ign = only_finding(sink, RuleId::QuantW4a8CorrectionIgnored);
  CHECK(ign.severity == Severity::Warning);
  REQUIRE(ign.verdict(Consumer::Comfyui));
  CHECK(ign.verdict(Consumer::Comfyui)->effect == Effect::MisLoads);
  CHECK(ign.verdicts.size() == 1);

  auto fx2 = valid_fixture();
  fx2.tensor("p.weight_correction", Dtype::BF16, {16, 3});
  auto f = only_finding(run_w4a8(fx2, "p", kW4a8Marker), RuleId::QuantW4a8Correction);
  CHECK(message_for(f, Consumer::Sglang) == "Comfy W4A8 layer 'p' has an incompatible correction tensor");
  CHECK(f.message == "a W4A8 weight_correction must be F32 (K // group_size, N) = (16, 3); found BF16 (16, 3)");
  CHECK(f.verdict(Consumer::Kitchen) == nullptr);
}

TEST_CASE("CQ-W4A8-CONVROT (S12.3, G1): convrot is True", "[quant][CQ-W4A8-CONVROT]") {
  const std::string comfy_written = R"({"format": "asym_w4a8_int8", "group_size": 16, "convrot_groupsize": 256})";
  auto f = only_finding(run_w4a8(valid_fixture(), "p", comfy_written), RuleId::QuantW4a8Convrot);
  CHECK(message_for(f, Consumer::Sglang) == "Serialized W4A8 layer 'p' must set convrot=true");
  CHECK(f.verdict(Consumer::Sglang)->order == quant::order::sg_config(0, 3));
  CHECK(f.verdict(Consumer::Comfyui) == nullptr);
  f = only_finding(run_w4a8(valid_fixture(), "p", R"({"format": "asym_w4a8_int8", "convrot": 1})"), RuleId::QuantW4a8Convrot);
  CHECK(f.message == "a W4A8 marker must set \"convrot\": true; found 1");
  // Another config (or none): the invariant stands, no sglang verdict.
  f = only_finding(run_w4a8(valid_fixture(), "p", comfy_written, ""), RuleId::QuantW4a8Convrot);
  CHECK(f.verdicts.empty());
}

TEST_CASE("CQ-W4A8-K (S13.5, K1.2): K not divisible", "[quant][CQ-W4A8-K]") {
  QuantFixture fx;  // K = 200: 200 // 16 = 12 groups
  fx.tensor("p.weight", Dtype::I8, {3, 100})
      .tensor("p.weight_s_rel", Dtype::F8_E4M3, {3, 12})
      .tensor("p.weight_s_channel", Dtype::F32, {3});
  auto sink = run_w4a8(fx, "p", kW4a8Marker);
  CHECK(of_rule(sink, RuleId::QuantW4a8Shapes).empty());
  auto f = only_finding(sink, RuleId::QuantW4a8K);
  CHECK(message_for(f, Consumer::Sglang) ==
        "Serialized W4A8 layer 'p' has input size 200, incompatible with group_size=16 and convrot_groupsize=256");
  CHECK(f.verdict(Consumer::Sglang)->order == quant::order::sg_method(0, 5));
  CHECK(message_for(f, Consumer::Kitchen) ==
        "K=200 must be divisible by 16, group_size=16, and convrot_groupsize=256; group_size must be >=4 and divide "
        "16 or be a multiple of 16");
  CHECK(f.verdict(Consumer::Comfyui)->order == quant::order::cu_layer(0, 22));
  auto cuda = only_finding(sink, RuleId::QuantW4a8CudaGroupsize);
  CHECK(message_for(cuda, Consumer::Kitchen) == "convrot fused kernel requires K divisible by 256");
}

TEST_CASE("CQ-W4A8-K (S13.5, K1.2): convrot_groupsize 0 divides by zero", "[quant][CQ-W4A8-K]") {
  auto sink = run_w4a8(valid_fixture(), "p", w4a8_marker_with(R"("convrot_groupsize": 0)"));
  auto f = only_finding(sink, RuleId::QuantW4a8K);
  CHECK(f.verdict(Consumer::Sglang)->error == "ZeroDivisionError");
  CHECK(message_for(f, Consumer::Sglang) == "integer modulo by zero");
  CHECK(f.verdict(Consumer::Kitchen)->error == "ZeroDivisionError");
  CHECK(message_for(only_finding(sink, RuleId::QuantW4a8Hadamard), Consumer::Kitchen) ==
        "Regular Hadamard size must be a power of 4, got 0");
}

TEST_CASE("CQ-W4A8-K (G4): group_size only in params: ComfyUI reads it, sglang does not", "[quant][CQ-W4A8-K]") {
  auto sink = run_w4a8(valid_fixture(), "p", R"({"format": "asym_w4a8_int8", "convrot": true, "params": {"group_size": 2}})");
  auto f = only_finding(sink, RuleId::QuantW4a8K);
  CHECK(f.verdict(Consumer::Sglang) == nullptr);
  CHECK(message_for(f, Consumer::Comfyui) ==
        "K=256 must be divisible by 16, group_size=2, and convrot_groupsize=256; group_size must be >=4 and divide "
        "16 or be a multiple of 16");
  CHECK(f.message.find("(as ComfyUI reads them)") != std::string::npos);
  CHECK(of_rule(sink, RuleId::QuantW4a8GroupSize).empty());
}

TEST_CASE("CQ-W4A8-HADAMARD (K6) and CQ-W4A8-CUDA-GROUPSIZE (K7, G5)",
          "[quant][CQ-W4A8-HADAMARD][CQ-W4A8-CUDA-GROUPSIZE]") {
  auto sink = run_w4a8(valid_fixture(), "p", w4a8_marker_with(R"("convrot_groupsize": 32)"));
  auto h = only_finding(sink, RuleId::QuantW4a8Hadamard);
  CHECK(message_for(h, Consumer::Kitchen) == "Regular Hadamard size must be a power of 4, got 32");
  CHECK(h.verdict(Consumer::Sglang) == nullptr);  // no power-of-4 test in S13 (G5)
  auto cuda = only_finding(sink, RuleId::QuantW4a8CudaGroupsize);
  CHECK(message_for(cuda, Consumer::Kitchen) == "convrot fused kernel only supports group_size 256");
  CHECK(cuda.message ==
        "comfy-kitchen's CUDA kernel needs convrot_groupsize 256 and K divisible by 256; found "
        "convrot_groupsize=32, K=256");

  sink = run_w4a8(valid_fixture(), "p", w4a8_marker_with(R"("convrot_groupsize": 64)"));
  CHECK(of_rule(sink, RuleId::QuantW4a8Hadamard).empty());
  CHECK(of_rule(sink, RuleId::QuantW4a8CudaGroupsize).size() == 1);
  CHECK(of_rule(sink, RuleId::QuantW4a8K).empty());
}

TEST_CASE("CQ-W4A8 hostile marker values and shapes never crash", "[quant]") {
  for (const char* v : {"0", "-1", "1180591620717411303424", "-1180591620717411303424",
                        "123456789012345678901234567890123456789012345678901234567890", "\"16\"", "16.0", "true",
                        "false", "null", "\"x\"", "NaN", "-Infinity", "[]", "{}", "1e400", "18446744073709551615"}) {
    for (const char* key : {"group_size", "convrot_groupsize"}) {
      const std::string m = w4a8_marker_with("\"" + std::string(key) + "\": " + v);
      CHECK_NOTHROW(run_w4a8(valid_fixture(), "p", m));
      CHECK_NOTHROW(run_w4a8(valid_fixture(), "p", R"({"format": "asym_w4a8_int8", "params": {")" + std::string(key) +
                                                  "\": " + v + "}}"));
    }
  }
  // 2^70 is a multiple of 16 but not a divisor of K.
  auto sink = run_w4a8(valid_fixture(), "p", w4a8_marker_with(R"("group_size": 1180591620717411303424)"));
  CHECK(message_for(only_finding(sink, RuleId::QuantW4a8K), Consumer::Sglang) ==
        "Serialized W4A8 layer 'p' has input size 256, incompatible with group_size=1180591620717411303424 and "
        "convrot_groupsize=256");
  CHECK(message_for(only_finding(sink, RuleId::QuantW4a8Shapes), Consumer::Sglang) ==
        "Comfy W4A8 layer 'p' has incompatible weight/scale shapes: (3, 128), (3, 16), and (3,)");

  // K past 2^64: exact decimals.
  const std::uint64_t big = UINT64_MAX;
  QuantFixture fx;
  fx.tensor("p.weight", Dtype::I8, {big, big})
      .tensor("p.weight_s_rel", Dtype::F8_E4M3, {big, big / 8})
      .tensor("p.weight_s_channel", Dtype::F32, {big});
  sink = run_w4a8(fx, "p", kW4a8Marker);
  auto k = only_finding(sink, RuleId::QuantW4a8K);
  CHECK(message_for(k, Consumer::Sglang) ==
        "Serialized W4A8 layer 'p' has input size 36893488147419103230, incompatible with group_size=16 and "
        "convrot_groupsize=256");
  CHECK(of_rule(sink, RuleId::QuantW4a8Shapes).empty());  // (2^65 - 2) // 16 == (2^64 - 1) // 8

  QuantFixture none;
  CHECK_NOTHROW(run_w4a8(none, "p", kW4a8Marker));
  QuantFixture scalar;
  scalar.tensor("p.weight", Dtype::I8, {}).tensor("p.weight_s_rel", Dtype::U8, {}).tensor("p.weight_s_channel",
                                                                                       Dtype::F32, {});
  sink = run_w4a8(scalar, "p", kW4a8Marker);
  CHECK(message_for(only_finding(sink, RuleId::QuantW4a8WeightRank), Consumer::Kitchen) == "orig_shape must be 2D, got ()");
}
