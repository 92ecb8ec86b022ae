// The logical size of quantized layers (spec/quant/logical_size.hpp): each
// packing's [N, K] from hand-made shapes, overflow and the shapes that have
// none, the stored bytes a layer's tensors take; a property over generated
// checkpoints that the logical count and the totals of inspect's summary add
// up; and inspect's exact text and JSON for a checkpoint with a W4A8 and an
// FP8 layer.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gen/quant_layers.hpp"
#include "props/catch.hpp"
#include "props/quant_support.hpp"
#include "props/unit_support.hpp"
#include "spec/checked_math.hpp"
#include "spec/format_rules.hpp"
#include "spec/quant/logical_size.hpp"
#include "src/commands/inspect_summary.hpp"

using namespace safespec;
using quant::LogicalShape;
using quant::WeightPacking;

namespace {

// "[N,K]", or the reason there is none.
std::string logical_shape_text(WeightPacking p, std::vector<std::uint64_t> shape) {
  const auto r = quant::logical_shape(p, shape);
  return r ? "[" + std::to_string(r.value().n) + "," + std::to_string(r.value().k) + "]" : r.error();
}

constexpr std::uint64_t kTwoTo63 = std::uint64_t{1} << 63;

}  // namespace

TEST_CASE("logical size: every format's row names its weight's packing", "[logical-size]") {
  std::string rows;
  for (const quant::FormatSpec& f : quant::all_formats())
    rows += std::string(f.name) + " " + std::string(quant::packing_name(f.packing)) + "\n";
  CHECK(rows ==
        "float8_e4m3fn plain\n"
        "float8_e5m2 plain\n"
        "nvfp4 nibbles\n"
        "mxfp8 plain\n"
        "int8_tensorwise plain\n"
        "convrot_w4a4 nibbles\n"
        "asym_w4a8_int8 nibbles\n"
        "awq_w4a16 nibbles\n"
        "svdquant_w4a4 nibbles\n");
}

TEST_CASE("logical size: a layer's own packing where its row has a packing_of (6-bit W4A8, tile-packed svdquant)",
          "[logical-size]") {
  test::QuantFixture fx;
  // K = 4 groups * 16 = 64: 48 bytes a row is 6-bit, 32 is 4-bit.
  fx.tensor("w6.weight", Dtype::I8, {4, 48}).tensor("w6.weight_s_rel", Dtype::F8_E4M3, {4, 4});
  fx.tensor("w4.weight", Dtype::I8, {4, 32}).tensor("w4.weight_s_rel", Dtype::F8_E4M3, {4, 4});
  fx.tensor("sv.weight", Dtype::I8, {1, 2, 32, 128});
  const auto files = fx.files();
  const quant::TensorTable table(files);
  const auto w6 = test::make_layer("w6", R"({"format": "asym_w4a8_int8"})");
  const auto w4 = test::make_layer("w4", R"({"format": "asym_w4a8_int8"})");
  const auto sv = test::make_layer("sv", R"({"format": "svdquant_w4a4", "layout": "kitchen_tile_packed_w4a4"})");
  const auto& w4a8 = quant::format_spec(quant::QuantFormat::W4a8);
  const auto& svd = quant::format_spec(quant::QuantFormat::Svdquant);
  CHECK(quant::layer_packing(w4a8, w6.layer, table) == WeightPacking::Bits6);
  CHECK(quant::layer_packing(w4a8, w4.layer, table) == WeightPacking::Nibbles);
  CHECK(quant::layer_packing(svd, sv.layer, table) == WeightPacking::TilePacked4);
  const auto size = quant::layer_size(w6.layer, table, w4a8);
  REQUIRE(size.shape);
  CHECK(size.shape.value().k == 64);
  const auto tiled = quant::layer_size(sv.layer, table, svd);
  REQUIRE(tiled.shape);
  CHECK(tiled.shape.value().n == 128);
  CHECK(tiled.shape.value().k == 128);
}

