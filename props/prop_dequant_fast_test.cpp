// The fast dequantizations (src/numerics/dequant_fast.hpp) are the
// references (spec/numerics/dequant.hpp) bit for bit, NaN bits included, and
// fail with the same Error: random layers of every format and output dtype,
// scales of any bit pattern (NaN, ±inf, 0, subnormals), codes of every byte,
// shapes that are refused, ConvRot sizes C = 4, 16, 64, 256 and invalid ones,
// every thread count. Also their building blocks (src/numerics/
// hadamard_fast.hpp) against the rotations they replace, on blocks built to
// reach each of their three paths (the cheap bound, BitSpan, the reference).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>
#include <sstream>
#include <vector>

#include "props/catch.hpp"
#include "props/full_range_gen.hpp"
#include "spec/number_formats.hpp"
#include "spec/numerics/hadamard.hpp"
#include "spec/numerics/hadamard_blocks.hpp"
#include "spec/numerics/rounding.hpp"
#include "spec/numerics/swizzle.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/numerics/dequant_fast.hpp"
#include "src/numerics/hadamard_fast.hpp"

using namespace safespec;
using namespace safespec::numerics;
using namespace safespec::test::full_range;
using deq::Mat;

namespace {

std::string describe(const Error& e) { return std::string(rule_name(e.rule)) + " at " + e.where.text() + ": " + e.message; }

// "" when both fail with the same Error or both give the same shape and the
// same bits; else the first difference.
std::string differs(const Result<Mat<float>>& ref, const Result<Mat<float>>& fast) {
  if (!ref.ok() || !fast.ok()) {
    const std::string a = ref.ok() ? "ok" : describe(ref.error()), b = fast.ok() ? "ok" : describe(fast.error());
    return a == b ? "" : "reference: " + a + "; fast: " + b;
  }
  const Mat<float>& r = ref.value();
  const Mat<float>& f = fast.value();
  if (r.rows != f.rows || r.cols != f.cols || r.v.size() != f.v.size()) return "shapes differ";
  for (std::size_t i = 0; i < r.v.size(); ++i)
    if (std::bit_cast<std::uint32_t>(r.v[i]) != std::bit_cast<std::uint32_t>(f.v[i]))
      return "value " + std::to_string(i) + ": reference bits " + std::to_string(std::bit_cast<std::uint32_t>(r.v[i])) +
             ", fast " + std::to_string(std::bit_cast<std::uint32_t>(f.v[i]));
  return "";
}

// Mostly ordinary magnitudes, sometimes any bit pattern, sometimes a special.
float gen_dequant_scale(float typical) {
  switch (bulk(0, 12)) {
    case 0: return any_float();
    case 1: return bulk_one_of(0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1e-40f, -1e-45f, 3e38f);
    default: return typical * static_cast<float>(bulk(-64, 65)) / 32.0f;
  }
}

// An output dtype: the three the references compute in, rarely one they refuse.
Dtype gen_t() { return one_of(Dtype::F32, Dtype::F32, Dtype::BF16, Dtype::F16, Dtype::F16, Dtype::I8); }

std::vector<std::uint8_t> gen_bytes(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  const bool zeros = pick(0, 8) == 0;  // all-zero blocks: the signed-zero rules
  for (auto& b : v) b = zeros ? 0 : any_byte();
  return v;
}

// Sometimes one value too few or too many: the shape checks must refuse it alike.
template <class V>
void maybe_break(std::vector<V>& v) {
  if (pick(0, 12) == 0) {
    if (!v.empty() && coin())
      v.pop_back();
    else
      v.push_back(V{});
  }
}

unsigned gen_threads() { return pick(1u, 5u); }

std::uint64_t round_up(std::uint64_t v, std::uint64_t to) { return (v + to - 1) / to * to; }

// A binary32 value with a short significand at a chosen binade spread: a
// narrow spread passes the cheap bound, a wider one only BitSpan, a very
// wide one neither (the reference's own rotation).
float gen_block_value(int spread) {
  switch (bulk(0, 40)) {
    case 0: return bulk_one_of(0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, -3e-39f);
    case 1: return any_float();
    default: {
      const auto m = static_cast<float>(bulk(-255, 256));
      return std::ldexp(m, bulk(-spread, spread + 1) - 4);
    }
  }
}

std::vector<float> gen_block(std::size_t c) {
  const int spread = one_of(2, 8, 20, 40, 120);
  const bool zeros = pick(0, 10) == 0;
  std::vector<float> x(c);
  for (float& v : x) v = zeros ? one_of(0.0f, -0.0f) : gen_block_value(spread);
  return x;
}

}  // namespace

