// quant-numerics.md §1, §3, §4, §6.1-§11: the exact sum and its one rounding,
// the Hadamard rotation, the block-scale swizzle, and one hand-computed tiny
// case per weight format (values worked out on paper; comments show how).
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "props/catch.hpp"
#include "spec/number_formats.hpp"
#include "spec/numerics/dequant.hpp"
#include "spec/numerics/hadamard.hpp"
#include "spec/numerics/hadamard_blocks.hpp"
#include "spec/numerics/rounding.hpp"
#include "spec/numerics/swizzle.hpp"

using namespace safespec;
using namespace safespec::deq;

namespace {

float p2(int e) { return std::ldexp(1.0f, e); }
bool same_bits(float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }

template <class V>
Mat<V> mat(std::uint64_t r, std::uint64_t c, std::vector<V> v) { return Mat<V>(r, c, std::move(v)); }

}  // namespace

// ---- §1 rounding and the exact sum ------------------------------------------

TEST_CASE("numerics §1.3: the exact sum rounds once (T(a + b), not T(f32(a + b)))", "[numerics]") {
  deq::ExactSum s;  // §1.3's counterexample: a = 1 + 2^-8, b = 2^-30
  s.add(1.0f + p2(-8));
  s.add(p2(-30));
  CHECK(s.round(Dtype::BF16) == 1.0f + p2(-7));
  CHECK(round_t(Dtype::BF16, (1.0f + p2(-8)) + p2(-30)) == 1.0f);  // the double rounding it avoids
  deq::ExactSum tie;  // an exact tie goes to even
  tie.add(1.0f);
  tie.add(p2(-8));
  CHECK(tie.round(Dtype::BF16) == 1.0f);
  deq::ExactSum cancel;  // 1 + 2^-30 - 1 keeps 2^-30, which binary32 addition would lose
  cancel.add(1.0f);
  cancel.add(p2(-30));
  cancel.add(1.0f, true);
  CHECK(cancel.round(Dtype::F32) == p2(-30));
}

TEST_CASE("numerics §1.1-§1.2: the exact sum's rounding at the edges of F32, BF16, F16", "[numerics]") {
  const float fmax = std::numeric_limits<float>::max();
  deq::ExactSum big;
  big.add(fmax);
  big.add(fmax);
  CHECK(big.round(Dtype::F32) == INFINITY);
  CHECK(big.round(Dtype::F32, -1) == fmax);  // (2 * max) / 2, no intermediate overflow
  deq::ExactSum h;
  h.add(65504.0f);
  h.add(15.0f);  // 65519 < 65520: stays finite
  CHECK(h.round(Dtype::F16) == 65504.0f);
  h.add(1.0f);  // 65520: infinity (§1.2)
  CHECK(h.round(Dtype::F16) == INFINITY);
  deq::ExactSum sub;  // binary16 subnormals: 3 * 2^-25 is a tie between 2^-24 and 2^-23, even is 2^-23
  sub.add(3.0f * p2(-25));
  CHECK(sub.round(Dtype::F16) == p2(-23));
  deq::ExactSum tiny;  // the smallest binary32 subnormal, scaled down: rounds to +0
  tiny.add(p2(-149));
  CHECK(tiny.round(Dtype::F32) == p2(-149));
  CHECK(tiny.round(Dtype::F32, -1) == 0.0f);  // 2^-150 is a tie with 0, even
  deq::ExactSum neg;
  neg.add(3.0f, true);
  CHECK(neg.round(Dtype::F16) == -3.0f);
  deq::ExactSum zero;
  zero.add(-0.0f);
  CHECK(same_bits(zero.round(Dtype::F32), 0.0f));
}

TEST_CASE("numerics §1: the exact sum's IEEE special cases", "[numerics]") {
  deq::ExactSum a;
  a.add(1.0f);
  a.add(INFINITY);
  CHECK(a.round(Dtype::BF16) == INFINITY);
  a.add(INFINITY, true);  // +inf - inf
  CHECK(std::isnan(a.round(Dtype::BF16)));
  deq::ExactSum b;
  b.add(NAN);
  CHECK(std::isnan(b.round(Dtype::F16)));
  deq::ExactSum c;
  c.add(INFINITY, true);
  CHECK(c.round(Dtype::F32) == -INFINITY);
}

