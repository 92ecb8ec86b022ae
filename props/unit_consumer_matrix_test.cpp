// The consumer matrix (spec/quant/consumer_messages.hpp) against what the
// checks emit: over the whole conformance suite and a few witnesses (rows the
// suite's one-defect files cannot reach: model facts given as --layer, and
// defects a valid companion hides), every verdict made from a row carries a
// rule the row names, and every row is reached. A row no check can reach, or
// a rule column that lies, fails here.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "conformance/manifest.hpp"
#include "props/catch.hpp"
#include "props/quant_support.hpp"
#include "props/unit_support.hpp"
#include "spec/quant/consumer_messages.hpp"
#include "src/commands/check.hpp"
#include "src/report/report.hpp"

using namespace safespec;
using quant::Msg;

namespace {

struct Seen {
  std::set<RuleId> rules;
  std::size_t count = 0;
};

void record(std::map<std::uint16_t, Seen>& out, const Finding& f) {
  for (const Verdict& v : f.verdicts) {
    if (v.row == 0) continue;
    Seen& s = out[v.row];
    s.rules.insert(f.rule);
    ++s.count;
  }
}

// A verdict an assumption gives instead of its "loads" belongs to no finding:
// its row is reached, under no rule.
void record_assumed(std::map<std::uint16_t, Seen>& out, const quant::Analysis& a) {
  for (const quant::Assumption& x : a.assumptions)
    if (x.otherwise.row != 0) ++out[x.otherwise.row].count;
}

constexpr std::string_view kW4a8 = R"({"format": "asym_w4a8_int8", "convrot": true)";

// One checkpoint per row the suite does not reach, named by the row.
std::vector<std::pair<std::string_view, quant::Analysis>> witnesses() {
  std::vector<std::pair<std::string_view, quant::Analysis>> out;
  auto w4a8 = [](test::Marked& m, std::string_view p, std::string_view marker, Dtype weight, std::uint64_t packed) {
    m.marker(std::string(p), std::string(marker));
    m.fx.tensor(std::string(p) + ".weight", weight, {4, packed})
        .tensor(std::string(p) + ".weight_s_rel", Dtype::F8_E4M3, {4, packed / 8})
        .tensor(std::string(p) + ".weight_s_channel", Dtype::F32, {4});
  };
  {  // convrot 1 is truthy, so ConvRotInt8Config checks it rather than skip it
    test::Marked m;
    m.marker("a", R"({"format": "int8_tensorwise", "convrot": 1, "convrot_groupsize": 64})");
    m.fx.tensor("a.weight", Dtype::I8, {8, 64}).tensor("a.weight_scale", Dtype::F32, {8, 1});
    out.emplace_back("Int8SgConvRotConvrot", m.run());
  }
  {  // ConvRotInt8Config (sglang 4422cbf): group 64 and 12 outputs need comfy_kitchen
    test::Marked m;
    m.marker("a", R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 64})");
    m.fx.tensor("a.weight", Dtype::I8, {12, 64}).tensor("a.weight_scale", Dtype::F32, {12, 1});
    out.emplace_back("Int8SgConvRotNoKernel", m.run());
  }
  {
    test::Marked m;
    m.marker("a", R"({"format": ["int8_tensorwise"]})");
    m.fx.tensor("a.weight", Dtype::I8, {4, 16});
    out.emplace_back("LayerCuUnhashable", m.run());
  }
  {  // a scalar-scale int8 layer is no row-wise NVFP4 companion (S19)
    test::Marked m;
    m.marker("a", R"({"format": "nvfp4", "full_precision_matrix_mult": true})");
    m.fx.tensor("a.weight", Dtype::U8, {128, 32})
        .tensor("a.weight_scale", Dtype::F8_E4M3, {128, 4})
        .tensor("a.weight_scale_2", Dtype::F32, {});
    m.marker("e", R"({"format": "int8_tensorwise"})");
    m.fx.tensor("e.weight", Dtype::I8, {4, 16}).tensor("e.weight_scale", Dtype::F32, {});
    out.emplace_back("ResolutionSgNvfp4Companion", m.run());
  }
  {  // the layers' kinds are model facts: --layer a=embedding, e=linear
    test::Marked m;
    w4a8(m, "a", std::string(kW4a8) + "}", Dtype::I8, 128);
    m.marker("e", R"({"format": "int8_tensorwise"})");
    m.fx.tensor("e.weight", Dtype::I8, {4, 16}).tensor("e.weight_scale", Dtype::F32, {});
    quant::LayerKinds kinds;
    kinds.named.emplace("a", quant::LayerKind::Embedding);
    kinds.named.emplace("e", quant::LayerKind::Linear);
    const quant::Analysis a = m.run(kinds);
    out.emplace_back("KindsSgEmbeddingMarker", a);
    out.emplace_back("KindsSgLinearMarker", a);
  }
  {  // int8 only: KitchenInt8Config; C = 64 listed, K = 32 not divisible
    test::Marked m;
    m.marker("a", R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 64})");
    m.fx.tensor("a.weight", Dtype::I8, {4, 32}).tensor("a.weight_scale", Dtype::F32, {4, 1});
    out.emplace_back("Int8SgInputSize", m.run());
  }
  {
    test::Marked m;
    m.marker("a", R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 0})");
    m.fx.tensor("a.weight", Dtype::I8, {4, 32}).tensor("a.weight_scale", Dtype::F32, {4, 1});
    out.emplace_back("Int8KtModuloZero", m.run());
  }
  {
    test::Marked m;
    m.marker("a", R"({"format": "convrot_w4a4"})");
    m.fx.tensor("a.weight", Dtype::F16, {4, 64}).tensor("a.weight_scale", Dtype::F32, {4});
    out.emplace_back("W4a4CuWeightCast", m.run());
  }
  {
    test::Marked m;
    m.marker("a", R"({"format": "convrot_w4a4", "convrot_groupsize": 32})");
    m.fx.tensor("a.weight", Dtype::I8, {4, 64}).tensor("a.weight_scale", Dtype::F32, {4});
    out.emplace_back("W4a4KtHadamard", m.run());
  }
  {  // C = 0 passes every earlier check and divides by zero in both
    test::Marked m;
    w4a8(m, "a", std::string(kW4a8) + R"(, "convrot_groupsize": 0})", Dtype::I8, 128);
    const quant::Analysis a = m.run();
    out.emplace_back("W4a8SgZeroDivision", a);
    out.emplace_back("W4a8KtZeroDivision", a);
    out.emplace_back("W4a8CuParamsZeroDivision", a);
  }
  {
    test::Marked m;
    w4a8(m, "a", std::string(kW4a8) + "}", Dtype::F16, 128);
    out.emplace_back("W4a8CuWeightCast", m.run());
  }
  {  // C = 256 but K = 128
    test::Marked m;
    w4a8(m, "a", std::string(kW4a8) + "}", Dtype::I8, 64);
    out.emplace_back("W4a8KtCudaK", m.run());
  }
  // Legacy INT8 (LI2-LI6) needs a config.json, which no conformance case has.
  const auto legacy = [&out](std::string_view row, std::string_view config_json, bool marker, Dtype scale,
                             std::vector<std::uint64_t> scale_shape, bool with_scale = true) {
    test::Marked m;
    m.fx.tensor("a.weight", Dtype::I8, {4, 16});
    if (with_scale) m.fx.tensor("a.weight_scale", scale, std::move(scale_shape));
    if (marker) m.marker("a", R"({"format": "int8_tensorwise", "convrot": true})");
    const quant::ModelConfig config = quant::read_model_config("config.json", config_json);
    out.emplace_back(row, m.run({}, &config));
  };
  constexpr std::string_view kLegacy = R"({"quantization_config": {"quant_method": "int8", "convrot": true}})";
  legacy("LegacySgConvrot", R"({"quantization_config": {"quant_method": "int8"}})", false, Dtype::F32, {4, 1});
  legacy("LegacySgConfigType", R"({"quantization_config": "int8"})", false, Dtype::F32, {4, 1});
  legacy("LegacySgMixMarkers", kLegacy, true, Dtype::F32, {4, 1});
  legacy("LegacySgMissingScale", kLegacy, false, Dtype::F32, {}, false);
  legacy("LegacySgScaleMeta", kLegacy, false, Dtype::F32, {4});
  {
    test::Marked m;
    m.fx.tensor("a.weight", Dtype::BF16, {4, 16});
    const quant::ModelConfig config = quant::read_model_config("config.json", kLegacy);
    out.emplace_back("LegacySgNoWeights", m.run({}, &config));
  }
  {  // 6-bit storage (K = 4 * 24 = 96, the weight 72 wide) with a group size
     // kitchen takes at no bit depth
    test::Marked m;
    m.marker("a", std::string(kW4a8) + R"(, "group_size": 24})");
    m.fx.tensor("a.weight", Dtype::I8, {4, 72})
        .tensor("a.weight_s_rel", Dtype::F8_E4M3, {4, 4})
        .tensor("a.weight_s_channel", Dtype::F32, {4});
    out.emplace_back("W6a8KtGroupSize", m.run());
  }
  return out;
}