TEST_CASE("hadamard_fast: every block equals the rotation it replaces (§3.2, eager.2, §5.10)", "[prop][numerics]") {
  prop("hadamard_block == deq::hadamard_blocks on one row", 300, [] {
    const std::size_t c = one_of<std::size_t>(4, 16, 64, 256);
    const Dtype t = one_of(Dtype::F32, Dtype::BF16, Dtype::F16);
    const std::vector<float> x = gen_block(c);
    std::vector<float> fast(c);
    FhtScratch s;
    hadamard_block(x, t, s, fast.data());
    const auto ref = deq::hadamard_blocks(Mat<float>(1, c, x), c, t, RuleId::QuantInt8ConvrotGroupsize);
    RC_ASSERT(differs(ref, Mat<float>(1, c, fast)) == "");
  });
  prop("rotate_eager_block == rotate_eager", 300, [] {
    const std::size_t c = one_of<std::size_t>(4, 16, 64, 256);
    const FloatType t = one_of(FloatType::F32, FloatType::BF16, FloatType::F16);
    std::vector<float> x = gen_block(c);
    for (float& v : x) v = round_to(t, v);  // eager.2 rotates T values
    std::vector<float> fast(c);
    FhtScratch s;
    rotate_eager_block(x, t, s, fast.data());
    RC_ASSERT(differs(Mat<float>(1, c, rotate_eager(x, t)), Mat<float>(1, c, fast)) == "");
  });
  prop("rotate_ideal_block == rotate_ideal, and the integer form for q · s", 300, [] {
    const std::size_t c = one_of<std::size_t>(4, 16, 64, 256);
    std::vector<double> x(c);
    const int spread = one_of(2, 20, 40, 600);
    for (double& v : x) {
      v = static_cast<double>(gen_block_value(spread)) * std::ldexp(1.0, one_of(0, 0, -1000, 900));
      if (pick(0, 4) == 0) v += static_cast<double>(gen_block_value(spread));  // two binary32 terms
    }
    std::vector<double> fast(2 * c, -1.0);
    FhtScratch s;
    rotate_ideal_block(x, s, fast.data(), 2);  // a stride, as the y_ideal tiles use
    const std::vector<double> ref = rotate_ideal(x);
    for (std::size_t j = 0; j < c; ++j) RC_ASSERT(std::bit_cast<std::uint64_t>(ref[j]) == std::bit_cast<std::uint64_t>(fast[2 * j]));
    // x_i = q_i · s: the integer butterflies and one exact product.
    std::vector<std::int8_t> q(c);
    for (auto& v : q) v = static_cast<std::int8_t>(bulk(-127, 128));
    float sc = gen_dequant_scale(1.0f / 512);
    if (!std::isfinite(sc)) sc = -0.0f;
    std::vector<double> qs(c);
    for (std::size_t i = 0; i < c; ++i) qs[i] = static_cast<double>(q[i]) * sc;
    std::vector<std::int32_t> sums(c);
    hadamard_int_block(q, s, sums.data());
    const double s_2k = std::ldexp(static_cast<double>(sc), -log4_exact(c).value_or(0));
    const std::vector<double> ref_q = rotate_ideal(qs);
    for (std::size_t j = 0; j < c; ++j)
      RC_ASSERT(std::bit_cast<std::uint64_t>(ref_q[j]) == std::bit_cast<std::uint64_t>(ideal_scaled(sums[j], s_2k)));
  });
}