TEST_CASE("numerics §1: the exact sum equals an independent exact integer sum, rounded", "[numerics]") {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 2000; ++trial) {
    deq::ExactSum s;
    std::int64_t exact = 0;
    const int terms = 1 + static_cast<int>(rng() % 16);
    for (int i = 0; i < terms; ++i) {
      const auto v = static_cast<std::int64_t>(rng() % (1u << 24)) - (1 << 23);
      exact += v;
      s.add(static_cast<float>(v));
    }
    const int e = static_cast<int>(rng() % 40) - 20;
    INFO("sum " << exact << " * 2^" << e);
    // |exact| < 2^28: the int64 -> float conversion is RNE (the default mode).
    CHECK(s.round(Dtype::F32, e) == std::ldexp(static_cast<float>(exact), e));
    if (exact > -(1 << 24) && exact < (1 << 24)) {  // exact in binary32: §1.1 / §1.2 give the rounding
      const float f = std::ldexp(static_cast<float>(exact), e);
      CHECK(s.round(Dtype::BF16, e) == num::bf16_to_f32(num::f32_to_bf16(f)));
      CHECK(s.round(Dtype::F16, e) == num::f16_to_f32(num::f32_to_f16(f)));
    }
  }
}

TEST_CASE("numerics §1.3: a two-term exact sum is IEEE addition, for any bit patterns", "[numerics]") {
  // binary32 a + b is correctly rounded, so it is an independent oracle for
  // F32; for BF16/F16 operands §1.3 makes T(f32(a + b)) the correct rounding.
  std::mt19937 rng(13);
  for (int trial = 0; trial < 200000; ++trial) {
    float a = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    float b = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    if (trial % 3 == 0) b = std::ldexp(a, static_cast<int>(rng() % 60) - 30);  // overlapping magnitudes
    if (std::isnan(a) || std::isnan(b)) continue;
    const bool negate = rng() & 1;
    for (Dtype t : {Dtype::F32, Dtype::BF16, Dtype::F16}) {
      const float at = round_t(t, a), bt = round_t(t, b);
      deq::ExactSum s;
      s.add(at);
      s.add(bt, negate);
      const float want = round_t(t, negate ? at - bt : at + bt);
      if (std::isnan(want)) {
        CHECK(std::isnan(s.round(t)));
      } else if (!(s.round(t) == want)) {
        FAIL("a = " << at << ", b = " << bt << (negate ? " (minus)" : "") << ": " << s.round(t) << " vs " << want);
      }
    }
  }
}

// ---- §3 Hadamard --------------------------------------------------------------

TEST_CASE("numerics §3.1: C must be a power of 4, at least 4", "[numerics]") {
  for (std::uint64_t c : {4ull, 16ull, 64ull, 256ull, 1ull << 62}) CHECK(is_power_of_4(c));
  for (std::uint64_t c : {0ull, 1ull, 2ull, 3ull, 8ull, 32ull, 128ull, 255ull, 1ull << 63, ~0ull}) CHECK_FALSE(is_power_of_4(c));
  CHECK(log4_of(256) == 4);
}

TEST_CASE("numerics §3.1: the closed form equals the Kronecker product H4 (x) ... (x) H4", "[numerics]") {
  const int h4[4][4] = {{1, 1, 1, -1}, {1, 1, -1, 1}, {1, -1, 1, 1}, {-1, 1, 1, 1}};
  std::vector<int> kron = {1};  // a 1 x 1 matrix
  std::uint64_t n = 1;
  for (int k = 1; k <= 4; ++k) {
    std::vector<int> next(static_cast<std::size_t>(16 * n * n));
    for (std::uint64_t i = 0; i < 4 * n; ++i)
      for (std::uint64_t j = 0; j < 4 * n; ++j)  // (A (x) H4)[i][j] = A[i/4][j/4] * H4[i%4][j%4]
        next[i * 4 * n + j] = kron[(i / 4) * n + j / 4] * h4[i % 4][j % 4];
    kron = std::move(next);
    n *= 4;
    for (std::uint64_t i = 0; i < n; ++i)
      for (std::uint64_t j = 0; j < n; ++j) {
        INFO("C = " << n << ", i = " << i << ", j = " << j);
        REQUIRE(hadamard_sign(n, i, j) == kron[i * n + j]);
      }
  }
}

