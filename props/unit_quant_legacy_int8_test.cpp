// Legacy marker-less INT8 ConvRot checkpoints (docs/spec/quant-legacy-int8.md,
// LI1-LI6): the config.json declaration as sglang's MiniMax-H3 loader reads
// it, and each rule's finding and exact sglang message.
#include <fstream>
#include <string>
#include <vector>

#include "gen/file_bytes.hpp"
#include "props/catch.hpp"
#include "props/quant_support.hpp"
#include "props/unit_support.hpp"
#include "spec/quant/analyze.hpp"
#include "spec/quant/model_config.hpp"
#include "src/commands/check.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

std::vector<Finding> legacy_findings(const quant::Analysis& a, RuleId rule) {
  std::vector<Finding> out;
  for (const quant::LocatedFinding& lf : a.findings)
    if (lf.finding.rule == rule) out.push_back(lf.finding);
  return out;
}

quant::ModelConfig legacy_config(std::string_view json) { return quant::read_model_config("config.json", json); }

const std::string kLegacyDeclaration = R"({"quantization_config": {"quant_method": "int8", "convrot": true}})";

// The fork's own test checkpoint: one I8 (2, 4) weight with its F32 (2, 1) scale.
Marked legacy_checkpoint() {
  Marked m;
  m.fx.tensor("blocks.0.mlp.fc1.weight", Dtype::I8, {2, 4}).tensor("blocks.0.mlp.fc1.weight_scale", Dtype::F32, {2, 1});
  return m;
}

bool legacy_sglang_rejects(const Finding& f) {
  const Verdict* v = f.verdict(Consumer::Sglang);
  return v && v->effect == Effect::Rejects;
}

}  // namespace

TEST_CASE("legacy INT8 config: resolve_checkpoint_quant_spec's three places, in its order", "[quant][CQ-LEGACY-INT8]") {
  const auto top = legacy_config(kLegacyDeclaration);
  CHECK(top.source == "quantization_config");
  CHECK(top.legacy_int8());
  const auto text = legacy_config(R"({"text_config": {"quantization_config": {"quant_method": "int8", "convrot": true}}})");
  CHECK(text.source == "text_config.quantization_config");
  CHECK(text.legacy_int8());
  const auto compression = legacy_config(R"({"compression_config": {"quant_method": "int8", "convrot": true}})");
  CHECK(compression.source == "compression_config");
  CHECK(compression.legacy_int8());
  // None is skipped; the first that is not None is taken even when another declares int8.
  CHECK(legacy_config(R"({"quantization_config": null, "compression_config": {"quant_method": "int8", "convrot": true}})")
            .legacy_int8());
  CHECK_FALSE(legacy_config(R"({"quantization_config": {"quant_method": "fp8"}, "compression_config": {"quant_method": "int8", "convrot": true}})")
                  .declares_legacy_int8());
  // quant_method at the top level of config.json is not read.
  CHECK_FALSE(legacy_config(R"({"quant_method": "int8", "convrot": true})").declares_legacy_int8());
  // declared_method is the str only.
  CHECK_FALSE(legacy_config(R"({"quantization_config": {"quant_method": ["int8"], "convrot": true}})").declares_legacy_int8());
  const auto not_json = legacy_config("{");
  CHECK(not_json.unread == "JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)");
}

TEST_CASE("CQ-LEGACY-INT8: a recognised checkpoint loads in sglang's MiniMax-H3 loader as Int8Config",
          "[quant][CQ-LEGACY-INT8][CQ-MARKER-MISSING]") {
  Marked m = legacy_checkpoint();
  const auto config = legacy_config(kLegacyDeclaration);
  const quant::Analysis a = m.run({}, &config);
  const auto f = legacy_findings(a, RuleId::QuantLegacyInt8);
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Warning);
  CHECK(f[0].message ==
        "expected per-layer comfy_quant markers, found a legacy marker-less INT8 ConvRot checkpoint (config.json "
        "'config.json' (quantization_config): quant_method \"int8\", convrot true): only sglang's MiniMax-H3 loader "
        "reads it, as Int8Config (serialized int8, ConvRot group 256); ComfyUI sees unmarked int8 weights");
  CHECK(f[0].verdicts.empty());
  // allow_missing_markers: S8 lets the unmarked weight through; ComfyUI still drops its scale (C8).
  const auto missing = legacy_findings(a, RuleId::QuantMarkerMissing);
  REQUIRE(missing.size() == 1);
  CHECK(missing[0].verdict(Consumer::Sglang) == nullptr);
  REQUIRE(missing[0].verdict(Consumer::Comfyui) != nullptr);
  CHECK(missing[0].verdict(Consumer::Comfyui)->effect == Effect::MisLoads);
  for (const quant::LocatedFinding& lf : a.findings) CHECK_FALSE(legacy_sglang_rejects(lf.finding));
  CHECK(a.sglang_config == "Int8Config");

  // Without the declaration the same tensors are S8's rejection.
  const quant::Analysis plain = legacy_checkpoint().run();
  const auto unmarked = legacy_findings(plain, RuleId::QuantMarkerMissing);
  REQUIRE(unmarked.size() == 1);
  CHECK(message_for(unmarked[0], Consumer::Sglang) ==
        "Quantized weights are missing comfy_quant metadata: ['blocks.0.mlp.fc1']");
  CHECK(plain.sglang_config.empty());
}

