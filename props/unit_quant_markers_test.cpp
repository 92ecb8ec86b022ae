// spec/quant markers.cpp and resolution.cpp: how layers are marked, sglang's
// phases 1-2 and resolution (comfy-quant-markers.md §1, §3.1-§3.5) and
// ComfyUI's conversion (§4.1), pinned with exact messages.
#include <algorithm>

#include "props/catch.hpp"
#include "props/quant_support.hpp"
#include "spec/quant/analyze.hpp"
#include "spec/quant/resolution.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

std::vector<Finding> findings_of(const quant::Analysis& a, RuleId rule) {
  std::vector<Finding> out;
  for (const auto& lf : a.findings)
    if (lf.finding.rule == rule) out.push_back(lf.finding);
  return out;
}

// The message and class of the first rejection of a consumer, as judge() picks it.
std::string first_rejection(const quant::Analysis& a, Consumer c) {
  const Verdict* first = nullptr;
  for (const auto& lf : a.findings)
    for (const Verdict& v : lf.finding.verdicts)
      if (v.consumer == c && v.holds_for(consumer_info(c).default_version) && v.effect == Effect::Rejects &&
          (!first || v.order < first->order))
        first = &v;
  return first ? first->error + ": " + first->message : "";
}

// A valid int8 tensor-wise layer (S9.6 scalar branch) under prefix p.
void int8_layer(QuantFixture& fx, const std::string& p) {
  fx.tensor(p + ".weight", Dtype::I8, {4, 16}).tensor(p + ".weight_scale", Dtype::F32, {});
}

}  // namespace

TEST_CASE("CQ-QMETA-JSON (S3.1, C2.1): unparsable _quantization_metadata", "[quant][CQ-QMETA-JSON]") {
  Marked m;
  m.fx.metadata("_quantization_metadata", "{\"layers\": ");
  const auto a = m.run();
  const auto f = findings_of(a, RuleId::QuantMetaJson);
  REQUIRE(f.size() == 1);
  CHECK(f[0].where.text() == "__metadata__['_quantization_metadata']");
  CHECK(message_for(f[0], Consumer::Sglang) == "Invalid _quantization_metadata in test.safetensors");
  CHECK(f[0].verdict(Consumer::Sglang)->error == "ValueError");
  CHECK(f[0].verdict(Consumer::Comfyui)->error == "JSONDecodeError");
  CHECK(message_for(f[0], Consumer::Comfyui) == "Expecting value: line 1 column 12 (char 11)");
  CHECK(a.sglang_config.empty());
}

TEST_CASE("CQ-QMETA-JSON (S3.1): json.loads(str) refuses a BOM that loads(bytes) would skip",
          "[quant][CQ-QMETA-JSON]") {
  Marked m;
  m.fx.metadata("_quantization_metadata", "\xef\xbb\xbf{\"layers\": {}}");
  const auto f = findings_of(m.run(), RuleId::QuantMetaJson);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Comfyui) ==
        "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)");
}

TEST_CASE("CQ-QMETA-NOT-OBJECT (S3.2) and CQ-QMETA-LAYERS (S3.3)", "[quant][CQ-QMETA-NOT-OBJECT][CQ-QMETA-LAYERS]") {
  Marked list;
  list.fx.metadata("_quantization_metadata", "[]");
  auto f = findings_of(list.run(), RuleId::QuantMetaNotObject);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) == "_quantization_metadata in test.safetensors must contain an object");
  CHECK(message_for(f[0], Consumer::Comfyui) == "list indices must be integers or slices, not str");
  Marked none;
  none.fx.metadata("_quantization_metadata", R"({"format_version": "1.0"})");
  f = findings_of(none.run(), RuleId::QuantMetaLayers);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) == "_quantization_metadata in test.safetensors must contain a layers object");
  CHECK(f[0].verdict(Consumer::Comfyui)->error == "KeyError");
  CHECK(message_for(f[0], Consumer::Comfyui) == "'layers'");
  Marked wrong;
  wrong.fx.metadata("_quantization_metadata", R"({"layers": []})");
  f = findings_of(wrong.run(), RuleId::QuantMetaLayers);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Comfyui) == "'list' object has no attribute 'items'");
}

