// The sglang versions of the consumer table (spec/quant/sglang_versions.hpp):
// which int8 class reads int8 markers, which companions KitchenW4A8Config
// lets through, and the verdicts that depend on the machine, each pinned
// with the exact message of the version that raises it.
#include <algorithm>

#include "props/catch.hpp"
#include "props/quant_support.hpp"
#include "spec/consumers.hpp"
#include "spec/finding_sink.hpp"
#include "spec/quant/analyze.hpp"
#include "spec/quant/sglang_versions.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

std::size_t sv_version(std::string_view id) {
  const auto& versions = consumer_info(Consumer::Sglang).versions;
  for (std::size_t v = 0; v < versions.size(); ++v)
    if (versions[v].id == id) return v;
  FAIL("no sglang version " << id);
  return 0;
}

// What `version` of sglang raises first over the analysis: "Error: message",
// "unknown: why" for a verdict safespec cannot settle, "" when it loads.
std::string sv_first(const quant::Analysis& a, std::string_view id) {
  const std::size_t version = sv_version(id);
  const Verdict* first = nullptr;
  for (const auto& lf : a.findings)
    for (const Verdict& v : lf.finding.verdicts)
      if (v.consumer == Consumer::Sglang && v.holds_for(version) && v.effect == Effect::Rejects &&
          (!first || v.order < first->order))
        first = &v;
  if (!first) return "";
  return (first->error.empty() ? std::string("unknown") : first->error) + ": " + first->message;
}

std::vector<const quant::Assumption*> sv_assumed(const quant::Analysis& a, std::string_view id) {
  std::vector<const quant::Assumption*> out;
  for (const quant::Assumption& x : a.assumptions)
    if (x.otherwise.holds_for(sv_version(id))) out.push_back(&x);
  return out;
}

void sv_w4a4(Marked& m, const std::string& p, const std::string& marker) {
  m.marker(p, marker);
  m.fx.tensor(p + ".weight", Dtype::I8, {8, 32}).tensor(p + ".weight_scale", Dtype::F32, {8});
}

void sv_int8(Marked& m, const std::string& p, const std::string& marker, std::vector<std::uint64_t> scale,
          std::uint64_t n = 8) {
  m.marker(p, marker);
  m.fx.tensor(p + ".weight", Dtype::I8, {n, 64}).tensor(p + ".weight_scale", Dtype::F32, std::move(scale));
}

void sv_w4a8(Marked& m, const std::string& p) {
  m.marker(p, R"({"format": "asym_w4a8_int8", "convrot": true})");
  m.fx.tensor(p + ".weight", Dtype::I8, {256, 128})
      .tensor(p + ".weight_s_rel", Dtype::F8_E4M3, {256, 16})
      .tensor(p + ".weight_s_channel", Dtype::F32, {256});
}

constexpr std::string_view kSvW4a4 = R"({"format": "convrot_w4a4", "convrot_groupsize": 16})";

}  // namespace

TEST_CASE("sglang versions: one config set per version row, in order", "[quant][sglang]") {
  const auto& rows = consumer_info(Consumer::Sglang).versions;
  REQUIRE(quant::kSglangConfigSets.size() == rows.size());
  for (std::size_t v = 0; v < rows.size(); ++v) CHECK(quant::kSglangConfigSets[v].version == rows[v].id);
  CHECK(quant::sglang_config_in(sv_version("1bb249c"), "KitchenInt8Config") == "KitchenInt8Config");
  CHECK(quant::sglang_config_in(sv_version("4422cbf"), "KitchenInt8Config") == "ConvRotInt8Config");
  CHECK(quant::sglang_config_in(sv_version("4422cbf"), "KitchenW4A4Config") == "KitchenW4A4Config");
}