TEST_CASE("numerics §3.1-§3.2: rotating twice is the identity (H_C * H_C = I), row by row and block by block", "[numerics]") {
  std::mt19937 rng(3);
  for (std::uint64_t c : {4ull, 16ull, 64ull}) {
    // Small integers times 2^-3: every partial sum is exact, so both passes are exact in every T.
    Mat<float> x = Mat<float>::zeros(3, 2 * c);
    for (auto& v : x.v) v = static_cast<float>(static_cast<int>(rng() % 61) - 30) / 8.0f;
    for (Dtype t : {Dtype::F32, Dtype::BF16, Dtype::F16}) {
      auto once = hadamard_blocks(x, c, t, RuleId::QuantInt8ConvrotGroupsize);
      REQUIRE(once.ok());
      auto twice = hadamard_blocks(once.value(), c, t, RuleId::QuantInt8ConvrotGroupsize);
      REQUIRE(twice.ok());
      if (t == Dtype::F32) CHECK(twice.value() == x);
    }
  }
  // One 4-block by hand: x = [1, 2, 3, 4]; xr[j] = sum_i x[i] H4[i][j] / 2.
  auto r = hadamard_blocks(mat<float>(1, 4, {1, 2, 3, 4}), 4, Dtype::F32, RuleId::QuantInt8ConvrotGroupsize);
  REQUIRE(r.ok());
  CHECK(r.value().v == std::vector<float>{(1 + 2 + 3 - 4) / 2.0f, (1 + 2 - 3 + 4) / 2.0f, (1 - 2 + 3 + 4) / 2.0f, (-1 + 2 + 3 + 4) / 2.0f});
}

TEST_CASE("numerics §3.1: a C that is not a power of 4, or K not divisible by C, is an error", "[numerics]") {
  const Mat<float> x = Mat<float>::zeros(1, 16);
  for (std::uint64_t c : {0ull, 2ull, 8ull, 32ull}) {
    auto r = hadamard_blocks(x, c, Dtype::F32, RuleId::QuantW4a4Groupsize);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().rule == RuleId::QuantW4a4Groupsize);
  }
  auto r = hadamard_blocks(x, 64, Dtype::F32, RuleId::QuantW4a4Groupsize);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "expected K divisible by the ConvRot group size 64, found K = 16");
  CHECK_FALSE(hadamard_blocks(x, 4, Dtype::I8, RuleId::QuantW4a4Groupsize).ok());
  CHECK_FALSE(hadamard_blocks(Mat<float>(2, 4, {1.0f}), 4, Dtype::F32, RuleId::QuantW4a4Groupsize).ok());
}

// ---- §4 swizzle ----------------------------------------------------------------

TEST_CASE("numerics §4 L3: the document's swizzle offsets", "[numerics]") {
  CHECK(swizzle_offset(130, 5, 8) == 1569);  // R = 130, Cb = 7: R' = 256, C' = 8
  CHECK(swizzle_offset(127, 3, 4) == 511);   // R = 128, Cb = 4
  CHECK(swizzle_offset(33, 1, 4) == 21);
  CHECK(swizzle_offset(0, 0, 4) == 0);
  CHECK(unswizzle_position(1569, 8) == std::pair<std::uint64_t, std::uint64_t>{130, 5});
}

TEST_CASE("numerics §4 L3: the swizzle is a bijection of 0 .. R'C' - 1 and the inverse inverts it", "[numerics]") {
  for (auto [rp, cp] : {std::pair<std::uint64_t, std::uint64_t>{128, 4}, {256, 8}, {384, 12}}) {
    std::set<std::uint64_t> seen;
    for (std::uint64_t r = 0; r < rp; ++r)
      for (std::uint64_t c = 0; c < cp; ++c) {
        const std::uint64_t off = swizzle_offset(r, c, cp);
        REQUIRE(off < rp * cp);
        REQUIRE(unswizzle_position(off, cp) == std::pair{r, c});
        seen.insert(off);
      }
    CHECK(seen.size() == rp * cp);
  }
}

