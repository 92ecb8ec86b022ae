// spec/quant data rules: exact findings and consumer verdicts; src/ reading
// of tensor bytes from a real file.
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/quant_support.hpp"
#include "spec/file_reader.hpp"
#include "spec/number_formats.hpp"
#include "spec/quant/data_rules.hpp"
#include "src/io/tensor_data.hpp"
#include "src/io/writer.hpp"

using namespace safespec;
using namespace safespec::test;
namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<std::uint8_t>;

// TensorData over memory: tensor name -> bytes, handed over in pieces of
// `piece` bytes (a multiple of kDataChunkAlign), the last one shorter.
struct MemData final : quant::TensorData {
  std::map<std::string, Bytes> by_name;
  std::size_t piece = SIZE_MAX;
  quant::TensorScan scan(const quant::TensorRef& t, const quant::TensorChunk& chunk) const override {
    auto it = by_name.find(t.entry->name.str());
    if (it == by_name.end()) return std::string("not in memory");
    const std::span<const std::uint8_t> all(it->second);
    for (std::size_t at = 0; at < all.size(); at += std::min(piece, all.size() - at))
      chunk(all.subspan(at, std::min(piece, all.size() - at)));
    return Unit{};
  }
};

std::string describe(const quant::Sink& sink) {
  std::string out;
  for (const auto& lf : sink.findings()) out += std::string(rule_name(lf.finding.rule)) + " " + lf.finding.message + "\n";
  return out;
}


Bytes u16s(std::initializer_list<std::uint16_t> vs) {
  Bytes b;
  for (auto v : vs) {
    b.push_back(static_cast<std::uint8_t>(v));
    b.push_back(static_cast<std::uint8_t>(v >> 8));
  }
  return b;
}

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// One layer, its fixture, its data; run() gives the sink.
struct Case {
  QuantFixture fx;
  MemData data;
  std::string prefix = "p";

  Case& t(const std::string& suffix, Dtype d, std::vector<std::uint64_t> shape, Bytes bytes) {
    fx.tensor(prefix + "." + suffix, d, std::move(shape));
    data.by_name[prefix + "." + suffix] = std::move(bytes);
    return *this;
  }
  quant::Sink run(std::string_view marker, std::string_view sglang_config = "") {
    auto files = fx.files();
    quant::TensorTable table(files);
    auto h = make_layer(prefix, marker, sglang_config, 2);
    quant::Sink sink;
    run_data_rules(h.layer, table, data, sink);
    // Streamed in pieces of 8 bytes (every element boundary falls between
    // pieces somewhere), the rules find exactly the same.
    MemData pieces = data;
    pieces.piece = quant::kDataChunkAlign;
    quant::Sink streamed;
    run_data_rules(h.layer, table, pieces, streamed);
    CHECK(describe(streamed) == describe(sink));
    CHECK(streamed.unchecked().size() == sink.unchecked().size());
    return sink;
  }
};

void require_misloads(const Finding& f, bool sglang) {
  REQUIRE(f.verdicts.size() == (sglang ? 3u : 2u));
  for (const Verdict& v : f.verdicts) {
    CHECK(v.effect == Effect::MisLoads);
    CHECK(v.error.empty());
    CHECK(v.message.empty());
  }
  CHECK((f.verdict(Consumer::Sglang) != nullptr) == sglang);
  CHECK(f.verdict(Consumer::Comfyui) != nullptr);
  CHECK(f.verdict(Consumer::Kitchen) != nullptr);
}

// L3: the flat offset of S[r][c] in a swizzled [R', C'] matrix.
std::uint64_t swz(std::uint64_t r, std::uint64_t c, std::uint64_t cp) {
  return ((r / 128) * (cp / 4) + c / 4) * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 + (c % 4);
}

// A canonical swizzled scale: every real cell `fill`, padding zero.
Bytes swizzled(std::uint64_t rows, std::uint64_t cb, std::uint8_t fill) {
  const std::uint64_t rp = (rows + 127) / 128 * 128;
  const std::uint64_t cp = (cb + 3) / 4 * 4;
  Bytes b(rp * cp, 0);
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < cb; ++c) b[swz(r, c, cp)] = fill;
  return b;
}

}  // namespace

TEST_CASE("CQ-DATA-SCALE (L10): valid fp8 scales give no data findings", "[quant][CQ-DATA-SCALE]") {
  Case c;
  c.t("weight", Dtype::F8_E4M3, {4, 16}, Bytes(64, 0x38))
      .t("weight_scale", Dtype::F32, {}, f32s({0.5f}))
      .t("input_scale", Dtype::BF16, {1}, u16s({0x3F80}));
  CHECK(c.run(R"({"format": "float8_e4m3fn"})").findings().empty());
}

