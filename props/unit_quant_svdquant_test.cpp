// spec/quant svdquant_w4a4 rules and awq_w4a16's zeros spelling: exact
// findings and messages; the svdquant numerics against an independent model.
#include <cstring>
#include <fstream>
#include <iterator>

#include "props/catch.hpp"
#include "props/full_range_gen.hpp"
#include "props/quant_support.hpp"
#include "props/unit_support.hpp"
#include "spec/number_formats.hpp"
#include "spec/numerics/svdquant.hpp"

using namespace safespec;
using namespace safespec::test;
using safespec::test::full_range::pick;

namespace {

struct SvdTensors {
  std::vector<std::pair<std::string, std::pair<Dtype, std::vector<std::uint64_t>>>> list;
};

// N = 128, K = 64, R = 4, natural or tile-packed, comfy-quants' names.
SvdTensors svd_valid(bool tiled) {
  SvdTensors s;
  if (tiled) {
    s.list = {{"weight", t(Dtype::I8, {1, 1, 32, 128})}, {"weight_scale", t(Dtype::BF16, {1, 1, 128})},
              {"smooth_factor", t(Dtype::BF16, {64})},   {"proj_down", t(Dtype::BF16, {64, 4})},
              {"proj_up", t(Dtype::BF16, {1, 4, 128})}};
  } else {
    s.list = {{"weight", t(Dtype::I8, {128, 32})}, {"weight_scale", t(Dtype::F32, {1, 128})},
              {"smooth_factor", t(Dtype::F16, {64})}, {"proj_down", t(Dtype::BF16, {64, 4})},
              {"proj_up", t(Dtype::BF16, {128, 4})}};
  }
  return s;
}

quant::Sink run_svd(std::string_view marker, const SvdTensors& s, const std::string& prefix = "p") {
  QuantFixture fx;
  for (const auto& [suffix, td] : s.list) fx.tensor(prefix + "." + suffix, td.first, td.second);
  return layer_findings(fx, prefix, marker, "");
}

SvdTensors with(SvdTensors s, const std::string& suffix, std::optional<std::pair<Dtype, std::vector<std::uint64_t>>> td,
                const std::string& rename = "") {
  for (auto it = s.list.begin(); it != s.list.end(); ++it) {
    if (it->first != suffix) continue;
    if (!td) {
      if (rename.empty()) s.list.erase(it);
      else it->first = rename;
    } else {
      it->second = *td;
    }
    return s;
  }
  if (td) s.list.push_back({suffix, *td});
  return s;
}

constexpr std::string_view kNatural = R"({"format": "svdquant_w4a4"})";
constexpr std::string_view kTiled = R"({"format": "svdquant_w4a4", "layout": "kitchen_tile_packed_w4a4"})";

bool svd_clean(const quant::Sink& s) {
  for (RuleId r : {RuleId::QuantSvdquantTensors, RuleId::QuantSvdquantLayout, RuleId::QuantSvdquantShapes,
                   RuleId::QuantSvdquantKeys})
    if (!of_rule(s, r).empty()) return false;
  return true;
}

}  // namespace

TEST_CASE("CQ-SVDQUANT (L20): both layouts as comfy-quants writes them have no finding of their own", "[quant]") {
  CHECK(svd_clean(run_svd(kNatural, svd_valid(false))));
  CHECK(svd_clean(run_svd(kTiled, svd_valid(true))));
  CHECK(svd_clean(run_svd(R"({"format": "svdquant_w4a4", "layout": "kitchen_tile_packed_w4a4", "act_unsigned": true, )"
                          R"("lowrank_branch_input_basis": "post_smoothing", "proj_down_smooth_folded": false})",
                          with(svd_valid(true), "bias", t(Dtype::BF16, {128})))));
}

