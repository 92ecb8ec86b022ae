// The consumer profiles (each consumer's verdict as a profile) end to end:
// check_memory over whole files, judged per consumer, seen through each
// profile (spec/verdicts.cpp).
#include <cstring>

#include "props/catch.hpp"
#include "props/quant_support.hpp"
#include "src/commands/check.hpp"
#include "src/io/writer.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

struct Owned {
  std::string name;
  Dtype dtype;
  std::vector<std::uint64_t> shape;
  std::vector<std::uint8_t> bytes;
};

Owned owned(std::string name, Dtype d, std::vector<std::uint64_t> shape) {
  std::uint64_t bits = dtype_bits(d);
  for (auto x : shape) bits *= x;
  return {std::move(name), d, std::move(shape), std::vector<std::uint8_t>(bits / 8, 0x3c)};
}

Owned marker(std::string prefix, std::string_view json) {
  Owned o{prefix + ".comfy_quant", Dtype::U8, {json.size()}, {}};
  o.bytes.assign(json.begin(), json.end());
  return o;
}

std::vector<std::uint8_t> file(const std::vector<Owned>& tensors, std::optional<Metadata> metadata = std::nullopt) {
  std::vector<TensorView> views;
  for (const Owned& t : tensors) views.push_back({t.name, t.dtype, t.shape, t.bytes});
  auto bytes = serialize(views, metadata);
  REQUIRE(bytes.ok());
  return bytes.value();
}

FileReport one(const std::vector<std::uint8_t>& bytes, Profile p) {
  HeaderParser parser;
  const MemoryFile f{"ckpt.safetensors", bytes};
  auto reports = check_memory(std::span(&f, 1), p, parser);
  REQUIRE(reports.size() == 1);
  return reports[0];
}

const Outcome& outcome(const FileReport& r, Consumer c) { return r.consumers[c]; }

// An int8 tensor-wise layer every consumer loads (S9.6 scalar branch).
std::vector<Owned> int8_layer(const std::string& p, std::string_view json) {
  return {marker(p, json), owned(p + ".weight", Dtype::I8, {4, 16}), owned(p + ".weight_scale", Dtype::F32, {})};
}

}  // namespace

TEST_CASE("Profiles: a marker that is not JSON, as each consumer sees it", "[quant][profile]") {
  auto tensors = int8_layer("blk", "{\"format\": ");
  const auto bytes = file(tensors);
  const FileReport strict = one(bytes, Profile::Strict);
  CHECK_FALSE(strict.ok());
  REQUIRE(strict.judged);
  CHECK(outcome(strict, Consumer::Safetensors).loads);
  CHECK_FALSE(outcome(strict, Consumer::Sglang).loads);
  CHECK(outcome(strict, Consumer::Sglang).error == "ValueError");
  CHECK(outcome(strict, Consumer::Sglang).message ==
        "Invalid Comfy quantization marker 'blk.comfy_quant' in ckpt.safetensors");
  CHECK(outcome(strict, Consumer::Comfyui).error == "JSONDecodeError");
  CHECK(outcome(strict, Consumer::Comfyui).message == "Expecting value: line 1 column 12 (char 11)");
  CHECK(outcome(strict, Consumer::Kitchen).loads);
  // strict shows safespec's own message; a consumer profile that consumer's.
  REQUIRE_FALSE(strict.findings.empty());
  CHECK(strict.findings[0].message.starts_with("expected the marker bytes to be JSON, found JSONDecodeError: "));
  const FileReport sg = one(bytes, Profile::Sglang);
  CHECK_FALSE(sg.ok());
  REQUIRE_FALSE(sg.findings.empty());
  CHECK(sg.findings[0].message == "Invalid Comfy quantization marker 'blk.comfy_quant' in ckpt.safetensors");
  const FileReport cu = one(bytes, Profile::Comfyui);
  REQUIRE_FALSE(cu.findings.empty());
  CHECK(cu.findings[0].message == "Expecting value: line 1 column 12 (char 11)");
  CHECK(one(bytes, Profile::Kitchen).ok());
  CHECK(one(bytes, Profile::Safetensors).ok());
}

