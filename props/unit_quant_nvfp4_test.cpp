// spec/quant nvfp4 rules: exact findings and consumer messages.
#include "props/catch.hpp"
#include "props/quant_support.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

constexpr std::string_view kNvfp4Marker = R"({"format": "nvfp4", "full_precision_matrix_mult": true})";
constexpr std::string_view kNvfp4Config = "ComfyNvfp4Config";

// N = 128, K = 64: sglang's (N, K/16) and kitchen's swizzled shape coincide.
QuantFixture valid_layer(const std::string& p) {
  QuantFixture fx;
  fx.tensor(p + ".weight", Dtype::U8, {128, 32})
      .tensor(p + ".weight_scale", Dtype::F8_E4M3, {128, 4})
      .tensor(p + ".weight_scale_2", Dtype::F32, {});
  return fx;
}

quant::Sink run_nvfp4(const QuantFixture& fx, const std::string& prefix, std::string_view marker = kNvfp4Marker,
                std::string_view config = kNvfp4Config) {
  return layer_findings(fx, prefix, marker, config);
}

const Verdict* verdict_of(const Finding& f, Consumer c) { return f.verdict(c); }

}  // namespace

TEST_CASE("nvfp4 (L12): a canonical layer has no findings", "[quant]") {
  CHECK(run_nvfp4(valid_layer("blk.0"), "blk.0").findings().empty());
  // With an optional pre_quant_scale of shape (K,) and an input_scale.
  auto fx = valid_layer("blk.0");
  fx.tensor("blk.0.pre_quant_scale", Dtype::BF16, {64}).tensor("blk.0.input_scale", Dtype::F32, {});
  CHECK(run_nvfp4(fx, "blk.0").findings().empty());
  // Zero-sized dimensions: both shapes are (0, 0).
  QuantFixture z;
  z.tensor("z.weight", Dtype::U8, {0, 0}).tensor("z.weight_scale", Dtype::F8_E4M3, {0, 0}).tensor(
      "z.weight_scale_2", Dtype::F32, {1});
  CHECK(run_nvfp4(z, "z").findings().empty());
}

TEST_CASE("CQ-NVFP4-TENSORS (S9.1, C12): sglang and ComfyUI messages", "[quant][CQ-NVFP4-TENSORS]") {
  QuantFixture fx;
  fx.tensor("model.diffusion_model.blk.0.weight", Dtype::U8, {128, 32})
      .tensor("model.diffusion_model.blk.0.weight_scale", Dtype::F8_E4M3, {128, 4});
  auto sink = run_nvfp4(fx, "model.diffusion_model.blk.0");
  auto f = of_rule(sink, RuleId::QuantNvfp4Tensors);
  REQUIRE(f.size() == 1);
  CHECK(f[0].where.text() == "layer 'model.diffusion_model.blk.0'");
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Comfy layer 'model.diffusion_model.blk.0' is missing checkpoint tensors: "
        "['model.diffusion_model.blk.0.weight_scale_2']");
  CHECK(message_for(f[0], Consumer::Comfyui) == "Missing NVFP4 scales for layer blk.0");
  CHECK(f[0].verdict(Consumer::Comfyui)->error == "ValueError");
  CHECK(f[0].verdict(Consumer::Kitchen) == nullptr);

  // Without a weight ComfyUI stops at C6 (CQ-MARKER-ORPHAN); sglang lists all three, sorted.
  QuantFixture none;
  auto f2 = of_rule(run_nvfp4(none, "b"), RuleId::QuantNvfp4Tensors);
  REQUIRE(f2.size() == 1);
  CHECK(message_for(f2[0], Consumer::Sglang) ==
        "Comfy layer 'b' is missing checkpoint tensors: ['b.weight', 'b.weight_scale', 'b.weight_scale_2']");
  CHECK(f2[0].verdict(Consumer::Comfyui) == nullptr);
}