TEST_CASE("sglang versions: W4A4's int8 companions go through the version's int8 class, before the W4A4 markers",
          "[quant][sglang][CQ-INT8-CONVROT]") {
  Marked m;
  sv_w4a4(m, "a", R"({"format": "convrot_w4a4", "convrot_groupsize": 16, "linear_dtype": "fp8"})");
  sv_int8(m, "e", R"({"format": "int8_tensorwise", "convrot": 1, "convrot_groupsize": 64})", {8, 1});
  const quant::Analysis a = m.run();
  CHECK(sv_first(a, "1bb249c") == "ValueError: Serialized kitchen_int8 layer 'e' must set convrot=true");
  CHECK(sv_first(a, "4422cbf") == "ValueError: Serialized convrot_int8 layer 'e' must set convrot=true");
  CHECK(sv_first(a, "321f98d") == "ValueError: Serialized kitchen_int8 layer 'e' must set convrot=true");

  Marked group;
  sv_w4a4(group, "a", std::string(kSvW4a4));
  sv_int8(group, "e", R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 32})", {8, 1});
  const quant::Analysis g = group.run();
  CHECK(sv_first(g, "1bb249c") ==
        "ValueError: Serialized kitchen_int8 layer 'e' must declare convrot_groupsize in (16, 64, 256), got 32");
  CHECK(sv_first(g, "4422cbf") ==
        "ValueError: Serialized convrot_int8 layer 'e' must declare convrot_groupsize in (16, 64, 256), got 32");
}

TEST_CASE("sglang versions: ConvRotInt8Config skips int8 embedding markers, KitchenInt8Config refuses them",
          "[quant][sglang][CQ-SGLANG-COMPANION]") {
  Marked m;
  sv_w4a4(m, "a", std::string(kSvW4a4));
  sv_int8(m, "e", R"({"format": "int8_tensorwise"})", {});
  const quant::Analysis a = m.run();
  CHECK(sv_first(a, "1bb249c") == "ValueError: Serialized kitchen_int8 layer 'e' must set convrot=true");
  // KitchenW4A4Config then gives the layer no int8 method: what loads is not modelled.
  CHECK(sv_first(a, "4422cbf").starts_with("unknown: ConvRotInt8Config skips the int8 marker of 'e' as an "
                                           "embedding's and gives the Linear layer UnquantizedLinearMethod;"));
  quant::LayerKinds embedding;
  embedding.named.emplace("e", quant::LayerKind::Embedding);
  CHECK(sv_first(m.run(embedding), "4422cbf") ==
        "unknown: KitchenW4A4Config gives the embedding 'e' no quant method (only Linear layers get one); what the "
        "weight loader then does with its int8 tensors is not modelled");

  // Alone, the marker is an embedding's: it loads as one, and that is assumed.
  Marked alone;
  sv_int8(alone, "c", R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 64})", {8, 1});
  sv_int8(alone, "e", R"({"format": "int8_tensorwise"})", {8, 1});
  const quant::Analysis o = alone.run();
  CHECK(sv_first(o, "1bb249c") == "ValueError: Serialized kitchen_int8 layer 'e' must set convrot=true");
  CHECK(sv_first(o, "4422cbf").empty());
  const auto assumed = sv_assumed(o, "4422cbf");
  REQUIRE(assumed.size() == 1);
  CHECK(assumed[0]->layer == "e");
  CHECK(assumed[0]->kind == quant::LayerKind::Embedding);
  CHECK(assumed[0]->otherwise.error.empty());
  CHECK(quant::assumption_text(*assumed[0]).starts_with(
      "'e' is an embedding layer; otherwise unknown: ConvRotInt8Config skips the int8 marker of 'e'"));
  quant::LayerKinds linear;
  linear.all_linear = true;
  CHECK(sv_first(alone.run(linear), "4422cbf").starts_with("unknown: ConvRotInt8Config skips the int8 marker of 'e'"));
}