TEST_CASE("logical size: [N, K] of each packing, and the shapes that have none", "[logical-size]") {
  CHECK(logical_shape_text(WeightPacking::Plain, {4, 64}) == "[4,64]");
  CHECK(logical_shape_text(WeightPacking::Nibbles, {4, 128}) == "[4,256]");
  // 3 bytes hold four 6-bit codes.
  CHECK(logical_shape_text(WeightPacking::Bits6, {4, 48}) == "[4,64]");
  CHECK(logical_shape_text(WeightPacking::Bits6, {4, 50}) ==
        "weight's last dimension 50 is not a whole number of 6-bit codes");
  // [N/128, K/64, 32, 128] tiles.
  CHECK(logical_shape_text(WeightPacking::TilePacked4, {2, 3, 32, 128}) == "[256,192]");
  CHECK(logical_shape_text(WeightPacking::TilePacked4, {2, 3, 32, 64}) == "weight is not [N/128, K/64, 32, 128]");
  CHECK(logical_shape_text(WeightPacking::TilePacked4, {256, 96}) == "weight is not [N/128, K/64, 32, 128]");
  CHECK(logical_shape_text(WeightPacking::Plain, {64}) == "weight is 1-D, not 2-D");
  CHECK(logical_shape_text(WeightPacking::Nibbles, {2, 3, 4}) == "weight is 3-D, not 2-D");
  CHECK(logical_shape_text(WeightPacking::Nibbles, {}) == "weight is 0-D, not 2-D");
  // A zero dimension is a shape: no values.
  CHECK(logical_shape_text(WeightPacking::Nibbles, {0, 8}) == "[0,16]");
  // Overflow: N or K past 2^64 is not a shape; its decimal is still exact.
  CHECK(logical_shape_text(WeightPacking::Nibbles, {1, kTwoTo63}) == "K passes 2^64");
  CHECK(logical_shape_text(WeightPacking::TilePacked4, {std::uint64_t{1} << 58, 1, 32, 128}) == "N passes 2^64");
  CHECK(logical_shape_text(WeightPacking::Bits6, {1, 3 * (std::uint64_t{1} << 62)}) == "K passes 2^64");
  CHECK(quant::logical_k_text(WeightPacking::Nibbles, std::vector<std::uint64_t>{1, kTwoTo63}) == "18446744073709551616");
  CHECK(quant::logical_k_text(WeightPacking::Bits6, std::vector<std::uint64_t>{1, 3 * (std::uint64_t{1} << 62)}) ==
        "18446744073709551616");
  CHECK(quant::logical_k_text(WeightPacking::TilePacked4, std::vector<std::uint64_t>{1, UINT64_MAX, 32, 128}) ==
        "1180591620717411303360");
  CHECK(quant::logical_k_text(WeightPacking::Plain, std::vector<std::uint64_t>{7, UINT64_MAX}) ==
        "18446744073709551615");
  // The K bounds read K from the last dimension of any rank from 2 up.
  CHECK(quant::logical_k(WeightPacking::Nibbles, std::vector<std::uint64_t>{2, 3, 4}) == 8u);
  CHECK(quant::logical_k(WeightPacking::Nibbles, std::vector<std::uint64_t>{4}) == std::nullopt);
  CHECK(quant::logical_k_text(WeightPacking::Nibbles, std::vector<std::uint64_t>{4}).empty());
  CHECK(quant::logical_k_text(WeightPacking::Bits6, std::vector<std::uint64_t>{4, 5}).empty());
}

TEST_CASE("logical size: a layer's N * K and the bytes of its format's tensors, bias and marker", "[logical-size]") {
  test::QuantFixture fx;
  fx.tensor("p.weight", Dtype::I8, {4, 128})             // 512 bytes
      .tensor("p.weight_s_rel", Dtype::F8_E4M3, {4, 16})  // 64
      .tensor("p.weight_s_channel", Dtype::F32, {4})      // 16
      .tensor("p.weight_codebook", Dtype::F32, {16})      // 64
      .tensor("p.bias", Dtype::BF16, {4})                 // 8
      .tensor("p.comfy_quant", Dtype::U8, {30})           // 30
      .tensor("p.other", Dtype::F32, {10})                // not the format's: not counted
      .tensor("q.weight", Dtype::F32, {10});
  const auto files = fx.files();
  const quant::TensorTable table(files);
  const auto w4a8 = test::make_layer("p", R"({"format": "asym_w4a8_int8"})");
  const quant::LayerSize size = quant::layer_size(w4a8.layer, table, quant::format_spec(quant::QuantFormat::W4a8));
  REQUIRE(size.shape);
  CHECK(size.shape.value() == LogicalShape{4, 256});
  CHECK(size.parameters == 1024u);
  CHECK(size.stored_weight == 512u);
  CHECK(size.stored_bytes == 694u);
  // Read as int8_tensorwise the same weight is plain, and only weight_scale
  // (absent) is the format's besides.
  const quant::LayerSize plain = quant::layer_size(w4a8.layer, table, quant::format_spec(quant::QuantFormat::Int8));
  CHECK(plain.shape.value() == LogicalShape{4, 128});
  CHECK(plain.parameters == 512u);
  CHECK(plain.stored_bytes == 550u);
  // No weight: no shape, and the bytes of what is there.
  const auto none = test::make_layer("r", R"({"format": "nvfp4"})");
  const quant::LayerSize missing = quant::layer_size(none.layer, table, quant::format_spec(quant::QuantFormat::Nvfp4));
  CHECK(!missing.shape);
  CHECK(missing.shape.error() == "no weight");
  CHECK(missing.parameters == std::nullopt);
  CHECK(missing.stored_weight == std::nullopt);
  CHECK(missing.stored_bytes == 0u);
}