TEST_CASE("CQ-DATA-SCALE (L10): a NaN weight_scale mis-loads in sglang, ComfyUI and kitchen",
          "[quant][CQ-DATA-SCALE]") {
  Case c;
  c.t("weight", Dtype::F8_E4M3, {4, 16}, Bytes(64, 0x38)).t("weight_scale", Dtype::F32, {}, f32s({kNan}));
  const auto sink = c.run(R"({"format": "float8_e4m3fn"})");
  const auto f = of_rule(sink, RuleId::DataScale);
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Error);
  CHECK(f[0].where.text() == "tensor 'p.weight_scale'");
  CHECK(f[0].message == "values must be finite and > 0, read as F32: 1 of 1 fail, the first at index 0 is nan");
  require_misloads(f[0], true);
  CHECK(sink.findings().size() == 1);
}

TEST_CASE("CQ-DATA-SCALE (L11, G11): float8_e5m2 is not sglang's, so no sglang verdict", "[quant][CQ-DATA-SCALE]") {
  Case c;
  c.t("weight", Dtype::F8_E5M2, {4, 16}, Bytes(64, 0x3C)).t("input_scale", Dtype::F16, {1}, u16s({0x7C00}));
  const auto f = of_rule(c.run(R"({"format": "float8_e5m2"})"), RuleId::DataScale);
  REQUIRE(f.size() == 1);
  CHECK(f[0].where.text() == "tensor 'p.input_scale'");
  CHECK(f[0].message == "values must be finite and > 0, read as F16: 1 of 1 fail, the first at index 0 is inf");
  require_misloads(f[0], false);
}

TEST_CASE("CQ-DATA-SCALE (L14): per-row scales, one finding per tensor with count and first",
          "[quant][CQ-DATA-SCALE]") {
  Case c;
  c.prefix = "blk'\\é";
  c.t("weight", Dtype::I8, {4, 16}, Bytes(64, 1)).t("weight_scale", Dtype::F32, {4, 1}, f32s({1.f, -2.f, 0.f, -0.f}));
  const auto sink = c.run(R"({"format": "int8_tensorwise"})");
  const auto f = of_rule(sink, RuleId::DataScale);
  REQUIRE(f.size() == 1);
  CHECK(f[0].where.text() == "tensor 'blk\\'\\\\\xc3\xa9.weight_scale'");
  CHECK(f[0].message == "values must be finite and > 0, read as F32: 3 of 4 fail, the first at index 1 is -2.0");
  require_misloads(f[0], true);
}

TEST_CASE("CQ-DATA-SCALE (L15): convrot_w4a4 weight_scale BF16 -inf", "[quant][CQ-DATA-SCALE]") {
  Case c;
  c.t("weight", Dtype::I8, {2, 32}, Bytes(64, 0x11)).t("weight_scale", Dtype::BF16, {2}, u16s({0x3F80, 0xFF80}));
  const auto f = of_rule(c.run(R"({"format": "convrot_w4a4"})"), RuleId::DataScale);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message == "values must be finite and > 0, read as BF16: 1 of 2 fail, the first at index 1 is -inf");
}

TEST_CASE("CQ-DATA-SCALE (L12, L3): nvfp4 block scales U8 read as E4M3, zero allowed, NaN and negative not",
          "[quant][CQ-DATA-SCALE]") {
  Case c;
  Bytes scale = swizzled(16, 4, 0x38);
  scale[swz(1, 0, 4)] = 0x00;  // an all-zero block: scale 0 is fine
  c.t("weight", Dtype::U8, {16, 32}, Bytes(512, 0x22))
      .t("weight_scale", Dtype::U8, {128, 4}, scale)
      .t("weight_scale_2", Dtype::F32, {}, f32s({0.25f}))
      .t("input_scale", Dtype::F32, {}, f32s({2.f}));
  CHECK(c.run(R"({"format": "nvfp4"})").findings().empty());

  c.data.by_name["p.weight_scale"][swz(3, 2, 4)] = 0xB8;  // -1.0
  c.data.by_name["p.weight_scale"][swz(5, 1, 4)] = 0x7F;  // NaN
  const auto f = of_rule(c.run(R"({"format": "nvfp4"})"), RuleId::DataScale);
  REQUIRE(f.size() == 1);
  // storage order: swz(3, 2) = 50 before swz(5, 1) = 81
  CHECK(f[0].message ==
        "block scale values must be finite and >= 0, read as F8_E4M3: 2 of 512 fail, the first at index 50 is -1.0");
  require_misloads(f[0], true);

  c.data.by_name["p.weight_scale"] = swizzled(16, 4, 0x38);
  c.data.by_name["p.weight_scale_2"] = f32s({0.f});
  const auto g = of_rule(c.run(R"({"format": "nvfp4"})"), RuleId::DataScale);
  REQUIRE(g.size() == 1);
  CHECK(g[0].where.text() == "tensor 'p.weight_scale_2'");
  CHECK(g[0].message == "values must be finite and > 0, read as F32: 1 of 1 fail, the first at index 0 is 0.0");
}