TEST_CASE("numerics §4 L3: swizzle then unswizzle round-trips for R = 130, Cb = 7, padding is zero and never read", "[numerics]") {
  Mat<std::uint8_t> s = Mat<std::uint8_t>::zeros(130, 7);
  for (std::size_t i = 0; i < s.v.size(); ++i) s.v[i] = static_cast<std::uint8_t>(1 + i % 251);
  auto stored = swizzle(s, RuleId::QuantNvfp4Layout);
  REQUIRE(stored.ok());
  CHECK(stored.value().rows == 256);
  CHECK(stored.value().cols == 8);
  std::size_t zeros = 0;
  for (auto b : stored.value().v) zeros += b == 0;
  CHECK(zeros == 256 * 8 - 130 * 7);  // exactly the padding cells
  // §4's example off(130, 5) = 1569 names row 130, which for R = 130 is a
  // padding row (rows are 0..129): that cell is zero; row 129 sits at 1553.
  CHECK(stored.value().v[1569] == 0);
  CHECK(swizzle_offset(129, 5, 8) == 1553);
  CHECK(stored.value().v[1553] == s.at(129, 5));
  Mat<std::uint8_t> dirty = stored.value();
  for (std::uint64_t r = 0; r < 256; ++r)  // fill every padding cell
    for (std::uint64_t c = 0; c < 8; ++c)
      if (r >= 130 || c >= 7) dirty.v[swizzle_offset(r, c, 8)] = 0xEE;
  auto back = unswizzle(dirty, 130, 7, RuleId::QuantNvfp4Layout);
  REQUIRE(back.ok());
  CHECK(back.value() == s);
  auto wrong = unswizzle(Mat<std::uint8_t>::zeros(130, 7), 130, 7, RuleId::QuantNvfp4Layout);
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().message == "expected the swizzled shape of [130, 7] scales, [256, 8], found [130, 7]");
}

// ---- §8.1 fp8 ------------------------------------------------------------------

TEST_CASE("numerics §8.1 L10: float8_e4m3fn dequantizes as decode(q) * T(s)", "[numerics]") {
  // sglang's test_comfy_full_precision_fp8_dequantizes_before_linear: weight [[2, -4]], scale 0.5.
  auto w = dequant_fp8({Fp8::E4M3, mat<std::uint8_t>(1, 2, {0x40, 0xC8}), 0.5f}, Dtype::BF16);
  REQUIRE(w.ok());
  CHECK(w.value().v == std::vector<float>{1.0f, -2.0f});
  // 1.0, -2.0, 448, 2^-9 times bf16(1/3) = 0.333984375: 448 * 0.333984375 = 149.625 -> bf16 150.
  const Fp8Weight third{Fp8::E4M3, mat<std::uint8_t>(2, 2, {0x38, 0xC0, 0x7E, 0x01}), 1.0f / 3.0f};
  auto b = dequant_fp8(third, Dtype::BF16);
  REQUIRE(b.ok());
  CHECK(b.value().v == std::vector<float>{0.333984375f, -0.66796875f, 150.0f, 0.333984375f * p2(-9)});
  auto f = dequant_fp8(third, Dtype::F32);  // F32: the scale is not rounded
  REQUIRE(f.ok());
  CHECK(f.value().v[2] == 448.0f * (1.0f / 3.0f));
}

TEST_CASE("numerics §8.1 L11: float8_e5m2 dequantizes, infinities and overflow in T included", "[numerics]") {
  // 0x3C = 1.0, 0x7B = 57344, 0x7C = +inf, 0x7D = NaN; scale 2.
  auto w = dequant_fp8({Fp8::E5M2, mat<std::uint8_t>(1, 4, {0x3C, 0x7B, 0x7C, 0x7D}), 2.0f}, Dtype::F16);
  REQUIRE(w.ok());
  CHECK(w.value().v[0] == 2.0f);
  CHECK(w.value().v[1] == INFINITY);  // 114688 > 65504
  CHECK(w.value().v[2] == INFINITY);
  CHECK(std::isnan(w.value().v[3]));
  auto nan_scale = dequant_fp8({Fp8::E5M2, mat<std::uint8_t>(1, 1, {0x3C}), NAN}, Dtype::F32);
  REQUIRE(nan_scale.ok());
  CHECK(std::isnan(nan_scale.value().v[0]));
  CHECK_FALSE(dequant_fp8({Fp8::E4M3, mat<std::uint8_t>(2, 2, {1, 2, 3}), 1.0f}, Dtype::F32).ok());
  CHECK_FALSE(dequant_fp8({Fp8::E4M3, mat<std::uint8_t>(1, 1, {1}), 1.0f}, Dtype::I8).ok());
}

