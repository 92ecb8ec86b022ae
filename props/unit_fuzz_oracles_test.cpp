// The oracles of the roundtrip and index fuzzers (src/oracles/oracles_roundtrip.hpp,
// src/oracles/oracles_index.hpp): exact expectations on hand-built cases, and the
// roundtrip law over generated plain and quantized models.
#include <string>
#include <string_view>
#include <vector>

#include "gen/models.hpp"
#include "gen/quant_layers.hpp"
#include "props/catch.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/io/index_writer.hpp"
#include "src/oracles/oracles_index.hpp"
#include "src/oracles/oracles_roundtrip.hpp"
#include "src/parse/shard_index.hpp"

using namespace safespec;
namespace sg = safespec::gen;
namespace sq = safespec::gen::quant;

namespace {

std::vector<std::uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

OwnedTensor owned(std::string name, Dtype d, std::vector<std::uint64_t> shape, std::size_t size) {
  return OwnedTensor{std::move(name), d, std::move(shape), std::vector<std::uint8_t>(size, 0x5a)};
}

OwnedTensor marker(std::string name, std::string_view json) {
  return OwnedTensor{std::move(name), Dtype::U8, {json.size()}, bytes_of(json)};
}

std::string rules_text(const std::vector<RuleId>& rules) {
  std::string out;
  for (RuleId r : rules) out += std::string(rule_name(r)) + " ";
  return out;
}

}  // namespace

TEST_CASE("roundtrip oracle W1-W5: a quantized model with scalars and empty tensors reads back and judges the same",
          "[unit][fuzz]") {
  ModelDescription d;
  d.tensors = {owned("scale", Dtype::F32, {}, 4), owned("empty", Dtype::F16, {0, 3}, 0),
               owned("packed", Dtype::F4, {2, 4}, 4), owned("blk.0.weight", Dtype::F8_E4M3, {4, 4}, 16),
               owned("blk.0.weight_scale", Dtype::F32, {}, 4), marker("blk.0.comfy_quant", "{\"format\": \"float8_e4m3fn\"}")};
  d.metadata = Metadata{{"format", "pt"}, {"_quantization_metadata",
                                           "{\"format_version\": \"1.0\", \"layers\": {\"blk.1\": {\"format\": \"nvfp4\"}}}"}};
  HeaderParser parser;
  const auto why = model_roundtrip_fails(d, parser);
  INFO(why.value_or(""));
  CHECK_FALSE(why);
  const Model m = expected_model(d);
  // W1: dtype descending (F32 > F16 > F8_E4M3 > U8 > F4), then name; offsets contiguous.
  std::vector<std::string> order;
  for (const TensorEntry& t : m.header.tensors) order.push_back(t.name.str() + "@" + std::to_string(t.begin) + "-" + std::to_string(t.end));
  CHECK(order == std::vector<std::string>{"blk.0.weight_scale@0-4", "scale@4-8", "empty@8-8", "blk.0.weight@8-24",
                                          "blk.0.comfy_quant@24-51", "packed@51-55"});
  CHECK(m.header_length % 8 == 0);
  CHECK(m.file_size == 8 + m.header_length + 55);
}

TEST_CASE("roundtrip oracle W3 X10 F5 F9-F11: description_violations names each rule the writer refuses",
          "[unit][fuzz]") {
  HeaderParser parser;
  const auto check = [&](ModelDescription d, std::vector<RuleId> expected) {
    INFO(rules_text(expected));
    CHECK(rules_text(description_violations(d)) == rules_text(expected));
    const auto why = model_roundtrip_fails(d, parser);  // the refusal is one of them
    INFO(why.value_or(""));
    CHECK_FALSE(why);
  };
  check({{owned("a", Dtype::F32, {2}, 7)}, std::nullopt}, {RuleId::SizeMismatch});
  check({{owned("__metadata__", Dtype::U8, {1}, 1)}, std::nullopt}, {RuleId::TensorNameReserved});
  check({{owned("a", Dtype::U8, {1}, 1), owned("a", Dtype::I8, {1}, 1)}, std::nullopt}, {RuleId::DuplicateTensor});
  check({{owned("\xed\xa0\x80", Dtype::U8, {1}, 1)}, std::nullopt}, {RuleId::HeaderUtf8});
  check({{}, Metadata{{"k", "1"}, {"k", "2"}}}, {RuleId::DuplicateMetadataKey});
  check({{owned("odd", Dtype::F4, {3}, 1)}, std::nullopt}, {RuleId::MisalignedBits});
  check({{owned("huge", Dtype::U8, {1ull << 40, 1ull << 40}, 0)}, std::nullopt}, {RuleId::ShapeOverflow});
  check({{owned("ok", Dtype::BF16, {0}, 0)}, Metadata{}}, {});
}

TEST_CASE("roundtrip oracle: generated models and quantized checkpoints judge the same from model and bytes",
          "[prop][fuzz]") {
  test::capped_prop("plain models (W1-W8)", 60, [] {
    const sg::FileSpec spec = *sg::file_spec();
    ModelDescription d{{}, spec.metadata};
    for (const auto& t : spec.tensors) d.tensors.push_back(OwnedTensor{t.name, t.dtype, t.shape, t.data});
    HeaderParser parser;
    const auto why = model_roundtrip_fails(d, parser);
    if (why) RC_FAIL(*why);
  });
  test::capped_prop("the first file of a valid quantized checkpoint", 40, [] {
    const sq::QCheckpoint c = *sq::valid_checkpoint();
    ModelDescription d;
    for (sq::QTensor t : sq::file_tensors(c, 0)) {
      if (t.data.empty()) t.data.assign(sg::byte_size(t.dtype, t.shape), 0);
      d.tensors.push_back(OwnedTensor{t.name, t.dtype, t.shape, t.data});
    }
    Metadata md(c.files[0].metadata.begin(), c.files[0].metadata.end());
    if (auto q = sq::qmeta_text(c, 0)) md.emplace_back("_quantization_metadata", *q);
    if (!md.empty()) d.metadata = md;
    HeaderParser parser;
    const auto why = model_roundtrip_fails(d, parser);
    if (why) RC_FAIL(*why);
  }, 20);
}

TEST_CASE("index oracle: canonical text, refusals and planted shard faults (ST-INDEX-*)", "[unit][fuzz]") {
  const ShardIndex index({{"b\"\n", "s1.safetensors"}, {"a", "s2.safetensors"}}, 7);
  const std::string text = canonical_index_json(index);
  CHECK(text == "{\"metadata\":{\"total_size\":7},\"weight_map\":{\"b\\\"\\n\":\"s1.safetensors\",\"a\":\"s2.safetensors\"}}");
  const auto back = parse_shard_index(text);
  REQUIRE(back);
  CHECK(back.value() == index);
  for (std::string_view ok : {std::string_view(text), std::string_view("{\"weight_map\":{}}"),
                              std::string_view("{\"weight_map\":{\"x\":\"y\"},\"metadata\":{\"total_size\":1}}"),
                              std::string_view("{\"weight_map\":{\"a\":\"../x\"}}"), std::string_view("[")}) {
    const auto why = index_breaks_laws(bytes_of(ok));
    INFO(ok << ": " << why.value_or(""));
    CHECK_FALSE(why);
  }
}