TEST_CASE("CQ-QMETA-LAYER-NOT-OBJECT (S3.4): every bad entry, sglang's first first",
          "[quant][CQ-QMETA-LAYER-NOT-OBJECT]") {
  Marked m;
  m.fx.metadata("_quantization_metadata", R"({"layers": {"it's": 5, "b": null}})");
  const auto a = m.run();
  const auto f = findings_of(a, RuleId::QuantMetaLayerNotObject);
  REQUIRE(f.size() == 2);
  CHECK(message_for(f[0], Consumer::Sglang) == "Comfy quantization metadata for \"it's\" must be an object");
  CHECK(message_for(f[1], Consumer::Comfyui) == "'NoneType' object has no attribute 'get'");
  CHECK(first_rejection(a, Consumer::Sglang) == "ValueError: Comfy quantization metadata for \"it's\" must be an object");
}

TEST_CASE("CQ-MARKER-JSON (M3, S6.1, C7): marker bytes that are not JSON", "[quant][CQ-MARKER-JSON]") {
  Marked m;
  m.marker("blk.0", std::string("{\"format\": \"nvfp4\"} \0", 21));
  int8_layer(m.fx, "blk.0");
  const auto f = findings_of(m.run(), RuleId::QuantMarkerJson);
  REQUIRE(f.size() == 1);
  CHECK(f[0].where.text() == "tensor 'blk.0.comfy_quant'");
  CHECK(message_for(f[0], Consumer::Sglang) == "Invalid Comfy quantization marker 'blk.0.comfy_quant' in test.safetensors");
  CHECK(f[0].verdict(Consumer::Comfyui)->error == "JSONDecodeError");
  CHECK(message_for(f[0], Consumer::Comfyui) == "Extra data: line 1 column 21 (char 20)");
}

TEST_CASE("CQ-MARKER-JSON (M3): sglang catches only JSON and Unicode errors", "[quant][CQ-MARKER-JSON]") {
  Marked deep;
  deep.marker("a", std::string(2000, '['));
  auto f = findings_of(deep.run(), RuleId::QuantMarkerJson);
  REQUIRE(f.size() == 1);
  CHECK(f[0].verdict(Consumer::Sglang)->error == "RecursionError");
  Marked utf;
  utf.marker("a", "{\"format\": \"\xff\"}");
  f = findings_of(utf.run(), RuleId::QuantMarkerJson);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) == "Invalid Comfy quantization marker 'a.comfy_quant' in test.safetensors");
  CHECK(f[0].verdict(Consumer::Comfyui)->error == "UnicodeDecodeError");
}

TEST_CASE("CQ-MARKER-NOT-OBJECT (M4, S6.2, C7)", "[quant][CQ-MARKER-NOT-OBJECT]") {
  Marked m;
  m.marker("a", "[1, 2]");
  const auto f = findings_of(m.run(), RuleId::QuantMarkerNotObject);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) == "Comfy quantization marker 'a.comfy_quant' must contain a JSON object");
  CHECK(f[0].verdict(Consumer::Comfyui)->error == "AttributeError");
  CHECK(message_for(f[0], Consumer::Comfyui) == "'list' object has no attribute 'get'");
}