// ---- §7.2 int8 -------------------------------------------------------------------

TEST_CASE("numerics §7.2 L14: int8 tensor-wise and row-wise dequantization", "[numerics]") {
  const auto q = mat<std::int8_t>(2, 2, {1, -2, 127, -128});
  auto tw = dequant_int8({q, {0.5f}, 0}, Dtype::F32);
  REQUIRE(tw.ok());
  CHECK(tw.value().v == std::vector<float>{0.5f, -1.0f, 63.5f, -64.0f});
  auto rw = dequant_int8({q, {0.5f, 2.0f}, 0}, Dtype::F32);
  REQUIRE(rw.ok());
  CHECK(rw.value().v == std::vector<float>{0.5f, -1.0f, 254.0f, -256.0f});
  auto bf = dequant_int8({q, {0.3f}, 0}, Dtype::BF16);  // 127 * 0.3 = 38.1 -> bf16 38
  REQUIRE(bf.ok());
  CHECK(bf.value().at(1, 0) == 38.0f);
  auto bad = dequant_int8({q, {1.0f, 2.0f, 3.0f}, 0}, Dtype::F32);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().rule == RuleId::QuantInt8Shapes);
  CHECK(bad.error().message == "expected 1 (tensor-wise) or N = 2 (row-wise [N, 1]) scale values, found 3");
}

TEST_CASE("numerics §7.2 L14: int8 ConvRot dequantization un-rotates (W = (q s) H_C per block)", "[numerics]") {
  // Row 0: Wrot = e0 -> W = H4 row 0 / 2; row 1: Wrot = 4 e3 -> W = 4 * H4 row 3 / 2.
  const auto q = mat<std::int8_t>(2, 8, {1, 0, 0, 0, 0, 0, 0, 2,  //
                                         0, 0, 0, 4, 0, 0, 0, 0});
  auto w = dequant_int8({q, {1.0f, 1.0f}, 4}, Dtype::F32);
  REQUIRE(w.ok());
  CHECK(w.value().v == std::vector<float>{0.5f, 0.5f, 0.5f, -0.5f, -1.0f, 1.0f, 1.0f, 1.0f,  //
                                          -2.0f, 2.0f, 2.0f, 2.0f, 0.0f, 0.0f, 0.0f, 0.0f});
  auto c8 = dequant_int8({q, {1.0f}, 8}, Dtype::F32);
  REQUIRE_FALSE(c8.ok());
  CHECK(c8.error().rule == RuleId::QuantInt8ConvrotGroupsize);
  CHECK_FALSE(dequant_int8({q, {1.0f}, 16}, Dtype::F32).ok());  // K = 8 not divisible by 16
}

// ---- §6.1 convrot_w4a4 -------------------------------------------------------------

TEST_CASE("numerics §6.1 L2 L15: convrot_w4a4 codes are signed, low nibble first", "[numerics]") {
  // 0x9F: low F -> -1 (column 0), high 9 -> -7 (column 1); 0x87: low 7 -> 7, high 8 -> -8.
  auto v = w4a4_codes({mat<std::uint8_t>(1, 2, {0x9F, 0x87}), {1.0f}, 4});
  REQUIRE(v.ok());
  CHECK(v.value().v == std::vector<std::int8_t>{-1, -7, 7, -8});
}

TEST_CASE("numerics §6.1 L15: convrot_w4a4 dequantizes as un-rotate(v * scale[n])", "[numerics]") {
  // Row 0: v = [-1, -7, 7, 0], scale 2 -> Wrot = [-2, -14, 14, 0];
  // W[j] = sum_i Wrot[i] H4[i][j] / 2 = [-2/2, -30/2, 26/2, 2/2].
  // Row 1: v = [1, 0, 0, 0], scale 0.5 -> W = 0.5 * H4 row 0 / 2.
  const W4a4Weight w{mat<std::uint8_t>(2, 2, {0x9F, 0x07, 0x01, 0x00}), {2.0f, 0.5f}, 4};
  auto d = dequant_convrot_w4a4(w, Dtype::F32);
  REQUIRE(d.ok());
  CHECK(d.value().v == std::vector<float>{-1.0f, -15.0f, 13.0f, 1.0f, 0.25f, 0.25f, 0.25f, -0.25f});
  auto bad = dequant_convrot_w4a4({w.packed, {2.0f}, 4}, Dtype::F32);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "expected N = 2 scale values, found 1");
  auto c2 = dequant_convrot_w4a4({w.packed, w.scale, 2}, Dtype::F32);
  REQUIRE_FALSE(c2.ok());
  CHECK(c2.error().rule == RuleId::QuantW4a4Groupsize);
}

