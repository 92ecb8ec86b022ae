// spec/quant mxfp8 rules: exact findings and consumer messages.
#include "props/catch.hpp"
#include "props/quant_support.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

constexpr std::string_view kMxfp8Marker = R"({"format": "mxfp8"})";

// N = 128, K = 128: the swizzled scale [128, 4] also looks logical (G12).
QuantFixture mxfp8_layer(const std::string& p, Dtype scale = Dtype::U8) {
  QuantFixture fx;
  fx.tensor(p + ".weight", Dtype::F8_E4M3, {128, 128}).tensor(p + ".weight_scale", scale, {128, 4});
  return fx;
}

quant::Sink run_mxfp8(const QuantFixture& fx, const std::string& prefix, std::string_view config = "MXFP8Config") {
  return layer_findings(fx, prefix, kMxfp8Marker, config);
}

}  // namespace

TEST_CASE("mxfp8 (L13): a canonical layer has no findings", "[quant]") {
  CHECK(run_mxfp8(mxfp8_layer("blk.0"), "blk.0").findings().empty());
  auto fx = mxfp8_layer("blk.0");
  fx.tensor("blk.0.input_scale", Dtype::F32, {});
  CHECK(run_mxfp8(fx, "blk.0", "").findings().empty());
  // N = 96, K = 160: kitchen pads the scale to [128, 8].
  QuantFixture pad;
  pad.tensor("q.weight", Dtype::F8_E4M3, {96, 160}).tensor("q.weight_scale", Dtype::U8, {128, 8});
  CHECK(run_mxfp8(pad, "q").findings().empty());
}

TEST_CASE("CQ-MXFP8-TENSORS (L13, C12): ComfyUI's missing-scale message, sglang skips mxfp8 markers (S9.0)",
          "[quant][CQ-MXFP8-TENSORS]") {
  QuantFixture fx;
  fx.tensor("model.diffusion_model.a'b\\c.weight", Dtype::F8_E4M3, {128, 128});
  auto f = of_rule(run_mxfp8(fx, "model.diffusion_model.a'b\\c"), RuleId::QuantMxfp8Tensors);
  REQUIRE(f.size() == 1);
  REQUIRE(f[0].verdicts.size() == 1);
  CHECK(message_for(f[0], Consumer::Comfyui) == "Missing MXFP8 block scales for layer a'b\\c");
  CHECK(f[0].verdicts[0].error == "ValueError");
  CHECK(f[0].verdicts[0].effect == Effect::Rejects);
  CHECK(f[0].verdict(Consumer::Sglang) == nullptr);
  CHECK(f[0].message ==
        "expected the mxfp8 tensors weight and weight_scale, missing 'model.diffusion_model.a\\'b\\\\c.weight_scale'");

  // Without a weight ComfyUI stops at C6 (CQ-MARKER-ORPHAN).
  QuantFixture none;
  auto f2 = of_rule(run_mxfp8(none, "b"), RuleId::QuantMxfp8Tensors);
  REQUIRE(f2.size() == 1);
  CHECK(f2[0].verdicts.empty());
}

TEST_CASE("CQ-MXFP8-DTYPES (L13, C12 view): scale dtypes ComfyUI views as E8M0", "[quant][CQ-MXFP8-DTYPES]") {
  CHECK(run_mxfp8(mxfp8_layer("p", Dtype::F8_E8M0), "p").findings().size() == 1);  // only the mmap warning
  CHECK(of_rule(run_mxfp8(mxfp8_layer("p", Dtype::F8_E8M0), "p"), RuleId::QuantMxfp8Dtypes).empty());
  // I8 keeps its bits through the view: non-canonical, but not mis-loaded.
  auto i8 = of_rule(run_mxfp8(mxfp8_layer("p", Dtype::I8), "p"), RuleId::QuantMxfp8Dtypes);
  REQUIRE(i8.size() == 1);
  CHECK(i8[0].verdicts.empty());
  CHECK(i8[0].message == "mxfp8 needs an F8_E4M3 weight and a U8 or F8_E8M0 weight_scale, got weight_scale I8");
  for (Dtype d : {Dtype::F8_E4M3, Dtype::F16, Dtype::F32}) {
    auto f = of_rule(run_mxfp8(mxfp8_layer("p", d), "p"), RuleId::QuantMxfp8Dtypes);
    REQUIRE(f.size() == 1);
    REQUIRE(f[0].verdicts.size() == 1);
    CHECK(f[0].verdicts[0].consumer == Consumer::Comfyui);
    CHECK(f[0].verdicts[0].effect == Effect::MisLoads);
  }
}