TEST_CASE("CQ-DATA-SCALE (L13): an mxfp8 input_scale is loaded but unused: finding without verdicts",
          "[quant][CQ-DATA-SCALE]") {
  Case c;
  c.t("weight", Dtype::F8_E4M3, {128, 128}, Bytes(128 * 128, 0x38))
      .t("weight_scale", Dtype::U8, {128, 4}, swizzled(128, 4, 127))
      .t("input_scale", Dtype::F32, {}, f32s({-1.f}));
  const auto sink = c.run(R"({"format": "mxfp8"})");
  const auto f = of_rule(sink, RuleId::DataScale);
  REQUIRE(f.size() == 1);
  CHECK(f[0].verdicts.empty());
  CHECK(sink.findings().size() == 1);
}

TEST_CASE("CQ-DATA-SCALE, CQ-DATA-S-REL, CQ-DATA-CODEBOOK (L16): valid W4A8 data gives no findings",
          "[quant][CQ-DATA-SCALE][CQ-DATA-S-REL][CQ-DATA-CODEBOOK]") {
  Case c;
  c.t("weight", Dtype::I8, {2, 16}, Bytes(32, 0x9F))
      .t("weight_s_rel", Dtype::F8_E4M3, {2, 2}, Bytes{0x48, 0xC0, 0x38, 0x44})  // -2.0 is allowed
      .t("weight_s_channel", Dtype::F32, {2}, f32s({0.015625f, 0.0234375f}))
      .t("weight_codebook", Dtype::F32, {16},
         f32s({-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7}))
      .t("weight_scale", Dtype::F32, {}, f32s({kNan}));  // not read for W4A8 (L16)
  CHECK(c.run(R"({"format": "asym_w4a8_int8"})").findings().empty());
}

TEST_CASE("CQ-DATA-S-REL (L16): zero and NaN s_rel in each accepted dtype", "[quant][CQ-DATA-S-REL]") {
  Case c;
  c.t("weight", Dtype::I8, {2, 16}, Bytes(32, 0x9F)).t("weight_s_rel", Dtype::U8, {2, 2}, Bytes{0x48, 0x80, 0x00, 0xFF});
  auto f = of_rule(c.run(R"({"format": "asym_w4a8_int8"})"), RuleId::DataSRel);
  REQUIRE(f.size() == 1);
  CHECK(f[0].where.text() == "tensor 'p.weight_s_rel'");
  CHECK(f[0].message == "values must be finite and non-zero, read as F8_E4M3: 3 of 4 fail, the first at index 1 is -0.0");
  require_misloads(f[0], true);

  c.fx = QuantFixture();
  c.t("weight", Dtype::I8, {2, 16}, Bytes(32, 0x9F)).t("weight_s_rel", Dtype::F32, {2, 2}, f32s({1, 2, kNan, kInf}));
  f = of_rule(c.run(R"({"format": "asym_w4a8_int8"})"), RuleId::DataSRel);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message == "values must be finite and non-zero, read as F32: 2 of 4 fail, the first at index 2 is nan");

  c.fx = QuantFixture();
  c.t("weight", Dtype::I8, {2, 16}, Bytes(32, 0x9F)).t("weight_s_rel", Dtype::BF16, {2, 2}, u16s({0, 0, 0, 0}));
  CHECK(of_rule(c.run(R"({"format": "asym_w4a8_int8"})"), RuleId::DataSRel).empty());  // dtype rules' business
}