TEST_CASE("CQ-MARKER-ENCODING, CQ-MARKER-DTYPE, CQ-MARKER-SIZE (M2, G21)",
          "[quant][CQ-MARKER-ENCODING][CQ-MARKER-DTYPE][CQ-MARKER-SIZE]") {
  Marked m;
  m.marker("a", "\xef\xbb\xbf{\"format\": \"int8_tensorwise\"}");
  int8_layer(m.fx, "a");
  m.fx.tensor("b.comfy_quant", Dtype::I16, {2, 2});
  m.markers.push_back({"b.comfy_quant", false, ""});
  const auto a = m.run();
  auto enc = findings_of(a, RuleId::QuantMarkerEncoding);
  REQUIRE(enc.size() == 1);
  CHECK(enc[0].severity == Severity::Warning);
  CHECK(enc[0].message ==
        "expected the marker as json.dumps writes it (UTF-8, no BOM, no surrogates), found a UTF-8 byte order mark");
  auto dt = findings_of(a, RuleId::QuantMarkerDtype);
  REQUIRE(dt.size() == 1);
  CHECK(dt[0].message == "expected a 1-D U8 marker tensor, found I16(2, 2)");
  CHECK(dt[0].severity == Severity::Warning);  // numpy reads I16; no consumer refuses
  Marked half;  // numpy has no bfloat16: sglang's marker read raises
  half.fx.tensor("h.comfy_quant", Dtype::BF16, {4});
  half.markers.push_back({"h.comfy_quant", false, ""});
  const auto hd = findings_of(half.run(), RuleId::QuantMarkerDtype);
  REQUIRE(hd.size() == 1);
  CHECK(hd[0].severity == Severity::Error);  // a default version refuses it
  CHECK(hd[0].verdict(Consumer::Sglang)->error == "TypeError");
  CHECK(message_for(hd[0], Consumer::Sglang) == "Got unsupported ScalarType BFloat16");
  Marked wide;  // {"format": "x"} in UTF-16-LE: json.loads detects it and parses
  const std::string ascii = R"({"format": "int8_tensorwise"})";
  std::string utf16;
  for (char ch : ascii) utf16 += std::string{ch, '\0'};
  wide.marker("a", utf16);
  int8_layer(wide.fx, "a");
  const auto wa = wide.run();
  REQUIRE(findings_of(wa, RuleId::QuantMarkerEncoding).size() == 1);
  CHECK(findings_of(wa, RuleId::QuantMarkerEncoding)[0].message.ends_with("found a NUL byte at 1 (UTF-16 or UTF-32 text)"));
  CHECK(findings_of(wa, RuleId::QuantMarkerJson).empty());
  // Small enough but not read: the reader found it outside the file. One
  // cause, one error (the file's ST-BUFFER-TRUNCATED): the marker is listed
  // as unchecked, neither too large nor missing.
  CHECK(findings_of(a, RuleId::QuantMarkerTooLarge).empty());
  CHECK(findings_of(a, RuleId::QuantMarkerMissing).empty());
  REQUIRE(a.unchecked.size() == 1);
  CHECK(a.unchecked[0].file == 0);
  CHECK(a.unchecked[0].item.what == "marker tensor 'b.comfy_quant'");
  CHECK(a.unchecked[0].item.why == "8 bytes at data_offsets [100, 108], which lie outside the file");
  CHECK(a.unchecked[0].item.consumers == std::vector<Consumer>{Consumer::Sglang, Consumer::Comfyui, Consumer::Kitchen});
  Marked big;
  big.fx.tensor("c.comfy_quant", Dtype::U8, {2'000'000});
  big.markers.push_back({"c.comfy_quant", false, ""});
  const auto big_analysis = big.run();
  CHECK(big_analysis.unchecked.empty());
  const auto b = findings_of(big_analysis, RuleId::QuantMarkerTooLarge);
  REQUIRE(b.size() == 1);
  // Over the read bound: not parsed, so sglang and ComfyUI are never said to load it.
  REQUIRE(b[0].verdicts.size() == 2);
  CHECK(b[0].verdicts[0].error == "unchecked");
  CHECK(b[0].message ==
        "expected marker data of at most 1048576 bytes inside the file, found 2000000 bytes at data_offsets [0, "
        "2000000]");
}