TEST_CASE("CQ-WEIGHT-CAST (§2.1, C13): ComfyUI value-casts a non-F8_E4M3 mxfp8 weight", "[quant][CQ-WEIGHT-CAST]") {
  for (Dtype d : {Dtype::U8, Dtype::I8, Dtype::F8_E5M2, Dtype::BF16}) {
    QuantFixture fx;
    fx.tensor("p.weight", d, {128, 128}).tensor("p.weight_scale", Dtype::U8, {128, 4});
    auto sink = run_mxfp8(fx, "p");
    auto f = of_rule(sink, RuleId::QuantWeightCast);
    REQUIRE(f.size() == 1);
    CHECK(f[0].where.text() == "tensor 'p.weight'");
    REQUIRE(f[0].verdicts.size() == 1);
    CHECK(f[0].verdicts[0].effect == Effect::MisLoads);
    auto dt = of_rule(sink, RuleId::QuantMxfp8Dtypes);
    REQUIRE(dt.size() == 1);
    CHECK(dt[0].verdicts.empty());
  }
  QuantFixture u8;
  u8.tensor("p.weight", Dtype::U8, {128, 128}).tensor("p.weight_scale", Dtype::U8, {128, 4});
  CHECK(of_rule(run_mxfp8(u8, "p"), RuleId::QuantWeightCast).at(0).message ==
        "expected the mxfp8 weight stored as F8_E4M3, found U8, which ComfyUI converts to float8_e4m3fn by value");
}

TEST_CASE("CQ-MXFP8-LAYOUT (L3, G12): the logical (N, K/32) scale is not kitchen's swizzled one",
          "[quant][CQ-MXFP8-LAYOUT]") {
  QuantFixture fx;
  fx.tensor("p.weight", Dtype::F8_E4M3, {96, 160}).tensor("p.weight_scale", Dtype::U8, {96, 5});
  auto f = of_rule(run_mxfp8(fx, "p"), RuleId::QuantMxfp8Layout);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message == "comfy-kitchen's swizzled mxfp8 weight_scale for weight (96, 160) is (128, 8), got (96, 5)");
  CHECK(f[0].verdict(Consumer::Comfyui)->effect == Effect::MisLoads);
  CHECK(f[0].verdict(Consumer::Kitchen)->effect == Effect::MisLoads);
  CHECK(f[0].verdict(Consumer::Sglang) == nullptr);

  QuantFixture unpadded;
  unpadded.tensor("p.weight", Dtype::F8_E4M3, {100, 160}).tensor("p.weight_scale", Dtype::U8, {128, 8});
  CHECK(of_rule(run_mxfp8(unpadded, "p"), RuleId::QuantMxfp8Layout).at(0).message ==
        "comfy-kitchen pads an mxfp8 weight to [N32, K32] (both multiples of 32), got (100, 160)");

  QuantFixture rank;
  rank.tensor("p.weight", Dtype::F8_E4M3, {128}).tensor("p.weight_scale", Dtype::U8, {128, 4});
  CHECK(of_rule(run_mxfp8(rank, "p"), RuleId::QuantMxfp8Layout).at(0).message ==
        "comfy-kitchen's mxfp8 weight is 2-D [N32, K32], got (128,)");
}

TEST_CASE("CQ-DTYPE-COMFY-MMAP (§2.1, G23): F8_E8M0 scales warn for ComfyUI's reader", "[quant][CQ-DTYPE-COMFY-MMAP]") {
  auto f = of_rule(run_mxfp8(mxfp8_layer("p", Dtype::F8_E8M0), "p"), RuleId::QuantDtypeComfyMmap);
  REQUIRE(f.size() == 1);
  REQUIRE(f[0].verdicts.size() == 1);
  CHECK(f[0].verdicts[0].consumer == Consumer::Comfyui);
  CHECK(f[0].verdicts[0].effect == Effect::Warns);
  CHECK(f[0].verdicts[0].error == "KeyError");
  CHECK(f[0].verdicts[0].message == "'F8_E8M0'");
  CHECK(f[0].message ==
        "store mxfp8 scales in dtypes ComfyUI's mmap reader knows (U8 for E8M0 codes); got 'p.weight_scale' F8_E8M0");
}

TEST_CASE("mxfp8 (L13): shapes near 2^64 never overflow", "[quant]") {
  const std::uint64_t big = UINT64_MAX;
  QuantFixture fx;
  fx.tensor("p.weight", Dtype::F8_E4M3, {big - 31, big - 31}).tensor("p.weight_scale", Dtype::U8, {big, 0});
  auto f = of_rule(run_mxfp8(fx, "p"), RuleId::QuantMxfp8Layout);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message ==
        "comfy-kitchen's swizzled mxfp8 weight_scale for weight (18446744073709551584, 18446744073709551584) is "
        "(18446744073709551616, 576460752303423488), got (18446744073709551615, 0)");
}