TEST_CASE("fast dequantization: fp8 is the reference bit for bit (§8.1)", "[prop][numerics][CQ-FP8-WEIGHT]") {
  prop("float8_e4m3fn and float8_e5m2, every code and scale", 200, [] {
    const std::uint64_t rows = pick(0, 6), cols = pick(0, 70);
    std::vector<std::uint8_t> codes = gen_bytes(rows * cols);
    maybe_break(codes);
    const deq::Fp8Weight w{one_of(deq::Fp8::E4M3, deq::Fp8::E5M2), Mat<std::uint8_t>(rows, cols, codes),
                           gen_dequant_scale(0.01f)};
    const Dtype t = gen_t();
    RC_ASSERT(differs(deq::dequant_fp8(w, t), dequant_fp8_fast(w, t, gen_threads())) == "");
  });
}

TEST_CASE("fast dequantization: int8 is the reference bit for bit (§7.2)", "[prop][numerics][CQ-INT8-SHAPES][CQ-INT8-CONVROT-GROUPSIZE]") {
  prop("tensor-wise and row-wise scales, with and without ConvRot", 200, [] {
    const std::uint64_t c = one_of<std::uint64_t>(0, 0, 4, 16, 64, 256, 2, 8);
    const std::uint64_t rows = pick(0, 5);
    const std::uint64_t cols = c >= 4 && pick(0, 8) != 0 ? c * pick(1, 3) : pick(0, 40);
    std::vector<std::uint8_t> bytes = gen_bytes(rows * cols);
    std::vector<std::int8_t> q(bytes.begin(), bytes.end());
    maybe_break(q);
    std::vector<float> scale(coin() ? 1 : rows);
    for (float& s : scale) s = gen_dequant_scale(0.01f);
    maybe_break(scale);
    const deq::Int8Weight w{Mat<std::int8_t>(rows, cols, q), scale, c};
    const Dtype t = gen_t();
    RC_ASSERT(differs(deq::dequant_int8(w, t), dequant_int8_fast(w, t, gen_threads())) == "");
  });
}

TEST_CASE("fast dequantization: convrot_w4a4 is the reference bit for bit (§6.1)", "[prop][numerics][CQ-W4A4-SHAPES][CQ-W4A4-GROUPSIZE]") {
  prop("signed codes, low nibble first, C = 4, 16, 64, 256 and invalid", 200, [] {
    const std::uint64_t c = one_of<std::uint64_t>(4, 16, 64, 256, 2, 8);
    const std::uint64_t rows = pick(0, 5);
    const std::uint64_t half = pick(0, 8) != 0 ? c / 2 * pick(1, 3) : pick(0, 40);
    std::vector<std::uint8_t> packed = gen_bytes(rows * half);
    maybe_break(packed);
    std::vector<float> scale(rows);
    for (float& s : scale) s = gen_dequant_scale(0.01f);
    maybe_break(scale);
    const deq::W4a4Weight w{Mat<std::uint8_t>(rows, half, packed), scale, c};
    const Dtype t = gen_t();
    RC_ASSERT(differs(deq::dequant_convrot_w4a4(w, t), dequant_convrot_w4a4_fast(w, t, gen_threads())) == "");
  });
}