TEST_CASE("CQ-MARKER-CONFLICT (S3.4, S6.3, G9, G19): Python equality decides", "[quant][CQ-MARKER-CONFLICT]") {
  Marked same;
  same.fx.metadata("_quantization_metadata", R"({"layers": {"a": {"format": "int8_tensorwise", "convrot_groupsize": 16}}})");
  same.marker("a", R"({"convrot_groupsize": 16.0, "format": "int8_tensorwise"})");
  int8_layer(same.fx, "a");
  CHECK(findings_of(same.run(), RuleId::QuantMarkerConflict).empty());
  // comfy-quant-markers.md §3.1 and G19 say a marker holding NaN never
  // equals a separately parsed copy. CPython 3.11 says otherwise: json.loads
  // returns one shared NaN object, and dict comparison tries `is` first, so
  // {"x": NaN} == {"x": NaN} is True (checked with python3.11.7).
  Marked nan;
  nan.fx.metadata("_quantization_metadata", R"({"layers": {"a": {"format": "int8_tensorwise", "x": NaN}}})");
  nan.marker("a", R"({"format": "int8_tensorwise", "x": NaN})");
  int8_layer(nan.fx, "a");
  CHECK(findings_of(nan.run(), RuleId::QuantMarkerConflict).empty());
  Marked str;
  str.fx.metadata("_quantization_metadata", R"({"layers": {"a": {"format": "int8_tensorwise", "x": 16}}})");
  str.marker("a", R"({"format": "int8_tensorwise", "x": "16"})");
  int8_layer(str.fx, "a");
  const auto f = findings_of(str.run(), RuleId::QuantMarkerConflict);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) == "Conflicting Comfy quantization markers for 'a'");
  CHECK(f[0].verdict(Consumer::Comfyui) == nullptr);  // ComfyUI keeps the metadata's (M6)
}

TEST_CASE("CQ-MARKER-MISSING (S5, S8, C8, G10): sorted, first five, ComfyUI mis-loads only scaled weights",
          "[quant][CQ-MARKER-MISSING]") {
  Marked m;
  for (std::string p : {"f", "e", "d", "c", "b", "a"}) m.fx.tensor(p + ".weight", Dtype::I8, {2, 2});
  m.fx.tensor("a.weight_scale", Dtype::F32, {});
  m.fx.tensor("z.weight", Dtype::F8_E5M2, {2, 2}).tensor("z.weight_scale", Dtype::F32, {});
  const auto a = m.run();
  const auto f = findings_of(a, RuleId::QuantMarkerMissing);
  REQUIRE(f.size() == 7);
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Quantized weights are missing comfy_quant metadata: ['a', 'b', 'c', 'd', 'e']");
  CHECK(f[0].verdict(Consumer::Comfyui)->effect == Effect::MisLoads);
  CHECK(f[1].verdicts.empty());                       // 'b': sglang's one message names it; no scale for ComfyUI
  CHECK(f[6].where.text() == "layer 'z'");                   // F8_E5M2: sglang does not track it (S5) ...
  CHECK(f[6].verdict(Consumer::Sglang) == nullptr);
  CHECK(f[6].verdict(Consumer::Comfyui)->effect == Effect::MisLoads);  // ... ComfyUI drops its scale (C8)
  CHECK(a.sglang_config.empty());
}

TEST_CASE("CQ-MXFP8-GLOBAL (M9, S7): quant_format mxfp8 marks and checks every tracked weight",
          "[quant][CQ-MXFP8-GLOBAL]") {
  Marked ok;
  ok.fx.metadata("quant_format", "MXFP8");
  ok.fx.tensor("a.weight", Dtype::F8_E4M3, {128, 128}).tensor("a.weight_scale", Dtype::U8, {128, 4});
  const auto good = ok.run();
  CHECK(findings_of(good, RuleId::QuantMxfp8Global).empty());
  CHECK(findings_of(good, RuleId::QuantMarkerMissing).size() == 1);  // ComfyUI ignores quant_format
  CHECK(findings_of(good, RuleId::QuantMarkerMissing)[0].verdict(Consumer::Sglang) == nullptr);
  CHECK(good.sglang_config == "MXFP8Config");
  Marked bad;
  bad.fx.metadata("quant_format", "mxfp8");
  bad.fx.tensor("a.weight", Dtype::F8_E4M3, {32, 48});
  const auto f = findings_of(bad.run(), RuleId::QuantMxfp8Global);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "MXFP8 layer 'a' has incompatible weight/scale metadata: ('F8_E4M3', (32, 48)) and None");
}