TEST_CASE("CQ-SVDQUANT-TENSORS (L20): the five tensors, and comfy-kitchen's spelling named", "[quant][CQ-SVDQUANT-TENSORS]") {
  const Finding f = only_finding(run_svd(kNatural, with(svd_valid(false), "proj_down", std::nullopt)),
                                 RuleId::QuantSvdquantTensors);
  CHECK(f.message ==
        "expected the svdquant_w4a4 tensors weight, weight_scale, smooth_factor, proj_down and proj_up, missing "
        "'p.proj_down'");
  CHECK(f.verdicts.empty());
  SvdTensors kitchen = with(svd_valid(true), "proj_up", std::nullopt, "weight_proj_up");
  kitchen = with(kitchen, "smooth_factor", std::nullopt, "weight_smooth_factor");
  const Finding k = only_finding(run_svd(kTiled, kitchen), RuleId::QuantSvdquantTensors);
  CHECK(k.message ==
        "expected the svdquant_w4a4 tensors weight, weight_scale, smooth_factor, proj_down and proj_up, missing "
        "'p.smooth_factor', 'p.proj_up'; found comfy-kitchen's spelling 'p.weight_smooth_factor', 'p.weight_proj_up'");
}

TEST_CASE("CQ-SVDQUANT-LAYOUT (L20): absent or kitchen_tile_packed_w4a4", "[quant][CQ-SVDQUANT-LAYOUT]") {
  const auto s = run_svd(R"({"format": "svdquant_w4a4", "layout": "natural"})", svd_valid(false));
  CHECK(only_finding(s, RuleId::QuantSvdquantLayout).message ==
        "expected no \"layout\" (the natural layout) or \"layout\": 'kitchen_tile_packed_w4a4', found 'natural'");
  CHECK(of_rule(s, RuleId::QuantSvdquantShapes).empty());  // no layout to check the shapes against
}

TEST_CASE("CQ-SVDQUANT-SHAPES (L20): each layout's shapes and dtypes", "[quant][CQ-SVDQUANT-SHAPES]") {
  const auto natural = run_svd(kNatural, with(with(svd_valid(false), "weight_scale", t(Dtype::F32, {128, 1})), "proj_up",
                                              t(Dtype::BF16, {128, 5})));
  CHECK(only_finding(natural, RuleId::QuantSvdquantShapes).message ==
        "svdquant_w4a4 natural layout (weight I8 (N, K/2), weight_scale (K/64, N), smooth_factor (K,), proj_down (K, R), "
        "proj_up (N, R)): weight_scale shape (128, 1) is not (1, 128); proj_up shape (128, 5) is not (128, 4)");
  const auto tiled = run_svd(kTiled, with(svd_valid(true), "weight_scale", t(Dtype::F32, {1, 1, 128})));
  CHECK(only_finding(tiled, RuleId::QuantSvdquantShapes).message ==
        "svdquant_w4a4 tile-packed layout (weight I8 (N/128, K/64, 32, 128), weight_scale F16/BF16 (N/128, K/64, "
        "128), smooth_factor (K,), proj_down (K, R), proj_up (N/128, R, 128)): weight_scale is F32, not F16 or BF16");
  // A natural weight under the tile-packed marker, and K not a multiple of 64.
  const auto natural_under_tiled = run_svd(kTiled, svd_valid(false));
  CHECK(only_finding(natural_under_tiled, RuleId::QuantSvdquantShapes).message.ends_with(
      "weight shape (128, 32) is not the tile-packed (N/128, K/64, 32, 128); weight_scale is F32, not F16 or BF16"));
  const auto odd_k = run_svd(kNatural, with(svd_valid(false), "weight", t(Dtype::U8, {128, 16})));
  CHECK(only_finding(odd_k, RuleId::QuantSvdquantShapes).message.ends_with(
      "weight is U8, not I8; K=32 is not a multiple of the group size 64"));
}

TEST_CASE("CQ-SVDQUANT-KEYS (L20): the optional keys' documented values", "[quant][CQ-SVDQUANT-KEYS]") {
  const auto s = run_svd(R"({"format": "svdquant_w4a4", "act_unsigned": 1, "lowrank_branch_input_basis": "smoothed"})",
                         svd_valid(false));
  const Finding f = only_finding(s, RuleId::QuantSvdquantKeys);
  CHECK(f.severity == Severity::Warning);
  CHECK(f.message ==
        "expected svdquant_w4a4's optional keys with their documented values, found act_unsigned 1 is not a boolean; "
        "lowrank_branch_input_basis 'smoothed' is not 'raw' or 'post_smoothing'");
}