TEST_CASE("CQ-NVFP4-DTYPES (S9.5.1): sglang message with repr of a hostile prefix", "[quant][CQ-NVFP4-DTYPES]") {
  const std::string p = "a'b\\c \xc3\xa9";  // a'b\c é
  QuantFixture fx;
  fx.tensor(p + ".weight", Dtype::I8, {128, 32})
      .tensor(p + ".weight_scale", Dtype::U8, {128, 4})
      .tensor(p + ".weight_scale_2", Dtype::F32, {});
  auto sink = run_nvfp4(fx, p);
  auto f = of_rule(sink, RuleId::QuantNvfp4Dtypes);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Comfy NVFP4 layer \"a'b\\\\c \xc3\xa9\" needs U8 packed weights and FP8 block scales, got I8 and U8");
  CHECK(f[0].message == "nvfp4 needs a U8 weight and an F8_E4M3 weight_scale, got I8 and U8");
  // I8 weights and U8 scales keep their bits through ComfyUI's cast and view.
  CHECK(f[0].verdict(Consumer::Comfyui) == nullptr);
  CHECK(of_rule(sink, RuleId::QuantWeightCast).empty());
  CHECK(sink.findings().size() == 1);
}

TEST_CASE("CQ-NVFP4-DTYPES (S9.5.1, C12 view): a float block scale of another kind mis-loads in ComfyUI",
          "[quant][CQ-NVFP4-DTYPES]") {
  for (Dtype d : {Dtype::F8_E5M2, Dtype::F16, Dtype::F32}) {
    QuantFixture fx;
    fx.tensor("p.weight", Dtype::U8, {128, 32}).tensor("p.weight_scale", d, {128, 4}).tensor("p.weight_scale_2",
                                                                                           Dtype::F32, {});
    auto f = of_rule(run_nvfp4(fx, "p"), RuleId::QuantNvfp4Dtypes);
    REQUIRE(f.size() == 1);
    const Verdict* cu = verdict_of(f[0], Consumer::Comfyui);
    REQUIRE(cu);
    CHECK(cu->effect == Effect::MisLoads);
    CHECK(cu->message.empty());
    CHECK(f[0].verdict(Consumer::Kitchen) == nullptr);
  }
}

TEST_CASE("CQ-NVFP4-GLOBAL-SCALE (S9.5.2): dtype and shape concatenated", "[quant][CQ-NVFP4-GLOBAL-SCALE]") {
  auto check = [](Dtype d, std::vector<std::uint64_t> shape, const std::string& want) {
    QuantFixture fx;
    fx.tensor("p.weight", Dtype::U8, {128, 32}).tensor("p.weight_scale", Dtype::F8_E4M3, {128, 4}).tensor(
        "p.weight_scale_2", d, std::move(shape));
    auto f = of_rule(run_nvfp4(fx, "p"), RuleId::QuantNvfp4GlobalScale);
    if (want.empty()) {
      CHECK(f.empty());
      return;
    }
    REQUIRE(f.size() == 1);
    CHECK(f[0].where.text() == "tensor 'p.weight_scale_2'");
    CHECK(message_for(f[0], Consumer::Sglang) == "Comfy NVFP4 layer 'p' needs a scalar F32 weight_scale_2, got " + want);
    CHECK(f[0].verdicts.size() == 1);
  };
  check(Dtype::F32, {2}, "F32(2,)");
  check(Dtype::BF16, {}, "BF16()");
  check(Dtype::F32, {1, 1}, "F32(1, 1)");
  check(Dtype::F32, {1}, "");
  check(Dtype::F32, {}, "");
}