TEST_CASE("CQ-LEGACY-SCALED-FP8 (M8, G22)", "[quant][CQ-LEGACY-SCALED-FP8]") {
  Marked m;
  m.fx.tensor("scaled_fp8", Dtype::F8_E4M3, {2}).tensor("a.weight", Dtype::F8_E4M3, {2, 2});
  m.fx.tensor("a.scale_weight", Dtype::F32, {});
  const auto a = m.run();
  REQUIRE(findings_of(a, RuleId::QuantLegacyScaledFp8).size() == 1);
  const auto missing = findings_of(a, RuleId::QuantMarkerMissing);
  REQUIRE(missing.size() == 1);  // sglang: an unmarked fp8 weight; ComfyUI converts it, so no mis-load
  CHECK(missing[0].verdict(Consumer::Comfyui) == nullptr);
}

TEST_CASE("CQ-FORMAT-MISSING (C10), CQ-FORMAT-UNKNOWN (C11, L18), CQ-MARKER-ORPHAN (C6)",
          "[quant][CQ-FORMAT-MISSING][CQ-FORMAT-UNKNOWN][CQ-MARKER-ORPHAN]") {
  Marked m;
  m.marker("model.diffusion_model.blocks.0", R"({"group_size": 16})");
  m.marker("b", R"({"format": "int8_blockwise"})");
  m.marker("c", R"({"format": ["int8_tensorwise"]})");
  m.fx.tensor("model.diffusion_model.blocks.0.weight", Dtype::BF16, {2, 2});
  m.fx.tensor("b.weight", Dtype::BF16, {2, 2}).tensor("c.weight", Dtype::BF16, {2, 2});
  m.marker("d", R"({"format": "float8_e5m2"})");
  const auto a = m.run();
  auto f = findings_of(a, RuleId::QuantFormatMissing);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Comfyui) == "Unknown quantization format for layer blocks.0");
  f = findings_of(a, RuleId::QuantFormatUnknown);
  REQUIRE(f.size() == 2);
  CHECK(f[0].verdict(Consumer::Comfyui)->error == "KeyError");
  CHECK(message_for(f[0], Consumer::Comfyui) == "'int8_blockwise'");
  CHECK(message_for(f[1], Consumer::Comfyui) == "unhashable type: 'list'");
  f = findings_of(a, RuleId::QuantMarkerOrphan);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Comfyui) == "Missing weight for layer d");
  CHECK(f[0].verdict(Consumer::Comfyui)->effect == Effect::Warns);
  // S11 over str(format): None, a list's repr, and the rest, sorted.
  f = findings_of(a, RuleId::QuantSglangFormats);
  REQUIRE(f.size() == 1);
  CHECK(f[0].verdict(Consumer::Sglang)->error == "NotImplementedError");
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Unsupported Comfy quantization format(s): None, ['int8_tensorwise'], float8_e5m2, int8_blockwise");
}

TEST_CASE("S11: resolution picks the config of each supported format set", "[quant]") {
  using V = std::vector<std::string>;
  CHECK(quant::resolve_config({}) == "None");
  CHECK(quant::resolve_config(V{"int8_tensorwise"}) == "KitchenInt8Config");
  CHECK(quant::resolve_config(V{"asym_w4a8_int8"}) == "KitchenW4A8Config");
  CHECK(quant::resolve_config(V{"asym_w4a8_int8", "int8_tensorwise"}) == "KitchenW4A8Config");
  CHECK(quant::resolve_config(V{"convrot_w4a4"}) == "KitchenW4A4Config");
  CHECK(quant::resolve_config(V{"convrot_w4a4", "int8_tensorwise"}) == "KitchenW4A4Config");
  CHECK(quant::resolve_config(V{"float8_e4m3fn"}) == "ComfyFp8Config");
  CHECK(quant::resolve_config(V{"nvfp4"}) == "ComfyNvfp4Config");
  CHECK(quant::resolve_config(V{"int8_tensorwise", "nvfp4"}) == "ComfyNvfp4Config");
  CHECK(quant::resolve_config(V{"mxfp8"}) == "MXFP8Config");
  CHECK(quant::resolve_config(V{"asym_w4a8_int8", "float8_e4m3fn"}).empty());
  CHECK(quant::resolve_config(V{"float8_e5m2"}).empty());
  CHECK(quant::resolve_config(V{"awq_w4a16"}).empty());
}