TEST_CASE("logical size: N * K past 2^64 has a shape but no count", "[logical-size]") {
  test::QuantFixture fx;
  fx.tensor("p.weight", Dtype::F8_E4M3, {std::uint64_t{1} << 32, std::uint64_t{1} << 32});
  const auto files = fx.files();
  const quant::TensorTable table(files);
  const auto l = test::make_layer("p", R"({"format": "float8_e4m3fn"})");
  const quant::LayerSize size = quant::layer_size(l.layer, table, quant::format_spec(quant::QuantFormat::Fp8E4m3));
  REQUIRE(size.shape);
  CHECK(size.parameters == std::nullopt);
  CHECK(size.stored_weight == std::nullopt);
  CHECK(size.stored_bytes == std::nullopt);
}

TEST_CASE("logical size: generated checkpoints: Nibbles count at least the stored codes, Plain exactly, totals add up",
          "[logical-size][prop]") {
  namespace gq = safespec::gen::quant;
  rc::prop("logical parameters against stored elements, and the summary's totals", [] {
    const gq::QCheckpoint c = *gq::valid_checkpoint();
    const auto bytes = gq::serialize_checkpoint(c);
    const test::CliScratch dir("safespec_unit_logical_size");
    std::vector<Model> models;
    models.reserve(bytes.size());
    std::vector<SummaryFile> files;
    std::map<std::string, std::uint64_t> tensor_bytes;  // the last file's entry wins, as TensorTable's
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      models.push_back(test::require_model(bytes[i]));
      files.push_back(SummaryFile{dir.file("f" + std::to_string(i) + ".safetensors", bytes[i]), &models.back()});
      for (const TensorEntry& t : models.back().header.tensors)
        tensor_bytes[t.name.str()] = tensor_byte_size(t.shape, t.dtype).value();
    }
    const InspectSummary s = summarize(files, {});
    RC_ASSERT(s.check_error.empty());
    RC_ASSERT(s.layers.size() == c.layers.size());
    std::uint64_t stored_weights = 0, logical = 0, layer_bytes = 0;
    for (const QuantLayerSummary& l : s.layers) {
      const gq::QLayer* g = nullptr;
      for (const gq::QLayer& x : c.layers)
        if (x.prefix == l.prefix) g = &x;
      RC_ASSERT(g != nullptr);
      const quant::FormatSpec& f = quant::format_spec(g->format);
      const gq::QTensor* w = g->find("weight");
      RC_ASSERT(w != nullptr);
      const std::uint64_t stored = shape_product(w->shape).count.value();
      RC_ASSERT(l.logical_shape == std::make_pair(g->n, g->k));
      RC_ASSERT(l.logical_parameters == g->n * g->k);
      if (f.packing == WeightPacking::Plain) RC_ASSERT(*l.logical_parameters == stored);
      if (f.packing == WeightPacking::Nibbles) RC_ASSERT(*l.logical_parameters >= stored);
      // The bytes of the format's tensors, the bias and the marker, counted here from the files.
      std::uint64_t b = 0;
      for (const quant::FormatTensor& ft : f.tensors)
        if (auto it = tensor_bytes.find(g->name(ft.suffix)); it != tensor_bytes.end()) b += it->second;
      for (const char* extra : {"bias", "comfy_quant"})
        if (auto it = tensor_bytes.find(g->name(extra)); it != tensor_bytes.end()) b += it->second;
      RC_ASSERT(l.stored_bytes == b);
      stored_weights += stored;
      logical += *l.logical_parameters;
      layer_bytes += b;
    }
    RC_ASSERT(s.logical_parameters == *s.parameters - stored_weights + logical);
    RC_ASSERT(s.quantized_bytes == layer_bytes);
    RC_ASSERT(*s.logical_parameters >= *s.parameters);
  });
}