TEST_CASE("CQ-DATA-SCALE (L16): W4A8 s_channel zero", "[quant][CQ-DATA-SCALE]") {
  Case c;
  c.t("weight", Dtype::I8, {2, 16}, Bytes(32, 0x9F)).t("weight_s_channel", Dtype::F32, {2}, f32s({0.5f, 0.f}));
  const auto f = of_rule(c.run(R"({"format": "asym_w4a8_int8"})"), RuleId::DataScale);
  REQUIRE(f.size() == 1);
  CHECK(f[0].where.text() == "tensor 'p.weight_s_channel'");
  CHECK(f[0].message == "values must be finite and > 0, read as F32: 1 of 2 fail, the first at index 1 is 0.0");
}

TEST_CASE("CQ-DATA-CODEBOOK, CQ-DATA-CODEBOOK-ORDER (L16): NaN is an error, disorder a warning",
          "[quant][CQ-DATA-CODEBOOK][CQ-DATA-CODEBOOK-ORDER]") {
  Case c;
  c.t("weight", Dtype::I8, {2, 16}, Bytes(32, 0x9F))
      .t("weight_codebook", Dtype::F32, {16}, f32s({0, 1, 2, kNan, 4, 5, 6, 7, 8, 9, 10, 11, 12, kInf, 14, 15}));
  auto sink = c.run(R"({"format": "asym_w4a8_int8"})");
  auto f = of_rule(sink, RuleId::DataCodebook);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message == "values must be finite, read as F32: 2 of 16 fail, the first at index 3 is nan");
  require_misloads(f[0], true);
  CHECK(of_rule(sink, RuleId::DataCodebookOrder).empty());

  c.data.by_name["p.weight_codebook"] = f32s({0, 1, 2, 3, 4, 5, 6, 6, 8, 9, 10, 11, 12, 1, 14, 15});
  sink = c.run(R"({"format": "asym_w4a8_int8"})");
  CHECK(of_rule(sink, RuleId::DataCodebook).empty());
  f = of_rule(sink, RuleId::DataCodebookOrder);
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Warning);
  CHECK(f[0].verdicts.empty());
  CHECK(f[0].message ==
        "values must increase strictly (a Lloyd-Max table): 2 of 15 steps do not, the first at index 7: 6.0 after 6.0");
}

TEST_CASE("CQ-DATA-E8M0 (L13, quant-numerics.md §2.3): 0xFF block scales", "[quant][CQ-DATA-E8M0]") {
  Case c;
  Bytes scale = swizzled(128, 4, 127);
  scale[swz(7, 1, 4)] = 0xFF;
  scale[swz(100, 3, 4)] = 0xFF;
  c.t("weight", Dtype::F8_E4M3, {128, 128}, Bytes(128 * 128, 0x38)).t("weight_scale", Dtype::F8_E8M0, {128, 4}, scale);
  const auto f = of_rule(c.run(R"({"format": "mxfp8"})", "MXFP8Config"), RuleId::DataE8m0);
  REQUIRE(f.size() == 1);
  CHECK(swz(100, 3, 4) == 79);  // before swz(7, 1, 4) = 113 in storage order
  CHECK(f[0].message == "E8M0 block scales must not be 0xFF (NaN): 2 of 512 are, the first at index 79");
  require_misloads(f[0], true);
}

TEST_CASE("CQ-DATA-SWIZZLE-PADDING (L3): nvfp4 with N = 20 (not a multiple of 128)",
          "[quant][CQ-DATA-SWIZZLE-PADDING]") {
  // weight [20, 8] U8: K = 16, Cb = 1; scale [128, 4].
  Case c;
  c.t("weight", Dtype::U8, {20, 8}, Bytes(160, 0x22)).t("weight_scale", Dtype::F8_E4M3, {128, 4}, swizzled(20, 1, 0x38));
  CHECK(c.run(R"({"format": "nvfp4"})").findings().empty());

  c.data.by_name["p.weight_scale"][swz(20, 0, 4)] = 0x38;  // row 20 >= R: padding, offset 320
  c.data.by_name["p.weight_scale"][swz(0, 1, 4)] = 0x30;   // column 1 >= Cb: padding, offset 1
  const auto f = of_rule(c.run(R"({"format": "nvfp4"})"), RuleId::DataSwizzlePadding);
  REQUIRE(f.size() == 1);
  CHECK(f[0].where.text() == "tensor 'p.weight_scale'");
  CHECK(f[0].message ==
        "padding cells of the swizzled (128, 4) block scales of 20 rows x 1 blocks (L3) must be zero: 2 of 492 are "
        "not, the first at offset 1 (row 0, column 1) is 48");
  require_misloads(f[0], true);
}

