// spec/quant int8 rules: exact findings and consumer messages.
#include "props/catch.hpp"
#include "props/quant_support.hpp"

#include "spec/quant/order.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

struct Run {
  quant::Sink sink;
};

// One int8 layer "p" with the given weight/scale (absent when dtype is
// nullopt) checked under the given sglang config.
Run run_int8(std::string_view marker, std::optional<std::pair<Dtype, std::vector<std::uint64_t>>> weight,
             std::optional<std::pair<Dtype, std::vector<std::uint64_t>>> scale, std::string_view config = "",
             std::string prefix = "p") {
  QuantFixture fx;
  if (weight) fx.tensor(prefix + ".weight", weight->first, weight->second);
  if (scale) fx.tensor(prefix + ".weight_scale", scale->first, scale->second);
  auto files = fx.files();
  quant::TensorTable table(files);
  auto h = make_layer(prefix, marker, config);
  Run r;
  run_header_rules(h.layer, table, r.sink);
  return r;
}

constexpr std::string_view kPlain = R"({"format": "int8_tensorwise"})";
constexpr std::string_view kRot64 = R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 64})";

std::pair<Dtype, std::vector<std::uint64_t>> w(std::vector<std::uint64_t> s, Dtype d = Dtype::I8) { return {d, s}; }
std::pair<Dtype, std::vector<std::uint64_t>> sc(std::vector<std::uint64_t> s, Dtype d = Dtype::F32) { return {d, s}; }

std::string rot(std::string_view groupsize) {
  return std::string(R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": )") +
         std::string(groupsize) + "}";
}

}  // namespace

TEST_CASE("CQ-INT8 (L14): valid tensor-wise, row-wise and ConvRot layers have no findings", "[quant]") {
  CHECK(run_int8(kPlain, w({3, 128}), sc({})).sink.findings().empty());
  CHECK(run_int8(kPlain, w({3, 128}), sc({3, 1})).sink.findings().empty());
  CHECK(run_int8(kRot64, w({3, 128}), sc({3, 1}), "KitchenInt8Config").sink.findings().empty());
  CHECK(run_int8(rot("256"), w({3, 512}), sc({3, 1}), "KitchenInt8Config").sink.findings().empty());
  // 16.0 == 16 for sglang's `in`, and int(16.0) is 16 for ComfyUI.
  CHECK(run_int8(rot("16.0"), w({3, 128}), sc({3, 1}), "KitchenInt8Config").sink.findings().empty());
  // U8 weights keep their bits in ComfyUI; without a config only sglang's S9.6 objects.
  auto u8 = run_int8(kPlain, w({3, 128}, Dtype::U8), sc({}));
  CHECK(of_rule(u8.sink, RuleId::QuantWeightCast).empty());
  // convrot off: ComfyUI never reads convrot_groupsize.
  CHECK(run_int8(R"({"format": "int8_tensorwise", "convrot": false, "convrot_groupsize": "x"})", w({3, 128}), sc({}))
            .sink.findings()
            .empty());
}

TEST_CASE("CQ-INT8-TENSORS (S9.1, C12): a missing scale", "[quant][CQ-INT8-TENSORS]") {
  auto r = run_int8(kPlain, w({3, 128}), std::nullopt);
  auto f = of_rule(r.sink, RuleId::QuantInt8Tensors);
  REQUIRE(f.size() == 1);
  CHECK(f[0].where.text() == "layer 'p'");
  CHECK(message_for(f[0], Consumer::Sglang) == "Comfy layer 'p' is missing checkpoint tensors: ['p.weight_scale']");
  CHECK(message_for(f[0], Consumer::Comfyui) == "Missing INT8 weight scale for layer p");
  CHECK(f[0].verdict(Consumer::Comfyui)->effect == Effect::Rejects);
  CHECK(f[0].verdict(Consumer::Comfyui)->error == "ValueError");
  CHECK(f[0].verdict(Consumer::Kitchen) == nullptr);
  CHECK(r.sink.findings().size() == 1);
}

TEST_CASE("CQ-INT8-TENSORS (S9.1, C6): no weight: ComfyUI warns and skips the layer", "[quant][CQ-INT8-TENSORS]") {
  auto r = run_int8(kPlain, std::nullopt, std::nullopt, "", "model.diffusion_model.blk'\xc3\xa9");
  auto f = of_rule(r.sink, RuleId::QuantInt8Tensors);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Comfy layer \"model.diffusion_model.blk'\xc3\xa9\" is missing checkpoint tensors: "
        "[\"model.diffusion_model.blk'\xc3\xa9.weight\", \"model.diffusion_model.blk'\xc3\xa9.weight_scale\"]");
  CHECK(f[0].verdict(Consumer::Comfyui) == nullptr);  // C6 is CQ-MARKER-ORPHAN's (analyze.cpp)
  CHECK(r.sink.findings().size() == 1);
}