TEST_CASE("CQ-NVFP4-WEIGHT-RANK (S9.5.3): a non-2-D weight", "[quant][CQ-NVFP4-WEIGHT-RANK]") {
  QuantFixture fx;
  fx.tensor("p.weight", Dtype::U8, {128, 32, 1})
      .tensor("p.weight_scale", Dtype::F8_E4M3, {128, 4})
      .tensor("p.weight_scale_2", Dtype::F32, {});
  auto sink = run_nvfp4(fx, "p");
  auto f = of_rule(sink, RuleId::QuantNvfp4WeightRank);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) == "Comfy NVFP4 layer 'p' needs a 2D packed weight, got (128, 32, 1)");
  // No shape check without a 2-D weight; kitchen's layout is broken too.
  CHECK(of_rule(sink, RuleId::QuantNvfp4Shapes).empty());
  auto lay = of_rule(sink, RuleId::QuantNvfp4Layout);
  REQUIRE(lay.size() == 1);
  CHECK(lay[0].message == "comfy-kitchen's nvfp4 weight is 2-D [N16, K16/2], got (128, 32, 1)");
}

TEST_CASE("CQ-NVFP4-SHAPES / CQ-NVFP4-LAYOUT (S9.5.4, L3, G13): sglang's and kitchen's scale shapes differ",
          "[quant][CQ-NVFP4-SHAPES][CQ-NVFP4-LAYOUT]") {
  // N16 = 112, K16 = 80: sglang wants (112, 5), kitchen writes (128, 8).
  auto with_scale = [](std::vector<std::uint64_t> scale) {
    QuantFixture fx;
    fx.tensor("p.weight", Dtype::U8, {112, 40})
        .tensor("p.weight_scale", Dtype::F8_E4M3, std::move(scale))
        .tensor("p.weight_scale_2", Dtype::F32, {});
    return run_nvfp4(fx, "p");
  };
  SECTION("kitchen's swizzled scale: sglang rejects") {
    auto sink = with_scale({128, 8});
    CHECK(of_rule(sink, RuleId::QuantNvfp4Layout).empty());
    auto f = of_rule(sink, RuleId::QuantNvfp4Shapes);
    REQUIRE(f.size() == 1);
    CHECK(message_for(f[0], Consumer::Sglang) ==
          "Comfy NVFP4 layer 'p' has incompatible weight/scale shapes: (112, 40) and (128, 8)");
    CHECK(f[0].message ==
          "sglang needs K = 80 divisible by 16 and weight_scale (N, K/16) = (112, 5), got weight (112, 40) and "
          "weight_scale (128, 8)");
    CHECK(f[0].verdicts.size() == 1);
  }
  SECTION("sglang's logical scale: ComfyUI and kitchen compute with an unswizzled scale") {
    auto sink = with_scale({112, 5});
    CHECK(of_rule(sink, RuleId::QuantNvfp4Shapes).empty());
    auto f = of_rule(sink, RuleId::QuantNvfp4Layout);
    REQUIRE(f.size() == 1);
    CHECK(f[0].message == "comfy-kitchen's swizzled nvfp4 weight_scale for weight (112, 40) is (128, 8), got (112, 5)");
    CHECK(f[0].verdict(Consumer::Sglang) == nullptr);
    CHECK(f[0].verdict(Consumer::Comfyui)->effect == Effect::MisLoads);
    CHECK(f[0].verdict(Consumer::Kitchen)->effect == Effect::MisLoads);
  }
  SECTION("K % 16 != 0 for sglang; an unpadded width for kitchen") {
    QuantFixture fx;
    fx.tensor("p.weight", Dtype::U8, {128, 36})
        .tensor("p.weight_scale", Dtype::F8_E4M3, {128, 4})
        .tensor("p.weight_scale_2", Dtype::F32, {});
    auto sink = run_nvfp4(fx, "p");
    auto f = of_rule(sink, RuleId::QuantNvfp4Shapes);
    REQUIRE(f.size() == 1);
    CHECK(message_for(f[0], Consumer::Sglang) ==
          "Comfy NVFP4 layer 'p' has incompatible weight/scale shapes: (128, 36) and (128, 4)");
    auto lay = of_rule(sink, RuleId::QuantNvfp4Layout);
    REQUIRE(lay.size() == 1);
    CHECK(lay[0].message ==
          "comfy-kitchen pads an nvfp4 weight to [N16, K16/2] (rows a multiple of 16, bytes per row a multiple of 8), "
          "got (128, 36)");
  }
}