TEST_CASE("CQ-AWQ-ZERO-SPELLING (L17): comfy-quants' weight_zero, which ComfyUI does not read", "[quant][CQ-AWQ-ZERO-SPELLING]") {
  QuantFixture fx;
  fx.tensor("p.weight", Dtype::I8, {3, 128}).tensor("p.weight_scale", Dtype::F16, {4, 3}).tensor("p.weight_zero", Dtype::F16, {4, 3});
  const auto s = layer_findings(fx, "p", R"({"format": "awq_w4a16"})", "");
  const Finding f = only_finding(s, RuleId::QuantAwqZeroSpelling);
  CHECK(f.message == "expected the zeros as 'p.weight_zeros', the name ComfyUI reads, found 'p.weight_zero' (comfy-quants' spelling)");
  CHECK(f.where.text() == "tensor 'p.weight_zero'");
  CHECK(message_for(f, Consumer::Comfyui) == "Missing AWQ W4A16 scale/zeros for layer p");
  CHECK(of_rule(s, RuleId::QuantAwqTensors).empty());
  CHECK(of_rule(s, RuleId::QuantAwqShapes).empty());  // weight_zero's shape is checked in its place

  QuantFixture both_missing;
  both_missing.tensor("p.weight", Dtype::I8, {3, 128}).tensor("p.weight_zero", Dtype::F16, {4, 3});
  const auto m = layer_findings(both_missing, "p", R"({"format": "awq_w4a16"})", "");
  CHECK(only_finding(m, RuleId::QuantAwqTensors).message ==
        "expected the awq_w4a16 tensors weight, weight_scale and weight_zeros, missing 'p.weight_scale', "
        "'p.weight_zeros'; found 'p.weight_zero' (comfy-quants' spelling)");
  CHECK(of_rule(m, RuleId::QuantAwqZeroSpelling).empty());
}

// ---- numerics -----------------------------------------------------------------

namespace {

// The tiling as comfy-quants' pack_weight_tile states it, written from its
// view/permute: dense codes D[n][k] viewed (N/128, 32, 4, K/64, 64), permuted
// (0, 3, 1, 2, 4), then packed in pairs along the last axis.
std::vector<std::uint8_t> tile_like_comfy_quants(const std::vector<std::uint8_t>& natural, std::uint64_t n, std::uint64_t k) {
  std::vector<std::uint8_t> out;
  for (std::uint64_t a = 0; a < n / 128; ++a)
    for (std::uint64_t d = 0; d < k / 64; ++d)
      for (std::uint64_t b = 0; b < 32; ++b)
        for (std::uint64_t c = 0; c < 4; ++c)
          for (std::uint64_t e = 0; e < 64; e += 2) out.push_back(natural[(a * 128 + b * 4 + c) * (k / 2) + (d * 64 + e) / 2]);
  return out;
}

// Values m * 2^-8 for small integers m: products and sums of a few are exact
// in binary64, so a plain double sum is the exact sum here.
float eighths(int m) { return static_cast<float>(m) / 256.0f; }

}  // namespace

TEST_CASE("svdquant_w4a4 numerics: un-tiling inverts comfy-quants' tiling, and dequant is main + low-rank (L20)",
          "[prop][numerics][CQ-SVDQUANT-SHAPES]") {
  capped_prop("random layers", 60, [] {
    const std::uint64_t nb = pick<std::uint64_t>(1, 3), kg = pick<std::uint64_t>(1, 3), rank = pick<std::uint64_t>(0, 4);
    const std::uint64_t n = nb * 128, k = kg * 64;
    std::vector<std::uint8_t> natural(n * k / 2);
    for (auto& b : natural) b = static_cast<std::uint8_t>(pick(0, 256));
    const auto tiled = tile_like_comfy_quants(natural, n, k);
    const auto back = deq::svdquant_untile_weight(std::vector<std::uint64_t>{nb, kg, 32, 128}, tiled);
    RC_ASSERT(back.ok());
    RC_ASSERT(back.value().v == natural);

    std::vector<float> scale(kg * n), down(k * rank), up(n * rank);
    for (float& v : scale) v = eighths(pick(1, 64));
    for (float& v : down) v = eighths(pick(-32, 33));
    for (float& v : up) v = eighths(pick(-32, 33));
    const deq::SvdquantWeight w{deq::Mat<std::uint8_t>(n, k / 2, natural), deq::Mat<float>(kg, n, scale),
                                deq::Mat<float>(k, rank, down), deq::Mat<float>(n, rank, up)};
    const auto got = deq::dequant_svdquant_w4a4(w, Dtype::F32);
    RC_ASSERT(got.ok());
    for (std::uint64_t i = 0; i < n; i += 37)
      for (std::uint64_t j = 0; j < k; j += 5) {
        const std::uint8_t byte = natural[i * (k / 2) + j / 2];
        const int code = (j % 2 == 0 ? byte & 0xF : byte >> 4);
        const double v = code >= 8 ? code - 16 : code;
        double low = 0;
        for (std::uint64_t r = 0; r < rank; ++r) low += static_cast<double>(up[i * rank + r]) * down[j * rank + r];
        const float expected = static_cast<float>(static_cast<float>(v * scale[(j / 64) * n + i]) + static_cast<float>(low));
        RC_ASSERT(got.value().at(i, j) == expected);
      }
  });
}