TEST_CASE("sglang versions: ConvRotInt8Config's kernel choice rests on comfy_kitchen being installed",
          "[quant][sglang]") {
  Marked m;
  sv_int8(m, "a", R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 64})", {12, 1}, 12);
  const quant::Analysis a = m.run();
  CHECK(sv_first(a, "1bb249c").empty());
  CHECK(sv_first(a, "4422cbf").empty());
  CHECK(sv_assumed(a, "1bb249c").empty());
  const auto assumed = sv_assumed(a, "4422cbf");
  REQUIRE(assumed.size() == 1);
  CHECK(!assumed[0]->about_kind());
  CHECK(assumed[0]->machine == "comfy_kitchen is installed");
  CHECK(assumed[0]->otherwise.message ==
        "Serialized convrot_int8 layer 'a' has no kernel: ConvRot group 64, 12 outputs; backend 'auto'; sgl_kernel "
        "serves group sizes (64, 128, 256, 512) with an output width that is a multiple of 8, comfy_kitchen serves "
        "group sizes (16, 64, 256) and is not installed (pip install comfy-kitchen)");

  // Group 16 is comfy_kitchen's alone, and 16 outputs fit sgl-kernel: nothing to assume.
  Marked g16;
  sv_int8(g16, "a", R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 16})", {12, 1}, 12);
  CHECK(g16.run().assumptions.empty());
  Marked n16;
  sv_int8(n16, "a", R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 64})", {16, 1}, 16);
  CHECK(n16.run().assumptions.empty());
}

TEST_CASE("sglang versions: which int8 markers KitchenW4A8Config lets through", "[quant][sglang][CQ-SGLANG-COMPANION]") {
  // Row-wise, no ConvRot: an embedding for 1bb249c only.
  Marked rows;
  sv_w4a8(rows, "a");
  sv_int8(rows, "e", R"({"format": "int8_tensorwise"})", {8, 1});
  const quant::Analysis r = rows.run();
  CHECK(sv_first(r, "1bb249c").empty());
  CHECK(sv_first(r, "pr36037") == "ValueError: Unsupported Comfy W4A8 format for 'e': 'int8_tensorwise'");
  CHECK(sv_first(r, "321f98d") == "ValueError: Unsupported Comfy W4A8 format for 'e': 'int8_tensorwise'");
  // Only older versions refuse it: a warning, not an error, under strict.
  const auto companion = std::find_if(r.findings.begin(), r.findings.end(), [](const quant::LocatedFinding& lf) {
    return lf.finding.rule == RuleId::QuantSglangCompanion;
  });
  REQUIRE(companion != r.findings.end());
  CHECK(companion->finding.severity == Severity::Warning);

  // Tensor-wise scalar with ConvRot: the version of PR #36037 alone takes it.
  Marked scalar;
  sv_w4a8(scalar, "a");
  sv_int8(scalar, "e", R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 64})", {});
  const quant::Analysis s = scalar.run();
  CHECK(sv_first(s, "1bb249c") == "ValueError: Unsupported Comfy W4A8 format for 'e': 'int8_tensorwise'");
  CHECK(sv_first(s, "pr36037").empty());
  CHECK(sv_first(s, "321f98d") == "ValueError: Unsupported Comfy W4A8 format for 'e': 'int8_tensorwise'");
  REQUIRE(sv_assumed(s, "pr36037").size() == 1);
  CHECK(sv_assumed(s, "pr36037")[0]->otherwise.message == "Unsupported quantized linear marker for 'e'");
  CHECK(sv_assumed(s, "1bb249c").empty());
}

TEST_CASE("sglang versions: 321f98d has no embedding branch for a W4A8 marker", "[quant][sglang]") {
  Marked m;
  sv_w4a8(m, "a");
  quant::LayerKinds kinds;
  kinds.named.emplace("a", quant::LayerKind::Embedding);
  const quant::Analysis a = m.run(kinds);
  CHECK(sv_first(a, "pr36037") ==
        "ValueError: Unsupported quantized embedding marker for 'a': {'format': 'asym_w4a8_int8', 'convrot': True, "
        "'_has_codebook': False, '_has_correction': False}");
  CHECK(sv_first(a, "321f98d") ==
        "unknown: this KitchenW4A8Config has no embedding branch: the embedding 'a' gets no quant method, and what "
        "the weight loader then does with its W4A8 tensors is not modelled");
}

TEST_CASE("a finding only non-default versions act on is a warning", "[quant]") {
  Verdict old{Consumer::Sglang, Effect::Rejects, "ValueError", "m", {}, 0, version_bit(3)};
  CHECK(severity_of(RuleId::QuantSglangCompanion, {old}) == Severity::Warning);
  old.versions = version_bit(0);
  CHECK(severity_of(RuleId::QuantSglangCompanion, {old}) == Severity::Error);
  CHECK(severity_of(RuleId::QuantSglangCompanion, {}) == Severity::Error);
}