TEST_CASE("CQ-SGLANG-FORMATS (S11, G25): W4A8 and FP8 together", "[quant][CQ-SGLANG-FORMATS]") {
  Marked m;
  m.marker("a", R"({"format": "asym_w4a8_int8"})");
  m.marker("b", R"({"format": "float8_e4m3fn"})");
  const auto f = findings_of(m.run(), RuleId::QuantSglangFormats);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) ==
        "Unsupported Comfy quantization format(s): asym_w4a8_int8, float8_e4m3fn");
}

TEST_CASE("CQ-SGLANG-COMPANION (S12.3, S19): the companions a config refuses", "[quant][CQ-SGLANG-COMPANION]") {
  Marked w;
  w.marker("a", R"({"format": "asym_w4a8_int8", "convrot": true})");
  w.marker("e", R"({"format": "int8_tensorwise", "convrot": true})");
  int8_layer(w.fx, "e");
  auto f = findings_of(w.run(), RuleId::QuantSglangCompanion);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) == "Unsupported Comfy W4A8 format for 'e': 'int8_tensorwise'");
  Marked n;
  n.marker("a", R"({"format": "nvfp4", "full_precision_matrix_mult": true})");
  n.marker("e", R"({"format": "int8_tensorwise"})");
  int8_layer(n.fx, "e");  // a scalar scale is not row-wise
  f = findings_of(n.run(), RuleId::QuantSglangCompanion);
  REQUIRE(f.size() == 1);
  CHECK(message_for(f[0], Consumer::Sglang) == "Unsupported Comfy NVFP4 companion for 'e': 'int8_tensorwise'");
}

TEST_CASE("CQ-MARKER-KEY-TYPE and CQ-MARKER-PARAMS (§1.5, G4, G20)", "[quant][CQ-MARKER-KEY-TYPE][CQ-MARKER-PARAMS]") {
  Marked m;
  m.marker("a", R"({"format": "int8_tensorwise", "convrot": 1, "params": {"convrot_groupsize": 64}})");
  int8_layer(m.fx, "a");
  const auto a = m.run();
  auto f = findings_of(a, RuleId::QuantKeyType);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message == "expected \"convrot\" to be a JSON boolean, found 1");
  f = findings_of(a, RuleId::QuantParamsNested);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message ==
        "expected \"convrot_groupsize\" at the marker's top level, found it only in params (64): ComfyUI uses it, "
        "sglang uses its default");
  CHECK(f[0].verdict(Consumer::Sglang)->effect == Effect::MisLoads);
}

TEST_CASE("Multi-file (S4, S6.3, G27): markers in one shard, tensors in another", "[quant]") {
  QuantFixture one, two;
  one.tensor("a.comfy_quant", Dtype::U8, {1});
  int8_layer(two, "a");
  std::vector<quant::CheckpointFile> files{{"1.safetensors", &one.model, {{"a.comfy_quant", true, R"({"format": "int8_tensorwise"})"}}},
                                           {"2.safetensors", &two.model, {}}};
  auto a = quant::analyze(files);
  CHECK(findings_of(a, RuleId::QuantMarkerMissing).empty());
  CHECK(findings_of(a, RuleId::QuantMarkerOrphan).empty());
  // The same layer declared differently in the second shard.
  two.tensor("a.comfy_quant", Dtype::U8, {1});
  files[1].markers = {{"a.comfy_quant", true, R"({"format": "int8_tensorwise", "convrot": true})"}};
  a = quant::analyze(files);
  const auto f = findings_of(a, RuleId::QuantMarkerConflict);
  REQUIRE(f.size() == 1);
  CHECK(a.findings.front().file <= 1);
  CHECK(message_for(f[0], Consumer::Sglang) == "Conflicting Comfy quantization markers for 'a'");
}