namespace {

// A file of `header` (padded as the writer pads it) and `data`.
test::Bytes logical_size_file(const std::string& header, const std::string& data) {
  const std::string padded = test::pad8(header);
  test::Bytes out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(std::uint64_t{padded.size()} >> (8 * i)));
  out.insert(out.end(), padded.begin(), padded.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace

TEST_CASE("inspect: logical sizes of a W4A8 and an FP8 layer, text and JSON, exact", "[inspect][logical-size]") {
  const test::CliScratch s("safespec_unit_logical_size");
  const std::string p = "corpus/examples/quant/mixed_w4a8_fp8.safetensors";
  const test::Run r = s.run("inspect " + p);
  CHECK(r.code == 0);
  // The W4A8 weight I8 [4,128] holds 4 x 256 codes; the FP8 weight is plain.
  // 1033 stored - 512 - 256 + 1024 + 256 = 1545.
  const auto from = r.out.find("logical sizes:");
  REQUIRE(from != std::string::npos);
  CHECK(r.out.substr(from, r.out.find("quantized layers:") - from) ==
        "logical sizes: 1545 parameters (1033 as stored), quantized layers 1032 of 1160 bytes\n"
        "  'model.layers.0.mlp.down_proj'     asym_w4a8_int8  [4,256]  1024 parameters  745 bytes\n"
        "  'model.layers.0.self_attn.o_proj'  float8_e4m3fn   [4,64]    256 parameters  287 bytes\n");
  const test::Run j = s.run("inspect --json " + p);
  CHECK(j.code == 0);
  CHECK(j.out.find(R"(,"summary":{"tensors":9,"parameters":1033,"bytes":1160,"logical_parameters":1545,"quantized_bytes":1032,"dtypes":[)") !=
        std::string::npos);
  CHECK(j.out.find(R"("file":"corpus/examples/quant/mixed_w4a8_fp8.safetensors","packing":"nibbles","logical_shape":[4,256],"logical_shape_error":null,"logical_parameters":1024,"stored_bytes":745,"group_sizes":{"group_size":16,"convrot_groupsize":256},)") !=
        std::string::npos);
  CHECK(j.out.find(R"("file":"corpus/examples/quant/mixed_w4a8_fp8.safetensors","packing":"plain","logical_shape":[4,64],"logical_shape_error":null,"logical_parameters":256,"stored_bytes":287,"group_sizes":{},)") !=
        std::string::npos);
}

TEST_CASE("inspect: a layer without a weight, or of an unknown format, says why it has no logical size", "[inspect][logical-size]") {
  const test::CliScratch s("safespec_unit_logical_size");
  const std::string p = s.file(
      "m.safetensors",
      logical_size_file(R"({"p.comfy_quant":{"dtype":"U8","shape":[19],"data_offsets":[0,19]},)"
                        R"("q.comfy_quant":{"dtype":"U8","shape":[17],"data_offsets":[19,36]},)"
                        R"("q.weight":{"dtype":"U8","shape":[2,4],"data_offsets":[36,44]}})",
                        std::string(R"({"format": "nvfp4"})") + R"({"format": "foo"})" + std::string(8, '\0')));
  const test::Run r = s.run("inspect " + test::shell_word(p));
  CHECK(r.code == 0);
  const auto from = r.out.find("logical sizes:");
  REQUIRE(from != std::string::npos);
  // Each keeps its stored count in the total.
  CHECK(r.out.substr(from, r.out.find("quantized layers:") - from) ==
        "logical sizes: 44 parameters (44 as stored), quantized layers 19 of 44 bytes\n"
        "  'p'  nvfp4  unknown  - parameters  19 bytes (no weight)\n"
        "  'q'  foo    unknown  - parameters   - bytes (unknown format)\n");
  const test::Run j = s.run("inspect --json " + test::shell_word(p));
  CHECK(j.out.find(R"("packing":"nibbles","logical_shape":null,"logical_shape_error":"no weight","logical_parameters":null,"stored_bytes":19,)") !=
        std::string::npos);
  CHECK(j.out.find(R"("packing":null,"logical_shape":null,"logical_shape_error":"unknown format","logical_parameters":null,"stored_bytes":null,)") !=
        std::string::npos);
}