TEST_CASE("CQ-LEGACY-INT8-CONFIG: quant_method int8 without convrot true", "[quant][CQ-LEGACY-INT8-CONFIG]") {
  for (std::string_view convrot : {"false", "1", "\"true\""}) {
    INFO(convrot);
    const auto config =
        legacy_config(R"({"quantization_config": {"quant_method": "int8", "convrot": )" + std::string(convrot) + "}}");
    const quant::Analysis a = legacy_checkpoint().run({}, &config);
    const auto f = legacy_findings(a, RuleId::QuantLegacyInt8Config);
    REQUIRE(f.size() == 1);
    CHECK(f[0].message == "expected config.json 'config.json' (quantization_config) to declare \"convrot\": true "
                          "beside quant_method \"int8\", found convrot " +
                              std::string(convrot == "false" ? "False" : convrot == "1" ? "1" : "'true'"));
    CHECK(f[0].verdict(Consumer::Sglang)->error == "ValueError");
    CHECK(message_for(f[0], Consumer::Sglang) == "Legacy MiniMax-H3 quant_method='int8' requires convrot=true");
    CHECK(legacy_findings(a, RuleId::QuantLegacyInt8).empty());
    CHECK(a.sglang_config.empty());
  }
  const auto absent = legacy_config(R"({"quantization_config": {"quant_method": "int8"}})");
  const auto f = legacy_findings(legacy_checkpoint().run({}, &absent), RuleId::QuantLegacyInt8Config);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message.ends_with("found no convrot"));
}

TEST_CASE("CQ-LEGACY-INT8-CONFIG: quantization metadata that is no object is sglang's TypeError",
          "[quant][CQ-LEGACY-INT8-CONFIG]") {
  const auto list = legacy_config(R"({"quantization_config": ["int8"]})");
  const quant::Analysis a = legacy_checkpoint().run({}, &list);
  const auto f = legacy_findings(a, RuleId::QuantLegacyInt8Config);
  REQUIRE(f.size() == 1);
  CHECK(f[0].verdict(Consumer::Sglang)->error == "TypeError");
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "quantization_config must be a mapping or transformers.PretrainedConfig, got list");
  const auto doc = legacy_config("[]");
  const auto g = legacy_findings(legacy_checkpoint().run({}, &doc), RuleId::QuantLegacyInt8Config);
  REQUIRE(g.size() == 1);
  CHECK(message_for(g[0], Consumer::Sglang) == "HF config must be a mapping or transformers.PretrainedConfig, got list");
}

TEST_CASE("CQ-LEGACY-INT8-CONFIG: a config.json that is not JSON leaves the declaration unchecked",
          "[quant][CQ-LEGACY-INT8-CONFIG]") {
  const auto broken = legacy_config("{\"quantization_config\": ");
  const quant::Analysis a = legacy_checkpoint().run({}, &broken);
  CHECK(legacy_findings(a, RuleId::QuantLegacyInt8Config).empty());
  REQUIRE(a.unchecked.size() == 1);
  CHECK(a.unchecked[0].item.what == "config.json 'config.json'");
  CHECK(a.unchecked[0].item.why ==
        "its quantization declaration (CQ-LEGACY-INT8) was not read: JSONDecodeError: Expecting value: line 1 column "
        "25 (char 24)");
}

TEST_CASE("CQ-LEGACY-INT8-MARKERS: a legacy checkpoint cannot mix markers", "[quant][CQ-LEGACY-INT8-MARKERS]") {
  Marked m = legacy_checkpoint();
  m.marker("blocks.0.mlp.fc1", R"({"format": "int8_tensorwise", "convrot": true})");
  const auto config = legacy_config(kLegacyDeclaration);
  const quant::Analysis a = m.run({}, &config);
  const auto f = legacy_findings(a, RuleId::QuantLegacyInt8Markers);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message ==
        "expected no comfy_quant marker in a legacy INT8 checkpoint, found 1 marked layer, the first 'blocks.0.mlp.fc1'");
  CHECK(message_for(f[0], Consumer::Sglang) == "Legacy MiniMax-H3 INT8 checkpoints cannot mix .comfy_quant markers");
  CHECK(a.sglang_config.empty());
}