TEST_CASE("CQ-NVFP4-PRE-QUANT-SCALE (S9.5.5): dtype and shape (K,)", "[quant][CQ-NVFP4-PRE-QUANT-SCALE]") {
  auto check = [](Dtype d, std::vector<std::uint64_t> shape, const std::string& want) {
    auto fx = valid_layer("p");
    fx.tensor("p.pre_quant_scale", d, std::move(shape));
    auto f = of_rule(run_nvfp4(fx, "p"), RuleId::QuantNvfp4PreQuantScale);
    if (want.empty()) {
      CHECK(f.empty());
      return;
    }
    REQUIRE(f.size() == 1);
    CHECK(message_for(f[0], Consumer::Sglang) == "Comfy NVFP4 layer 'p' has an incompatible pre_quant_scale: " + want);
    CHECK(f[0].verdict(Consumer::Comfyui) == nullptr);
  };
  check(Dtype::F32, {32}, "F32(32,)");
  check(Dtype::I8, {64}, "I8(64,)");
  check(Dtype::BF16, {1, 64}, "BF16(1, 64)");
  check(Dtype::F16, {64}, "");
  check(Dtype::F32, {64}, "");
  // Without a weight only the dtype can be judged.
  QuantFixture fx;
  fx.tensor("q.pre_quant_scale", Dtype::F16, {3});
  CHECK(of_rule(run_nvfp4(fx, "q"), RuleId::QuantNvfp4PreQuantScale).empty());
  QuantFixture bad;
  bad.tensor("q.pre_quant_scale", Dtype::F64, {3});
  auto f = of_rule(run_nvfp4(bad, "q"), RuleId::QuantNvfp4PreQuantScale);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message == "an nvfp4 pre_quant_scale is BF16, F16 or F32 of shape (K,), got F64 (3,)");
}

TEST_CASE("CQ-NVFP4-FULL-PRECISION (S19): only JSON true passes, only under ComfyNvfp4Config",
          "[quant][CQ-NVFP4-FULL-PRECISION]") {
  for (std::string_view m : {R"({"format": "nvfp4"})", R"({"format": "nvfp4", "full_precision_matrix_mult": 1})",
                             R"({"format": "nvfp4", "full_precision_matrix_mult": 1.0})",
                             R"({"format": "nvfp4", "full_precision_matrix_mult": "true"})",
                             R"({"format": "nvfp4", "full_precision_matrix_mult": false})",
                             R"({"format": "nvfp4", "full_precision_matrix_mult": null})",
                             R"({"format": "nvfp4", "params": {"full_precision_matrix_mult": true}})"}) {
    auto f = of_rule(run_nvfp4(valid_layer("blk.0"), "blk.0", m), RuleId::QuantNvfp4FullPrecision);
    REQUIRE(f.size() == 1);
    CHECK(message_for(f[0], Consumer::Sglang) == "Comfy NVFP4 layer 'blk.0' must request full_precision_matrix_mult");
    CHECK(f[0].verdicts.size() == 1);
  }
  auto f = of_rule(run_nvfp4(valid_layer("blk.0"), "blk.0", R"({"format": "nvfp4", "full_precision_matrix_mult": 1})"),
                   RuleId::QuantNvfp4FullPrecision);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message == "sglang's ComfyNvfp4Config needs \"full_precision_matrix_mult\": true, got 1");
  // Another resolution (or none) never runs S19.
  CHECK(run_nvfp4(valid_layer("blk.0"), "blk.0", R"({"format": "nvfp4"})", "").findings().empty());
}