// ---- §9.1 nvfp4 ------------------------------------------------------------------

TEST_CASE("numerics §9.1 L1 L3 L12: nvfp4 hi_first E2M1 codes times global * swizzled block scale, sliced", "[numerics]") {
  // Logical N = 3, K = 30; stored N16 = 16 rows of K16/2 = 16 bytes; scales
  // [16, 2] swizzled to [128, 4]. Global scale 0.25.
  Mat<std::uint8_t> packed = Mat<std::uint8_t>::zeros(16, 16);
  packed.at(0, 0) = 0x1A;   // col 0: code 1 = 0.5; col 1: code 10 = -1
  packed.at(0, 8) = 0x7F;   // col 16: 6; col 17: -6
  packed.at(2, 14) = 0x25;  // col 28: 1; col 29: 3
  packed.at(2, 15) = 0x77;  // cols 30, 31: sliced off
  packed.at(3, 0) = 0x77;   // row 3: sliced off
  Mat<std::uint8_t> logical = Mat<std::uint8_t>::zeros(16, 2);
  logical.at(0, 0) = 0x38;  // 1.0
  logical.at(0, 1) = 0x40;  // 2.0
  logical.at(2, 1) = 0x30;  // 0.5
  auto stored = swizzle(logical, RuleId::QuantNvfp4Layout);
  REQUIRE(stored.ok());
  Mat<std::uint8_t> scales = stored.value();
  scales.v[swizzle_offset(100, 3, 4)] = 0x7E;  // a padding cell: ignored
  auto w = dequant_nvfp4({packed, scales, 0.25f, 3, 30}, Dtype::F32);
  REQUIRE(w.ok());
  const Mat<float>& W = w.value();
  REQUIRE(W.rows == 3);
  REQUIRE(W.cols == 30);
  CHECK(W.at(0, 0) == 0.125f);   // 0.5 * (0.25 * 1)
  CHECK(W.at(0, 1) == -0.25f);   // -1 * (0.25 * 1)
  CHECK(W.at(0, 16) == 3.0f);    // 6 * (0.25 * 2)
  CHECK(W.at(0, 17) == -3.0f);
  CHECK(W.at(2, 28) == 0.125f);  // 1 * (0.25 * 0.5)
  CHECK(W.at(2, 29) == 0.375f);
  CHECK(W.at(1, 5) == 0.0f);     // row 1 has block scale 0 (E4M3 0x00)
  // The global scale times the block scale rounds to T before the E2M1
  // product: bf16(f32(1/3) * 1) = 0.333984375, times 0.5 (exact).
  auto b = dequant_nvfp4({packed, scales, 1.0f / 3.0f, 3, 30}, Dtype::BF16);
  REQUIRE(b.ok());
  CHECK(b.value().at(0, 0) == 0.5f * 0.333984375f);
  auto bad = dequant_nvfp4({packed, Mat<std::uint8_t>::zeros(16, 2), 0.25f, 3, 30}, Dtype::F32);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().rule == RuleId::QuantNvfp4Layout);
  auto big = dequant_nvfp4({packed, scales, 0.25f, 17, 30}, Dtype::F32);
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().message == "expected the logical shape [17, 30] within the stored [16, 32]");
  auto odd_k = dequant_nvfp4({Mat<std::uint8_t>::zeros(16, 4), Mat<std::uint8_t>::zeros(128, 4), 1.0f, 16, 8}, Dtype::F32);
  REQUIRE_FALSE(odd_k.ok());
  CHECK(odd_k.error().message == "expected a padded K divisible by 16, found 8");
}

// ---- §10.1 mxfp8 -----------------------------------------------------------------