TEST_CASE("CQ-DATA-SWIZZLE-PADDING (L3, quant-numerics.md §4): mxfp8 R = 130, Cb = 7",
          "[quant][CQ-DATA-SWIZZLE-PADDING]") {
  // weight [130, 224] F8_E4M3: Cb = 7; scale [256, 8]; off(130, 5) = 1569 is real.
  CHECK(swz(130, 5, 8) == 1569);
  Case c;
  c.t("weight", Dtype::F8_E4M3, {130, 224}, Bytes(130 * 224, 0x38))
      .t("weight_scale", Dtype::U8, {256, 8}, swizzled(130, 7, 120));
  CHECK(c.run(R"({"format": "mxfp8"})").findings().empty());

  c.data.by_name["p.weight_scale"][swz(130, 7, 8)] = 1;
  const auto f = of_rule(c.run(R"({"format": "mxfp8"})"), RuleId::DataSwizzlePadding);
  REQUIRE(f.size() == 1);
  CHECK(f[0].message ==
        "padding cells of the swizzled (256, 8) block scales of 130 rows x 7 blocks (L3) must be zero: 1 of 1138 are "
        "not, the first at offset 1571 (row 130, column 7) is 1");
}

TEST_CASE("CQ-DATA-SWIZZLE-PADDING: non-canonical geometry is skipped", "[quant][CQ-DATA-SWIZZLE-PADDING]") {
  Case c;
  c.t("weight", Dtype::U8, {20, 8}, Bytes(160, 0x22)).t("weight_scale", Dtype::U8, {20, 1}, Bytes(20, 0x38));
  CHECK(of_rule(c.run(R"({"format": "nvfp4"})"), RuleId::DataSwizzlePadding).empty());
  Case d;  // the declared shape fits but the bytes do not
  d.t("weight", Dtype::U8, {20, 8}, Bytes(160, 0x22)).t("weight_scale", Dtype::U8, {128, 4}, Bytes(100, 0x38));
  CHECK(of_rule(d.run(R"({"format": "nvfp4"})"), RuleId::DataSwizzlePadding).empty());
  Case e;  // K = 2 * 7 is not a multiple of 16
  e.t("weight", Dtype::U8, {20, 7}, Bytes(140, 0x22)).t("weight_scale", Dtype::U8, {128, 4}, Bytes(512, 0x38));
  CHECK(of_rule(e.run(R"({"format": "nvfp4"})"), RuleId::DataSwizzlePadding).empty());
}

TEST_CASE("CQ-DATA-W4A4-RANGE (L2, L15): code -8 is a warning, counted per nibble", "[quant][CQ-DATA-W4A4-RANGE]") {
  Case c;
  c.t("weight", Dtype::I8, {1, 4}, Bytes{0x17, 0x80, 0x88, 0x00}).t("weight_scale", Dtype::F32, {1}, f32s({1.f}));
  const auto sink = c.run(R"({"format": "convrot_w4a4"})");
  const auto f = of_rule(sink, RuleId::DataW4a4Range);
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Warning);
  CHECK(f[0].verdicts.empty());
  CHECK(f[0].message == "convrot_w4a4 codes must lie in -7..7 (what the quantizer emits): 3 of 8 are -8, the first at element 3");
  CHECK(sink.findings().size() == 1);
  c.data.by_name["p.weight"] = Bytes{0x79, 0x97, 0xFF, 0x00};  // 7, -7, -1: all emitted values
  CHECK(c.run(R"({"format": "convrot_w4a4"})").findings().empty());
}

TEST_CASE("CQ-DATA-INT8-RANGE (L14): -128 is a warning", "[quant][CQ-DATA-INT8-RANGE]") {
  Case c;
  c.t("weight", Dtype::I8, {2, 3}, Bytes{0x7F, 0x81, 0, 1, 0x80, 0x80});
  const auto f = of_rule(c.run(R"({"format": "int8_tensorwise"})"), RuleId::DataInt8Range);
  REQUIRE(f.size() == 1);
  CHECK(f[0].verdicts.empty());
  CHECK(f[0].message == "int8 weights must lie in -127..127 (what the quantizer emits): 2 of 6 are -128, the first at index 4");
}