TEST_CASE("CQ-LEGACY-INT8-SCALE-MISSING: every I8 weight has its weight_scale in its own file",
          "[quant][CQ-LEGACY-INT8-SCALE-MISSING]") {
  Marked m;
  m.fx.tensor("blocks.0.mlp.fc1.weight", Dtype::I8, {2, 4});
  const auto config = legacy_config(kLegacyDeclaration);
  const quant::Analysis a = m.run({}, &config);
  const auto f = legacy_findings(a, RuleId::QuantLegacyInt8ScaleMissing);
  REQUIRE(f.size() == 1);
  CHECK(f[0].where.text() == "tensor 'blocks.0.mlp.fc1.weight'");
  CHECK(f[0].message ==
        "expected the legacy INT8 weight to have 'blocks.0.mlp.fc1.weight_scale' in the same file, found none");
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Legacy MiniMax-H3 INT8 tensor 'blocks.0.mlp.fc1.weight' is missing 'blocks.0.mlp.fc1.weight_scale'");
  CHECK(a.sglang_config.empty());
}

TEST_CASE("CQ-LEGACY-INT8-SCALE-META: a 2-D weight and an F32 (N, 1) scale, as Python prints them",
          "[quant][CQ-LEGACY-INT8-SCALE-META]") {
  const auto config = legacy_config(kLegacyDeclaration);
  struct Case {
    std::vector<std::uint64_t> weight;
    Dtype scale_dtype;
    std::vector<std::uint64_t> scale;
    std::string_view meta;
  };
  const Case cases[] = {{{2, 4}, Dtype::F32, {2}, "weight=I8(2, 4), scale=F32(2,)"},
                        {{2, 4}, Dtype::BF16, {2, 1}, "weight=I8(2, 4), scale=BF16(2, 1)"},
                        {{8}, Dtype::F32, {8, 1}, "weight=I8(8,), scale=F32(8, 1)"},
                        {{2, 4}, Dtype::F32, {}, "weight=I8(2, 4), scale=F32()"}};
  for (const Case& c : cases) {
    INFO(c.meta);
    Marked m;
    m.fx.tensor("a.weight", Dtype::I8, c.weight).tensor("a.weight_scale", c.scale_dtype, c.scale);
    const auto f = legacy_findings(m.run({}, &config), RuleId::QuantLegacyInt8ScaleMeta);
    REQUIRE(f.size() == 1);
    CHECK(message_for(f[0], Consumer::Sglang) ==
          "Legacy MiniMax-H3 INT8 weight/scale metadata mismatch for 'a.weight': " + std::string(c.meta));
  }
  const auto ok = legacy_findings(legacy_checkpoint().run({}, &config), RuleId::QuantLegacyInt8ScaleMeta);
  CHECK(ok.empty());
}

TEST_CASE("CQ-LEGACY-INT8-NO-WEIGHTS: at least one I8 weight", "[quant][CQ-LEGACY-INT8-NO-WEIGHTS]") {
  Marked m;
  m.fx.tensor("blocks.0.mlp.fc1.weight", Dtype::BF16, {2, 4});
  const auto config = legacy_config(kLegacyDeclaration);
  const quant::Analysis a = m.run({}, &config);
  const auto f = legacy_findings(a, RuleId::QuantLegacyInt8NoWeights);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message == "expected at least one I8 .weight in a legacy INT8 checkpoint, found none");
  CHECK(message_for(f[0], Consumer::Sglang) == "Legacy MiniMax-H3 INT8 checkpoint contains no I8 weights");
  CHECK(a.sglang_config.empty());
}

TEST_CASE("CQ-LEGACY-INT8: check reads the config.json beside the checkpoint", "[quant][CQ-LEGACY-INT8]") {
  CliScratch s("legacy-int8");
  const std::string header = pad8(
      R"({"blocks.0.mlp.fc1.weight":{"dtype":"I8","shape":[2,4],"data_offsets":[0,8]},)"
      R"("blocks.0.mlp.fc1.weight_scale":{"dtype":"F32","shape":[2,1],"data_offsets":[8,16]}})");
  const std::string file = s.file("model.safetensors", gen::file_with_header(header, 16));
  HeaderParser parser;
  const auto without = check_paths({file}, CheckOptions{}, parser);
  REQUIRE(without.size() == 1);
  CHECK_FALSE(without[0].consumers[Consumer::Sglang].loads);

  s.text("config.json", kLegacyDeclaration);
  const auto with = check_paths({file}, CheckOptions{}, parser);
  REQUIRE(with.size() == 1);
  CHECK(with[0].consumers[Consumer::Sglang].loads);
  CHECK(with[0].consumers[Consumer::Sglang].config == "Int8Config");
  bool recognised = false;
  for (const Finding& f : with[0].findings) recognised = recognised || f.rule == RuleId::QuantLegacyInt8;
  CHECK(recognised);

  const Run cli = s.run("check " + shell_word(file));
  CHECK(cli.out.find("CQ-LEGACY-INT8") != std::string::npos);
}