TEST_CASE("CQ-INT8-DTYPES (S9.6.2): I8 weights and F32 scales", "[quant][CQ-INT8-DTYPES]") {
  auto r = run_int8(kPlain, w({3, 128}, Dtype::U8), sc({}));
  auto f = of_rule(r.sink, RuleId::QuantInt8Dtypes);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Comfy INT8 layer 'p' needs I8 weights and F32 scales, got U8 and F32");
  CHECK(f[0].verdict(Consumer::Comfyui) == nullptr);
  auto bf = run_int8(kPlain, w({3, 128}), sc({3, 1}, Dtype::BF16));
  REQUIRE(of_rule(bf.sink, RuleId::QuantInt8Dtypes).size() == 1);
  CHECK(message_for(of_rule(bf.sink, RuleId::QuantInt8Dtypes)[0], Consumer::Sglang) ==
        "Comfy INT8 layer 'p' needs I8 weights and F32 scales, got I8 and BF16");
}

TEST_CASE("CQ-INT8-WEIGHT-RANK (S9.6.1): a scalar-scale weight is 2-D", "[quant][CQ-INT8-WEIGHT-RANK]") {
  auto r = run_int8(kPlain, w({3, 4, 128}), sc({}));
  auto f = of_rule(r.sink, RuleId::QuantInt8WeightRank);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) == "Comfy tensorwise INT8 layer 'p' needs a 2D weight, got (3, 4, 128)");
  CHECK(of_rule(r.sink, RuleId::QuantInt8Shapes).empty());
  CHECK(r.sink.findings().size() == 1);
}

TEST_CASE("CQ-INT8-SHAPES (S9.6.2, K10): a row-wise scale is (N, 1)", "[quant][CQ-INT8-SHAPES]") {
  // (N,): sglang rejects; kitchen's GEMM takes numel N.
  auto n = run_int8(kPlain, w({3, 128}), sc({3}));
  auto f = of_rule(n.sink, RuleId::QuantInt8Shapes);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Comfy INT8 layer 'p' has incompatible weight/scale shapes: (3, 128) and (3,)");
  CHECK(f[0].verdict(Consumer::Kitchen) == nullptr);
  // numel neither 1 nor N: kitchen prints the flattened scale shape.
  auto bad = run_int8(kPlain, w({3, 128}), sc({2, 1}));
  f = of_rule(bad.sink, RuleId::QuantInt8Shapes);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Comfy INT8 layer 'p' has incompatible weight/scale shapes: (3, 128) and (2, 1)");
  CHECK(message_for(f[0], Consumer::Kitchen) ==
        "INT8 weight scale must be scalar or per-output-channel, got (2,) for weight shape (3, 128)");
  // (1,) takes sglang's row-wise branch; 3-D weight with a row scale.
  CHECK(of_rule(run_int8(kPlain, w({3, 128}), sc({1})).sink, RuleId::QuantInt8Shapes).size() == 1);
  auto rank = run_int8(kPlain, w({3, 4, 128}), sc({3, 1}));
  f = of_rule(rank.sink, RuleId::QuantInt8Shapes);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Comfy INT8 layer 'p' has incompatible weight/scale shapes: (3, 4, 128) and (3, 1)");
  CHECK(of_rule(rank.sink, RuleId::QuantInt8WeightRank).empty());
}

TEST_CASE("CQ-INT8-DTYPES before CQ-INT8-SHAPES (S9.6): sglang's first raise",
          "[quant][CQ-INT8-DTYPES][CQ-INT8-SHAPES]") {
  // A wrong dtype sends a ()-scale layer into the row-wise branch: the dtype check raises first.
  auto r = run_int8(kPlain, w({3, 4, 128}, Dtype::F16), sc({}));
  auto d = of_rule(r.sink, RuleId::QuantInt8Dtypes), k = of_rule(r.sink, RuleId::QuantInt8WeightRank);
  REQUIRE(d.size() == 1);
  REQUIRE(k.size() == 1);
  CHECK(d[0].verdict(Consumer::Sglang)->order < k[0].verdict(Consumer::Sglang)->order);
  auto s = run_int8(kPlain, w({3, 128}, Dtype::F16), sc({3}));
  d = of_rule(s.sink, RuleId::QuantInt8Dtypes);
  auto sh = of_rule(s.sink, RuleId::QuantInt8Shapes);
  REQUIRE(d.size() == 1);
  REQUIRE(sh.size() == 1);
  CHECK(d[0].verdict(Consumer::Sglang)->order < sh[0].verdict(Consumer::Sglang)->order);
  CHECK(d[0].verdict(Consumer::Sglang)->order > quant::order::sg_layer(0, 0));
}