TEST_CASE("fast dequantization: nvfp4 is the reference bit for bit (§9.1)", "[prop][numerics][CQ-NVFP4-SHAPES][CQ-NVFP4-LAYOUT]") {
  prop("E2M1 codes high nibble first, swizzled E4M3 block scales, sliced", 150, [] {
    const std::uint64_t n16 = pick(1, 6), k16 = 16 * pick(1, 5) + (pick(0, 10) == 0 ? 2 : 0);
    std::vector<std::uint8_t> packed = gen_bytes(n16 * k16 / 2);
    maybe_break(packed);
    const std::uint64_t sr = round_up(n16, 128) + (pick(0, 12) == 0 ? 128 : 0), sc = round_up(k16 / 16, 4);
    deq::Nvfp4Weight w{Mat<std::uint8_t>(n16, k16 / 2, packed), Mat<std::uint8_t>(sr, sc, gen_bytes(sr * sc)),
                       gen_dequant_scale(0.01f), pick<std::uint64_t>(0, n16 + 1), 0};
    w.cols = pick<std::uint64_t>(0, k16 + 2);
    const Dtype t = gen_t();
    RC_ASSERT(differs(deq::dequant_nvfp4(w, t), dequant_nvfp4_fast(w, t, gen_threads())) == "");
  });
}

TEST_CASE("fast dequantization: mxfp8 is the reference bit for bit (§10.1)", "[prop][numerics][CQ-MXFP8-LAYOUT]") {
  prop("E4M3 codes times swizzled E8M0 scales, both E8M0 readings", 150, [] {
    const std::uint64_t n32 = pick(1, 6), k32 = 32 * pick(1, 4) + (pick(0, 10) == 0 ? 8 : 0);
    std::vector<std::uint8_t> codes = gen_bytes(n32 * k32);
    maybe_break(codes);
    const std::uint64_t sr = round_up(n32, 128), sc = round_up(k32 / 32, 4) + (pick(0, 12) == 0 ? 4 : 0);
    deq::Mxfp8Weight w{Mat<std::uint8_t>(n32, k32, codes), Mat<std::uint8_t>(sr, sc, gen_bytes(sr * sc)),
                       pick<std::uint64_t>(0, n32 + 1), pick<std::uint64_t>(0, k32 + 1),
                       one_of(num::E8M0::Kitchen, num::E8M0::Ocp)};
    const Dtype t = gen_t();
    RC_ASSERT(differs(deq::dequant_mxfp8(w, t), dequant_mxfp8_fast(w, t, gen_threads())) == "");
  });
}

TEST_CASE("fast dequantization: awq_w4a16 is the reference bit for bit (§11)", "[prop][numerics][CQ-AWQ-SHAPES]") {
  prop("unsigned codes, [K/G, N] scales and zeros in S, any G dividing K", 200, [] {
    const std::uint64_t g = one_of<std::uint64_t>(64, 16, 4, 2, 1, 3, 8, 0);
    const std::uint64_t n = pick(0, 5);
    const std::uint64_t k = (g == 0 ? 2 : std::lcm(g, std::uint64_t{2})) * pick(1, 4) +
                            (pick(0, 12) == 0 ? 2 : 0);
    const Dtype s_dtype = one_of(Dtype::F16, Dtype::F16, Dtype::BF16, Dtype::F32, Dtype::I8);
    const bool nan_heavy = pick(0, 4) == 0;  // NaN zeros with NaN or infinite scales: the probed groups
    const auto values = [&](std::uint64_t count, bool zeros) {
      std::vector<float> v(count);
      for (float& x : v) {
        x = nan_heavy && coin() ? (zeros ? NAN : one_of(NAN, -NAN, INFINITY, -INFINITY))
                                                     : gen_dequant_scale(0.01f);
        if (deq::is_compute_dtype(s_dtype) && pick(0, 30) != 0) x = deq::round_t(s_dtype, x);
      }
      return v;
    };
    const std::uint64_t groups = g == 0 ? 1 : k / g;
    const deq::AwqWeight w{Mat<std::uint8_t>(n, k / 2, gen_bytes(n * (k / 2))), Mat<float>(groups, n, values(groups * n, false)),
                           Mat<float>(groups, n, values(groups * n, true)), g, s_dtype};
    RC_ASSERT(differs(deq::dequant_awq_w4a16(w), dequant_awq_w4a16_fast(w, gen_threads())) == "");
  });
}