// Every row-made verdict over the suite, by row.
const std::map<std::uint16_t, Seen>& seen_over_suite() {
  static const std::map<std::uint16_t, Seen> seen = [] {
    std::map<std::uint16_t, Seen> out;
    auto cases = conformance::read_manifest(test::suite_dir());
    REQUIRE(cases);
    for (const conformance::Case& c : cases.value()) {
      HeaderParser parser;
      for (const FileReport& r :
           check_paths({(test::suite_dir() / c.file).string()}, CheckOptions{.data = c.data}, parser))
        for (const Finding& f : r.findings) record(out, f);
    }
    return out;
  }();
  return seen;
}

}  // namespace

TEST_CASE("consumer matrix: each witness reaches its row, under a rule the row names", "[quant]") {
  for (const auto& [name, analysis] : witnesses()) {
    INFO(name);
    std::map<std::uint16_t, Seen> seen;
    for (const quant::LocatedFinding& lf : analysis.findings) record(seen, lf.finding);
    record_assumed(seen, analysis);
    const quant::MessageRow* row = nullptr;
    for (const quant::MessageRow& r : quant::consumer_matrix())
      if (quant::msg_name(r.id) == name) row = &r;
    REQUIRE(row);
    const auto it = seen.find(static_cast<std::uint16_t>(row->id));
    REQUIRE(it != seen.end());
    for (RuleId r : it->second.rules) CHECK(std::find(row->rules.begin(), row->rules.end(), r) != row->rules.end());
  }
}