TEST_CASE("CQ-WEIGHT-CAST (C13): a float int8 weight is converted numerically", "[quant][CQ-WEIGHT-CAST]") {
  auto r = run_int8(kPlain, w({3, 128}, Dtype::F16), sc({}));
  auto f = of_rule(r.sink, RuleId::QuantWeightCast);
  REQUIRE(f.size() == 1);
  CHECK(f[0].where.text() == "tensor 'p.weight'");
  REQUIRE(f[0].verdict(Consumer::Comfyui) != nullptr);
  CHECK(f[0].verdict(Consumer::Comfyui)->effect == Effect::MisLoads);
  CHECK(f[0].verdict(Consumer::Comfyui)->message.empty());
  CHECK(f[0].verdict(Consumer::Sglang) == nullptr);
}

TEST_CASE("CQ-INT8-CONVROT (S17): int8-only checkpoints set convrot to true", "[quant][CQ-INT8-CONVROT]") {
  for (std::string_view m : {R"({"format": "int8_tensorwise", "convrot_groupsize": 64})",
                             R"({"format": "int8_tensorwise", "convrot": 1, "convrot_groupsize": 64})",
                             R"({"format": "int8_tensorwise", "params": {"convrot": true}, "convrot_groupsize": 64})"}) {
    auto r = run_int8(m, w({3, 128}), sc({3, 1}), "KitchenInt8Config", "a\\b");
    auto f = of_rule(r.sink, RuleId::QuantInt8Convrot);
    REQUIRE(f.size() == 1);
    CHECK(message_for(f[0], Consumer::Sglang) == "Serialized kitchen_int8 layer 'a\\\\b' must set convrot=true");
    CHECK(f[0].verdict(Consumer::Sglang)->order == quant::order::sg_config(0, 0));
  }
  // Other configs do not run S17.
  CHECK(of_rule(run_int8(kPlain, w({3, 128}), sc({3, 1}), "KitchenW4A8Config").sink, RuleId::QuantInt8Convrot).empty());
}

TEST_CASE("CQ-INT8-CONVROT-GROUPSIZE (S17): in (16, 64, 256) with no default", "[quant][CQ-INT8-CONVROT-GROUPSIZE]") {
  auto absent = run_int8(R"({"format": "int8_tensorwise", "convrot": true})", w({3, 512}), sc({3, 1}),
                         "KitchenInt8Config");
  auto f = of_rule(absent.sink, RuleId::QuantInt8ConvrotGroupsize);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Serialized kitchen_int8 layer 'p' must declare convrot_groupsize in (16, 64, 256), got None");
  CHECK(f[0].verdict(Consumer::Kitchen) == nullptr);  // ComfyUI's default 256 divides 512
  CHECK(absent.sink.findings().size() == 1);

  auto str = run_int8(rot("\"16\""), w({3, 512}), sc({3, 1}), "KitchenInt8Config");
  f = of_rule(str.sink, RuleId::QuantInt8ConvrotGroupsize);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Serialized kitchen_int8 layer 'p' must declare convrot_groupsize in (16, 64, 256), got '16'");
  CHECK(f[0].verdict(Consumer::Kitchen) == nullptr);  // int("16") == 16

  // True == 1 is not in the tuple; ComfyUI's int(True) == 1 is no Hadamard size.
  auto t = run_int8(rot("true"), w({3, 512}), sc({3, 1}), "KitchenInt8Config");
  f = of_rule(t.sink, RuleId::QuantInt8ConvrotGroupsize);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Serialized kitchen_int8 layer 'p' must declare convrot_groupsize in (16, 64, 256), got True");
  CHECK(message_for(f[0], Consumer::Kitchen) == "Regular Hadamard size must be a power of 4, got 1");
}