TEST_CASE("CQ-WEIGHT-CAST (§2.1, C13): ComfyUI value-casts a non-integer nvfp4 weight to uint8",
          "[quant][CQ-WEIGHT-CAST]") {
  QuantFixture fx;
  fx.tensor("p.weight", Dtype::F16, {128, 32})
      .tensor("p.weight_scale", Dtype::F8_E4M3, {128, 4})
      .tensor("p.weight_scale_2", Dtype::F32, {});
  auto sink = run_nvfp4(fx, "p");
  auto f = of_rule(sink, RuleId::QuantWeightCast);
  REQUIRE(f.size() == 1);
  CHECK(f[0].where.text() == "tensor 'p.weight'");
  REQUIRE(f[0].verdicts.size() == 1);
  CHECK(f[0].verdicts[0].consumer == Consumer::Comfyui);
  CHECK(f[0].verdicts[0].effect == Effect::MisLoads);
  CHECK(message_for(of_rule(sink, RuleId::QuantNvfp4Dtypes).at(0), Consumer::Sglang) ==
        "Comfy NVFP4 layer 'p' needs U8 packed weights and FP8 block scales, got F16 and F8_E4M3");
}

TEST_CASE("CQ-DTYPE-COMFY-MMAP (§2.1, G23): F4 data or F8_E8M0 scales warn for ComfyUI's reader",
          "[quant][CQ-DTYPE-COMFY-MMAP]") {
  QuantFixture fx;
  fx.tensor("p.weight", Dtype::F4, {128, 64})
      .tensor("p.weight_scale", Dtype::F8_E8M0, {128, 4})
      .tensor("p.weight_scale_2", Dtype::F32, {});
  auto sink = run_nvfp4(fx, "p");
  auto f = of_rule(sink, RuleId::QuantDtypeComfyMmap);
  REQUIRE(f.size() == 1);
  REQUIRE(f[0].verdicts.size() == 1);
  CHECK(f[0].verdicts[0].effect == Effect::Warns);
  CHECK(f[0].verdicts[0].error == "KeyError");
  CHECK(f[0].verdicts[0].message == "'F4'");
  CHECK(f[0].message ==
        "store nvfp4 data and scales in dtypes ComfyUI's mmap reader knows (U8 for packed data); got "
        "'p.weight' F4, 'p.weight_scale' F8_E8M0");
  CHECK(of_rule(sink, RuleId::QuantWeightCast).size() == 1);
}

TEST_CASE("nvfp4 (L12): shapes near 2^64 never overflow", "[quant]") {
  const std::uint64_t big = UINT64_MAX;
  QuantFixture fx;
  fx.tensor("p.weight", Dtype::U8, {big - 15, big - 7})
      .tensor("p.weight_scale", Dtype::F8_E4M3, {1, 1})
      .tensor("p.weight_scale_2", Dtype::F32, {})
      .tensor("p.pre_quant_scale", Dtype::F32, {big});
  auto sink = run_nvfp4(fx, "p");
  auto lay = of_rule(sink, RuleId::QuantNvfp4Layout);
  REQUIRE(lay.size() == 1);
  CHECK(lay[0].message ==
        "comfy-kitchen's swizzled nvfp4 weight_scale for weight (18446744073709551600, 18446744073709551608) is "
        "(18446744073709551616, 2305843009213693952), got (1, 1)");
  auto sh = of_rule(sink, RuleId::QuantNvfp4Shapes);
  REQUIRE(sh.size() == 1);
  CHECK(sh[0].message ==
        "sglang needs K = 36893488147419103216 divisible by 16 and weight_scale (N, K/16) = "
        "(18446744073709551600, 2305843009213693951), got weight (18446744073709551600, 18446744073709551608) and "
        "weight_scale (1, 1)");
  auto pq = of_rule(sink, RuleId::QuantNvfp4PreQuantScale);
  REQUIRE(pq.size() == 1);
  CHECK(pq[0].message ==
        "an nvfp4 pre_quant_scale is BF16, F16 or F32 of shape (36893488147419103216,), got F32 "
        "(18446744073709551615,)");
}