TEST_CASE("Profiles: a container error is every consumer's first error", "[quant][profile]") {
  auto bytes = file(int8_layer("blk", R"({"format": "int8_tensorwise"})"));
  bytes.push_back(0);  // F13: a trailing byte
  for (Profile p : {Profile::Strict, Profile::Safetensors, Profile::Sglang, Profile::Comfyui, Profile::Kitchen}) {
    const FileReport r = one(bytes, p);
    INFO(std::string(profile_name(p)));
    CHECK_FALSE(r.ok());
    REQUIRE_FALSE(r.findings.empty());
    CHECK(r.findings[0].rule == RuleId::BufferTrailing);
  }
  const FileReport r = one(bytes, Profile::Sglang);
  CHECK(r.findings[0].message == "Error while deserializing header: incomplete metadata, file not fully covered");
  CHECK(outcome(r, Consumer::Safetensors).error == "MetadataIncompleteBuffer");
  CHECK(outcome(r, Consumer::Sglang).error == "SafetensorError");
}

TEST_CASE("Profiles: a valid checkpoint loads everywhere, sglang names its config", "[quant][profile]") {
  const FileReport r = one(file(int8_layer("blk", R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 16})")),
                           Profile::Strict);
  CHECK(r.ok());
  for (Consumer c : kConsumers) CHECK(outcome(r, c).loads);
  CHECK(outcome(r, Consumer::Sglang).config == "KitchenInt8Config");
  const FileReport plain = one(file({owned("w", Dtype::BF16, {2, 2})}), Profile::Strict);
  CHECK(plain.ok());
  for (Consumer c : kConsumers) CHECK(outcome(plain, c).loads);
  CHECK(outcome(plain, Consumer::Sglang).config == "None");
}

TEST_CASE("Profiles: mis-loads are warnings that do not fail the consumer", "[quant][profile]") {
  // An fp8 weight with a scale but no marker: sglang refuses (S8), ComfyUI
  // casts it without its scale (C8).
  const auto bytes = file({owned("a.weight", Dtype::F8_E5M2, {2, 2}), owned("a.weight_scale", Dtype::F32, {})});
  const FileReport cu = one(bytes, Profile::Comfyui);
  CHECK(cu.ok());
  REQUIRE(cu.findings.size() == 1);
  CHECK(cu.findings[0].rule == RuleId::QuantMarkerMissing);
  CHECK(cu.findings[0].severity == Severity::Warning);
  CHECK(outcome(cu, Consumer::Comfyui).mis_loads == std::vector<RuleId>{RuleId::QuantMarkerMissing});
  CHECK(one(bytes, Profile::Sglang).ok());  // F8_E5M2 is not tracked by S5
  CHECK_FALSE(one(bytes, Profile::Strict).ok());
}

TEST_CASE("Multi-file: shards are one checkpoint, the first file's failure comes first", "[quant][profile]") {
  const auto markers = file({marker("blk", R"({"format": "int8_tensorwise"})")});
  const auto weights = file({owned("blk.weight", Dtype::I8, {4, 16}), owned("blk.weight_scale", Dtype::F32, {})});
  const MemoryFile both[] = {{"m.safetensors", markers}, {"w.safetensors", weights}};
  HeaderParser parser;
  auto reports = check_memory(both, Profile::Strict, parser);
  REQUIRE(reports.size() == 2);
  for (const FileReport& r : reports)
    for (const Finding& f : r.findings) CHECK(f.rule != RuleId::QuantMarkerMissing);
  // Alone, the weights file has an unmarked I8 weight (S8).
  const MemoryFile alone[] = {{"w.safetensors", weights}};
  reports = check_memory(alone, Profile::Sglang, parser);
  REQUIRE(reports[0].findings.size() == 1);
  CHECK(reports[0].findings[0].message == "Quantized weights are missing comfy_quant metadata: ['blk']");
}