TEST_CASE("consumer matrix: every row is reached by the conformance suite or a witness, under a rule it names",
          "[quant]") {
  std::map<std::uint16_t, Seen> seen = seen_over_suite();
  for (const auto& [name, analysis] : witnesses()) {
    for (const quant::LocatedFinding& lf : analysis.findings) record(seen, lf.finding);
    record_assumed(seen, analysis);
  }
  for (const quant::MessageRow& row : quant::consumer_matrix()) {
    INFO(quant::msg_name(row.id));
    const auto it = seen.find(static_cast<std::uint16_t>(row.id));
    CHECK(it != seen.end());
    if (it == seen.end()) continue;
    for (RuleId r : it->second.rules) {
      INFO(rule_name(r));
      CHECK(std::find(row.rules.begin(), row.rules.end(), r) != row.rules.end());
    }
  }
}

TEST_CASE("consumer matrix: rows are well formed", "[quant]") {
  std::set<std::string_view> names;
  for (const quant::MessageRow& row : quant::consumer_matrix()) {
    INFO(quant::msg_name(row.id));
    CHECK(names.insert(quant::msg_name(row.id)).second);
    CHECK(row.rules.size() > 0);
    CHECK(&quant::message_row(row.id) == &row);
    // A rejection names its exception and says something; a MisLoads has no
    // text (nothing is raised).
    if (row.t.effect == Effect::Rejects) {
      CHECK(!row.t.error.empty());
      CHECK(!row.t.text.empty());
    }
    if (row.t.effect == Effect::MisLoads) CHECK(row.t.text.empty());
    CHECK(!row.t.cite.empty());
    // Each rule named is a quantized-layer rule of the catalogue.
    for (RuleId r : row.rules) CHECK(rule_info(r).scope == RuleScope::Quant);
  }
}

TEST_CASE("consumer matrix: a row's verdict sits at the row's site and step", "[quant]") {
  const quant::MessageRow& row = quant::message_row(Msg::W4a8SgDtypes);
  const Verdict v = quant::verdict(Msg::W4a8SgDtypes, quant::At{7},
                                   {{"prefix!r", "'p'"}, {"weight_dtype", "U8"}, {"scale_dtype", "F32"}});
  CHECK(v.row == static_cast<std::uint16_t>(Msg::W4a8SgDtypes));
  CHECK(v.consumer == Consumer::Sglang);
  CHECK(v.order == quant::order_at(quant::Site::SgLayer, quant::At{7}, row.step));
  CHECK(v.message == "Comfy W4A8 layer 'p' needs I8 weights and FP8 group scales, got U8 and F32");
}

TEST_CASE("consumer matrix: `safespec rules --json` prints every row", "[quant]") {
  const std::string json = render_rules_json();
  REQUIRE(json.find("\"consumer_matrix\":[") != std::string::npos);
  for (const quant::MessageRow& row : quant::consumer_matrix()) {
    INFO(quant::msg_name(row.id));
    CHECK(json.find("{\"id\":\"" + std::string(quant::msg_name(row.id)) + "\",") != std::string::npos);
  }
  CHECK(json.find(R"({"id":"W4a8SgDtypes","rules":["CQ-W4A8-DTYPES"],"consumer":"sglang","effect":"rejects",)"
                  R"("error":"ValueError",)") != std::string::npos);
}