TEST_CASE("CQ-INT8-CONVROT-GROUPSIZE (S17, K10, K6): C divides K and is a power of 4",
          "[quant][CQ-INT8-CONVROT-GROUPSIZE]") {
  auto r = run_int8(rot("256"), w({3, 128}), sc({3, 1}), "KitchenInt8Config");
  auto f = of_rule(r.sink, RuleId::QuantInt8ConvrotGroupsize);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Serialized kitchen_int8 layer 'p' has input size 128, which is not divisible by its ConvRot group size 256");
  CHECK(f[0].verdict(Consumer::Sglang)->order == quant::order::sg_method(0, 0));
  CHECK(message_for(f[0], Consumer::Kitchen) == "ConvRot group size 256 does not divide input features 128");

  // Without sglang's config only ComfyUI's kitchen path judges.
  auto k128 = run_int8(rot("128"), w({3, 256}), sc({3, 1}));
  f = of_rule(k128.sink, RuleId::QuantInt8ConvrotGroupsize);
  REQUIRE(f.size() == 1);
  CHECK(f[0].verdict(Consumer::Sglang) == nullptr);
  CHECK(message_for(f[0], Consumer::Kitchen) == "Regular Hadamard size must be a power of 4, got 128");
  CHECK(message_for(of_rule(run_int8(rot("128"), w({3, 192}), sc({3, 1})).sink, RuleId::QuantInt8ConvrotGroupsize)[0],
                    Consumer::Kitchen) == "ConvRot group size 128 does not divide input features 192");
  auto neg = run_int8(rot("-16"), w({3, 256}), sc({3, 1}));
  CHECK(message_for(of_rule(neg.sink, RuleId::QuantInt8ConvrotGroupsize)[0], Consumer::Kitchen) ==
        "Regular Hadamard size must be a power of 4, got -16");
  auto zero = run_int8(rot("0"), w({3, 256}), sc({3, 1}));
  f = of_rule(zero.sink, RuleId::QuantInt8ConvrotGroupsize);
  REQUIRE(f.size() == 1);
  CHECK(f[0].verdict(Consumer::Kitchen)->error == "ZeroDivisionError");
  CHECK(message_for(f[0], Consumer::Kitchen) == "integer modulo by zero");
  // Beyond int64 kitchen's behaviour is not determined: a strict finding only.
  auto huge = run_int8(rot("1180591620717411303424"), w({3, 256}), sc({3, 1}));
  f = of_rule(huge.sink, RuleId::QuantInt8ConvrotGroupsize);
  REQUIRE(f.size() == 1);
  CHECK(f[0].verdicts.empty());
  // A layer that is not ConvRot for anyone has no group size to check.
  CHECK(run_int8(R"({"format": "int8_tensorwise", "convrot_groupsize": 7})", w({3, 256}), sc({3, 1}))
            .sink.findings()
            .empty());
}

TEST_CASE("CQ-MARKER-INT (C12): ComfyUI's int(convrot_groupsize) raises", "[quant][CQ-MARKER-INT]") {
  auto x = run_int8(rot("\"x\""), w({3, 256}), sc({3, 1}));
  auto f = of_rule(x.sink, RuleId::QuantKeyInt);
  REQUIRE(f.size() == 1);
  CHECK(f[0].verdict(Consumer::Comfyui)->error == "ValueError");
  CHECK(message_for(f[0], Consumer::Comfyui) == "invalid literal for int() with base 10: 'x'");
  CHECK(f[0].verdict(Consumer::Comfyui)->order == quant::order::cu_layer(0, 3));
  CHECK(f[0].verdict(Consumer::Sglang) == nullptr);
  auto none = run_int8(rot("null"), w({3, 256}), sc({3, 1}));
  REQUIRE(of_rule(none.sink, RuleId::QuantKeyInt).size() == 1);
  CHECK(of_rule(none.sink, RuleId::QuantKeyInt)[0].verdict(Consumer::Comfyui)->error == "TypeError");
  auto inf = run_int8(rot("1e400"), w({3, 256}), sc({3, 1}));
  REQUIRE(of_rule(inf.sink, RuleId::QuantKeyInt).size() == 1);
  CHECK(of_rule(inf.sink, RuleId::QuantKeyInt)[0].verdict(Consumer::Comfyui)->error == "OverflowError");
  // ComfyUI reads the legacy params object too.
  auto nested = run_int8(R"({"format": "int8_tensorwise", "params": {"convrot": true, "convrot_groupsize": [16]}})",
                         w({3, 256}), sc({3, 1}));
  REQUIRE(of_rule(nested.sink, RuleId::QuantKeyInt).size() == 1);
  CHECK(of_rule(nested.sink, RuleId::QuantKeyInt)[0].verdict(Consumer::Comfyui)->error == "TypeError");
  // The scale check raises before int() is reached.
  auto both = run_int8(rot("\"x\""), w({3, 256}), std::nullopt);
  CHECK(of_rule(both.sink, RuleId::QuantInt8Tensors)[0].verdict(Consumer::Comfyui)->order <
        of_rule(both.sink, RuleId::QuantKeyInt)[0].verdict(Consumer::Comfyui)->order);
}

TEST_CASE("CQ-INT8 (L14): hostile values never crash", "[quant]") {
  for (std::string_view g : {"0", "-1", "1180591620717411303424", "\"16\"", "16.0", "16.5", "true", "false", "null",
                             "\"x\"", "NaN", "Infinity", "[]", "{}"}) {
    for (std::string_view cfg : {"", "KitchenInt8Config"}) {
      auto r = run_int8(rot(g), w({UINT64_MAX, UINT64_MAX}), sc({UINT64_MAX, UINT64_MAX}), cfg);
      for (const auto& lf : r.sink.findings()) CHECK(!lf.finding.message.empty());
      auto e = run_int8(rot(g), w({0, 0}), sc({0}), cfg);
      (void)e;
    }
  }
}