TEST_CASE("data rules: unread tensors, missing tensors and unknown formats are skipped", "[quant]") {
  Case c;
  c.fx.tensor("p.weight", Dtype::I8, {2, 3}).tensor("p.weight_scale", Dtype::F32, {});  // no bytes
  CHECK(c.run(R"({"format": "int8_tensorwise"})").findings().empty());
  Case d;
  d.t("weight_scale", Dtype::F32, {}, f32s({kNan}));
  CHECK(d.run(R"({"format": "awq_w4a16"})").findings().empty());
  CHECK(d.run(R"({"format": null})").findings().empty());
  CHECK(d.run(R"({"format": "int8_tensorwise"})").findings().size() == 1);
  Case e;  // odd byte counts: only whole elements are read
  e.t("weight_scale", Dtype::F32, {}, Bytes{0, 0, 0x80, 0x3F, 0xFF, 0xFF});
  CHECK(e.run(R"({"format": "int8_tensorwise"})").findings().empty());
}

TEST_CASE("NUM-K-INT32-OVERFLOW (quant-numerics.md §5.3 cuda.7, §6.2, §6.3, §7.1): bounds per GEMM",
          "[quant][NUM-K-INT32-OVERFLOW]") {
  CHECK(quant::int32_k_bound(128 * 127, 128 * 127) == 132104);
  const auto k_findings = [](Dtype d, std::uint64_t cols, std::string_view marker) {
    Case c;
    c.fx.tensor("p.weight", d, {1, cols});
    return of_rule(c.run(marker), RuleId::QuantKInt32);
  };
  CHECK(k_findings(Dtype::I8, 131071, R"({"format": "int8_tensorwise"})").empty());
  auto f = k_findings(Dtype::I8, 131072, R"({"format": "int8_tensorwise"})");
  REQUIRE(f.size() == 1);
  CHECK(f[0].where.text() == "layer 'p'");
  CHECK(f[0].verdicts.empty());
  CHECK(f[0].message == "K = 131072 exceeds 131071, the largest K for which the int32 accumulator of the int8 x int8 "
                        "GEMM cannot overflow (quant-numerics.md §7.1)");

  CHECK(k_findings(Dtype::I8, 66052, R"({"format": "asym_w4a8_int8"})").empty());
  f = k_findings(Dtype::I8, 66053, R"({"format": "asym_w4a8_int8"})");
  REQUIRE(f.size() == 1);
  CHECK(f[0].message == "K = 132106 exceeds 132104, the largest K for which the int32 accumulator of the int8 x int8 "
                        "GEMM cannot overflow (quant-numerics.md §5.3 cuda.7)");

  CHECK(k_findings(Dtype::I8, 19173961, R"({"format": "convrot_w4a4"})").empty());
  CHECK(k_findings(Dtype::I8, 19173961, R"({"format": "convrot_w4a4", "linear_dtype": "int4"})").empty());
  CHECK(k_findings(Dtype::I8, 19173962, R"({"format": "convrot_w4a4"})").size() == 1);
  CHECK(k_findings(Dtype::I8, 1048575, R"({"format": "convrot_w4a4", "linear_dtype": "int8"})").empty());
  f = k_findings(Dtype::I8, 1048576, R"({"format": "convrot_w4a4", "params": {"linear_dtype": "int8"}})");
  REQUIRE(f.size() == 1);
  CHECK(f[0].message == "K = 2097152 exceeds 2097151, the largest K for which the int32 accumulator of the int8 x int4 "
                        "GEMM cannot overflow (quant-numerics.md §6.3)");
  // Hostile linear_dtype values take the smaller bound.
  for (const char* m : {R"({"format": "convrot_w4a4", "linear_dtype": 8})",
                        R"({"format": "convrot_w4a4", "linear_dtype": null})",
                        R"({"format": "convrot_w4a4", "linear_dtype": "INT4"})"})
    CHECK(k_findings(Dtype::I8, 1048576, m).size() == 1);

  // K = 2 * packed past 2^64: the exact decimal.
  f = k_findings(Dtype::I8, std::uint64_t{1} << 63, R"({"format": "asym_w4a8_int8"})");
  REQUIRE(f.size() == 1);
  CHECK(f[0].message.starts_with("K = 18446744073709551616 exceeds 132104,"));
  // Float GEMMs, rank-1 and absent weights: nothing.
  CHECK(k_findings(Dtype::F8_E4M3, 1u << 30, R"({"format": "float8_e4m3fn"})").empty());
  Case c;
  c.fx.tensor("p.weight", Dtype::I8, {1u << 30});
  CHECK(c.run(R"({"format": "int8_tensorwise"})").findings().empty());
  Case d;
  CHECK(d.run(R"({"format": "int8_tensorwise"})").findings().empty());
}