TEST_CASE("numerics §10.1 §2.3 L13: mxfp8 E4M3 times the swizzled E8M0 scale, code 0 is 0 for kitchen", "[numerics]") {
  Mat<std::uint8_t> codes = Mat<std::uint8_t>::zeros(2, 64);
  codes.at(0, 0) = 0x38;   // 1.0, block scale 127 = 1
  codes.at(0, 32) = 0x38;  // 1.0, block scale 0
  codes.at(1, 0) = 0x00;   // 0, block scale 255
  codes.at(1, 1) = 0x38;   // 1.0, block scale 255
  codes.at(1, 32) = 0xB0;  // -0.5, block scale 130 = 8
  auto scales = swizzle(mat<std::uint8_t>(2, 2, {127, 0, 255, 130}), RuleId::QuantMxfp8Layout);
  REQUIRE(scales.ok());
  auto k = dequant_mxfp8({codes, scales.value(), 2, 64, num::E8M0::Kitchen}, Dtype::F32);
  REQUIRE(k.ok());
  CHECK(k.value().at(0, 0) == 1.0f);
  CHECK(k.value().at(0, 32) == 0.0f);     // kitchen: E8M0 0 decodes as 0
  CHECK(std::isnan(k.value().at(1, 0)));  // 0 * inf
  CHECK(k.value().at(1, 1) == INFINITY);
  CHECK(k.value().at(1, 32) == -4.0f);
  auto ocp = dequant_mxfp8({codes, scales.value(), 2, 64, num::E8M0::Ocp}, Dtype::F32);
  REQUIRE(ocp.ok());
  CHECK(ocp.value().at(0, 32) == p2(-127));  // OCP: 2^-127, a binary32 subnormal
  CHECK(std::isnan(ocp.value().at(1, 1)));    // OCP: 255 is NaN
  auto h = dequant_mxfp8({codes, scales.value(), 2, 64, num::E8M0::Ocp}, Dtype::F16);
  REQUIRE(h.ok());
  CHECK(h.value().at(0, 32) == 0.0f);  // 2^-127 underflows binary16
  auto bad = dequant_mxfp8({Mat<std::uint8_t>::zeros(2, 48), Mat<std::uint8_t>::zeros(128, 4), 2, 48}, Dtype::F32);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "expected a padded K divisible by 32, found 48");
}

// ---- §11 awq_w4a16 -----------------------------------------------------------------

TEST_CASE("numerics §11 L17: awq_w4a16 is (u4 - 8) * scale + zeros in the scale dtype, two roundings", "[numerics]") {
  // N = 2, K = 4, G = 2: scale and zeros [K/G, N] = [2, 2].
  const auto packed = mat<std::uint8_t>(2, 2, {0x9F, 0x08, 0x00, 0xFF});
  AwqWeight w{packed, mat<float>(2, 2, {0.5f, 1.0f, 2.0f, 0.25f}), mat<float>(2, 2, {-1.0f, 0.0f, 0.5f, 0.0f}), 2, Dtype::F32};
  auto d = dequant_awq_w4a16(w);
  REQUIRE(d.ok());
  // Row 0: codes 15, 9, 8, 0 -> levels 7, 1, 0, -8; groups 0, 0, 1, 1 (column n = 0).
  // Row 1: codes 0, 0, 15, 15 -> levels -8, -8, 7, 7 (column n = 1).
  CHECK(d.value().v == std::vector<float>{2.5f, -0.5f, 0.5f, -15.5f, -8.0f, -8.0f, 1.75f, 1.75f});
  // F16: 7 * f16(0.1) = 1433.25 * 2^-11 rounds to 1433 * 2^-11; plus 2^-13
  // (0.25 units) stays 1433 * 2^-11. One fused rounding would give 1434 * 2^-11.
  const float tenth = num::f16_to_f32(num::f32_to_f16(0.1f));
  AwqWeight h{mat<std::uint8_t>(1, 1, {0x0F}), mat<float>(1, 1, {tenth}), mat<float>(1, 1, {p2(-13)}), 2, Dtype::F16};
  auto r = dequant_awq_w4a16(h);
  REQUIRE(r.ok());
  CHECK(r.value().v[0] == 1433.0f * p2(-11));
  h.scale.v[0] = 0.1f;  // not an F16 value
  CHECK_FALSE(dequant_awq_w4a16(h).ok());
  w.group_size = 3;
  auto g = dequant_awq_w4a16(w);
  REQUIRE_FALSE(g.ok());
  CHECK(g.error().message == "expected a group size dividing K = 4, found 3");
  w.group_size = 0;
  CHECK_FALSE(dequant_awq_w4a16(w).ok());
}