TEST_CASE("svdquant_w4a4: dequant of the tile-packed example equals the natural one's (L20)", "[numerics][CQ-SVDQUANT-LAYOUT]") {
  CliScratch s("safespec_unit_svdquant");
  const std::string layer = " --layer model.layers.0.mlp.down_proj --out ";
  const Run natural = s.run("dequant corpus/examples/quant/svdquant_w4a4_natural.safetensors" + layer + (s.dir / "n.npy").string());
  const Run tiled = s.run("dequant corpus/examples/quant/svdquant_w4a4_tilepack.safetensors" + layer + (s.dir / "t.npy").string());
  REQUIRE(natural.code == 0);
  REQUIRE(tiled.code == 0);
  const auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string a = read(s.dir / "n.npy"), b = read(s.dir / "t.npy");
  CHECK(a.size() > 128 * 64 * 4);
  CHECK(a == b);
  // A layer its producer's contract refuses is not computed.
  const Run bad = s.run("dequant corpus/examples/quant/awq_w4a16_weight_zero.safetensors" + layer + (s.dir / "a.npy").string());
  CHECK(bad.code == 1);
}

TEST_CASE("svdquant_w4a4 linear: comfy-quants' reference formula on both layouts (L20)", "[numerics][CQ-SVDQUANT-LAYOUT]") {
  CliScratch s("safespec_unit_svdquant_linear");
  // x [2, 64], x[i] = ((7i mod 13) - 6) / 8, as an .npy of '<f4'.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 64), }";
  header += std::string((64 - (10 + header.size() + 1) % 64) % 64, ' ') + "\n";
  Bytes npy{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<std::uint8_t>(header.size()), 0};
  npy.insert(npy.end(), header.begin(), header.end());
  for (int i = 0; i < 128; ++i) {
    const float v = static_cast<float>((i * 7) % 13 - 6) / 8.0f;
    std::uint8_t b[4];
    std::memcpy(b, &v, 4);
    npy.insert(npy.end(), b, b + 4);
  }
  const std::string x = s.file("x.npy", npy);
  const auto run = [&](const std::string& layout) {
    const std::string out = (s.dir / ("y_" + layout + ".npy")).string();
    const Run r = s.run("linear corpus/examples/quant/svdquant_w4a4_" + layout +
                        ".safetensors --layer model.layers.0.mlp.down_proj --input " + x + " --out " + out);
    REQUIRE(r.code == 0);
    std::ifstream in(out, std::ios::binary);
    const std::string bytes(std::istreambuf_iterator<char>(in), {});
    std::vector<float> y((bytes.size() - 128) / 4);
    std::memcpy(y.data(), bytes.data() + 128, y.size() * 4);
    return y;
  };
  const std::vector<float> natural = run("natural"), tiled = run("tilepack");
  REQUIRE(natural.size() == 2 * 128);
  CHECK(natural == tiled);
  // y[0, 0] and y[0, 1] computed apart from safespec, in Python from the file's
  // values: sum_k f32(x / smooth) * f32(f32(v * scale) + f32(up . down)).
  CHECK(natural[0] == -0.24106597900390625f);
  CHECK(natural[1] == 0.12056732177734375f);
}