TEST_CASE("sglang's first rejection follows its phases: metadata before tensor markers before S8", "[quant]") {
  Marked m;
  m.fx.tensor("x.weight", Dtype::I8, {2, 2});
  m.marker("a", "nope");
  m.fx.metadata("_quantization_metadata", R"({"layers": {"q": 1}})");
  const auto a = m.run();
  CHECK(first_rejection(a, Consumer::Sglang) == "ValueError: Comfy quantization metadata for 'q' must be an object");
  CHECK(a.sglang_config.empty());
  Marked clean;
  CHECK(clean.run().sglang_config == "None");
}

// model_signs (spec/quant/checkpoint.hpp): what `check` works out where it
// parses a file, so the analysis need not scan the model again: a marker
// name, and anything else its shortcut for unquantized checkpoints looks for.
TEST_CASE("model_signs: a marker, each quantized dtype, scaled_fp8, _quantization_metadata, and none", "[quant]") {
  const auto signs = [](std::vector<std::pair<std::string, Dtype>> tensors, bool qmeta = false) {
    Model m;
    for (auto& [name, dtype] : tensors) m.header.tensors.push_back(TensorEntry{name, dtype, {1}, 0, 0});
    if (qmeta) {
      m.header.metadata_state = MetadataState::Present;
      m.header.metadata.emplace_back("_quantization_metadata", "{}");
    }
    const quant::ModelSigns s = quant::model_signs(m);
    return std::pair{s.marker, s.other};
  };
  using P = std::pair<bool, bool>;
  CHECK(signs({{"a.weight", Dtype::BF16}, {"a.bias", Dtype::F32}}) == P{false, false});
  CHECK(signs({{"a.weight", Dtype::BF16}, {"a.comfy_quant", Dtype::BF16}}) == P{true, false});
  CHECK(signs({{"a.comfy_quantx", Dtype::BF16}, {"comfy_quant", Dtype::BF16}}) == P{false, false});
  for (const Dtype d : {Dtype::F8_E4M3, Dtype::F8_E5M2, Dtype::I8, Dtype::U8}) {
    INFO(dtype_name(d));
    CHECK(signs({{"a.weight", Dtype::BF16}, {"b.weight", d}}) == P{false, true});
  }
  CHECK(signs({{"scaled_fp8", Dtype::F32}}) == P{false, true});
  CHECK(signs({{"model.scaled_fp8", Dtype::F32}}) == P{false, true});
  CHECK(signs({{"scaled_fp8s", Dtype::F32}, {"xscaled_fp8", Dtype::F32}}) == P{false, false});
  CHECK(signs({{"a.weight", Dtype::BF16}}, true) == P{false, true});
  CHECK(signs({{"a.weight", Dtype::I8}, {"a.comfy_quant", Dtype::U8}}) == P{true, true});
}

TEST_CASE("analyze: signs given with a file are what it goes by", "[quant]") {
  QuantFixture fx;
  int8_layer(fx, "m");
  std::vector<quant::CheckpointFile> files = fx.files();
  const std::size_t found = quant::analyze(files).findings.size();
  REQUIRE(found > 0);  // an unmarked int8 layer: CQ-MARKER-MISSING
  files[0].signs = quant::model_signs(*files[0].model);
  CHECK(files[0].signs->other);
  CHECK(quant::analyze(files).findings.size() == found);
  // Signs that say nothing is quantized take the shortcut: no layer is read.
  files[0].signs = quant::ModelSigns{};
  CHECK(quant::analyze(files).findings.empty());
}
