// quant-numerics.md §1-§2: every code of every small format against an
// independent formula, and every rounding against a brute-force nearest
// search over the target format's values (computed in double, where all of
// them and all midpoints are exact).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "props/catch.hpp"
#include "spec/number_formats.hpp"

using namespace safespec::num;

namespace {

// The textbook minifloat formula in double, independent of the decoders.
double formula(bool negative, unsigned e, unsigned m, int mbits, int bias) {
  const double frac = static_cast<double>(m) / std::pow(2.0, mbits);
  const double v = e == 0 ? frac * std::pow(2.0, 1 - bias) : (1.0 + frac) * std::pow(2.0, static_cast<int>(e) - bias);
  return negative ? -v : v;
}

bool same(float a, double b) {
  if (std::isnan(b)) return std::isnan(a);
  return static_cast<double>(a) == b && std::signbit(a) == std::signbit(b);
}

// A target format's non-negative finite values with their codes, ascending.
struct Grid {
  std::vector<double> value;
  std::vector<std::uint32_t> code;
};

Grid grid_of(unsigned codes, double (*decode)(std::uint32_t), std::uint32_t sign_bit) {
  Grid g;
  for (std::uint32_t c = 0; c < codes; ++c) {
    if (c & sign_bit) continue;
    const double v = decode(c);
    if (std::isfinite(v)) {
      g.value.push_back(v);
      g.code.push_back(c);
    }
  }
  std::vector<std::size_t> order(g.value.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return g.value[a] < g.value[b]; });
  Grid sorted;
  for (auto i : order) {
    sorted.value.push_back(g.value[i]);
    sorted.code.push_back(g.code[i]);
  }
  return sorted;
}

// Nearest value of the grid to |x|, ties to the even code; nullopt-like
// UINT32_MAX when |x| lies beyond the largest value by at least half a step
// (the caller decides: infinity or saturation).
std::uint32_t nearest(const Grid& g, double a, double overflow_at) {
  if (a >= overflow_at) return UINT32_MAX;
  const auto hi = std::lower_bound(g.value.begin(), g.value.end(), a);
  if (hi == g.value.end()) return g.code.back();
  const std::size_t j = static_cast<std::size_t>(hi - g.value.begin());
  if (*hi == a || j == 0) return g.code[j];
  const double dl = a - g.value[j - 1], dh = g.value[j] - a;
  if (dl < dh) return g.code[j - 1];
  if (dh < dl) return g.code[j];
  return (g.code[j - 1] & 1) == 0 ? g.code[j - 1] : g.code[j];
}

double f16_formula(std::uint32_t c) {
  const unsigned e = (c >> 10) & 31, m = c & 1023;
  if (e == 31) return m ? NAN : (c & 0x8000 ? -INFINITY : INFINITY);
  return formula(c & 0x8000, e, m, 10, 15);
}
double bf16_formula(std::uint32_t c) {
  const unsigned e = (c >> 7) & 255, m = c & 127;
  if (e == 255) return m ? NAN : (c & 0x8000 ? -INFINITY : INFINITY);
  return formula(c & 0x8000, e, m, 7, 127);
}
double e4m3_formula(std::uint32_t c) {
  const unsigned e = (c >> 3) & 15, m = c & 7;
  if (e == 15 && m == 7) return NAN;
  return formula(c & 0x80, e, m, 3, 7);
}

// Binary32 inputs: a stride through all bit patterns plus the given values
// and their float neighbours.
std::vector<float> probes(const std::vector<double>& around) {
  std::vector<float> out;
  for (std::uint64_t u = 0; u <= 0xFFFFFFFFu; u += 7919) out.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(u)));
  for (double d : around) {
    const float f = static_cast<float>(d);
    for (float x : {f, std::nextafter(f, 0.0f), std::nextafter(f, INFINITY), -f}) out.push_back(x);
  }
  return out;
}

// Midpoints between consecutive grid values: where ties are decided.
std::vector<double> midpoints(const Grid& g) {
  std::vector<double> out;
  for (std::size_t i = 0; i + 1 < g.value.size(); ++i) out.push_back((g.value[i] + g.value[i + 1]) / 2);
  out.push_back(g.value.back());
  return out;
}

}  // namespace

TEST_CASE("numerics §2.1: all 256 E4M3FN codes decode as the formula, NaN only at 0x7F and 0xFF") {
  for (unsigned c = 0; c < 256; ++c) {
    INFO("code " << c);
    CHECK(same(decode_e4m3fn(static_cast<std::uint8_t>(c)), e4m3_formula(c)));
  }
  CHECK(decode_e4m3fn(0x7E) == 448.0f);
  CHECK(decode_e4m3fn(0x08) == std::ldexp(1.0f, -6));
  CHECK(decode_e4m3fn(0x01) == std::ldexp(1.0f, -9));
  CHECK(decode_e4m3fn(0x38) == 1.0f);
  CHECK((decode_e4m3fn(0x80) == 0.0f && std::signbit(decode_e4m3fn(0x80))));
}

TEST_CASE("numerics §2.2: all 256 E5M2 codes decode as the formula and as the upper byte of a binary16") {
  for (unsigned c = 0; c < 256; ++c) {
    INFO("code " << c);
    const unsigned e = (c >> 2) & 31, m = c & 3;
    const double expect = e == 31 ? (m ? NAN : (c & 0x80 ? -INFINITY : INFINITY)) : formula(c & 0x80, e, m, 2, 15);
    CHECK(same(decode_e5m2(static_cast<std::uint8_t>(c)), expect));
    CHECK(same(decode_e5m2(static_cast<std::uint8_t>(c)), f16_to_f32(static_cast<std::uint16_t>(c << 8))));
  }
  CHECK(decode_e5m2(0x7B) == 57344.0f);
  CHECK(decode_e5m2(0x01) == std::ldexp(1.0f, -16));
}

TEST_CASE("numerics §2.3: E8M0 under both semantics, kitchen decodes 0 as 0.0 and 255 as +inf") {
  for (unsigned c = 1; c < 255; ++c) {
    INFO("code " << c);
    const double expect = std::pow(2.0, static_cast<int>(c) - 127);
    CHECK(same(decode_e8m0(static_cast<std::uint8_t>(c), E8M0::Ocp), expect));
    CHECK(same(decode_e8m0(static_cast<std::uint8_t>(c), E8M0::Kitchen), expect));
  }
  CHECK(decode_e8m0(0, E8M0::Ocp) == std::ldexp(1.0f, -127));
  CHECK(decode_e8m0(0, E8M0::Kitchen) == 0.0f);
  CHECK(std::isnan(decode_e8m0(255, E8M0::Ocp)));
  CHECK(decode_e8m0(255, E8M0::Kitchen) == INFINITY);
}

TEST_CASE("numerics §2.4: the 16 E2M1 codes, encoding clamps to 6 and breaks ties to the even code") {
  const float table[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (std::uint8_t c = 0; c < 16; ++c) {
    INFO("code " << int(c));
    const float v = c < 8 ? table[c] : -table[c - 8];
    CHECK(decode_e2m1(c) == v);
    CHECK(std::signbit(decode_e2m1(c)) == (c >= 8));
    CHECK(f32_to_e2m1(decode_e2m1(c)) == c);
  }
  const std::pair<float, float> ties[] = {{0.25f, 0.0f}, {0.75f, 1.0f}, {1.25f, 1.0f}, {1.75f, 2.0f},
                                          {2.5f, 2.0f},  {3.5f, 4.0f},  {5.0f, 4.0f},  {100.0f, 6.0f}};
  for (auto [x, y] : ties) {
    INFO("x = " << x);
    CHECK(decode_e2m1(f32_to_e2m1(x)) == y);
    CHECK(decode_e2m1(f32_to_e2m1(-x)) == -y);
  }
  const Grid g = grid_of(16, [](std::uint32_t c) { return static_cast<double>(decode_e2m1(static_cast<std::uint8_t>(c))); }, 8);
  for (float x = 0.0f; x <= 7.0f; x += 0.03125f) {
    INFO("x = " << x);
    CHECK(f32_to_e2m1(x) == nearest(g, std::min(x, 6.0f), INFINITY));
  }
}

// Every 16-bit pattern decodes as the formula and encodes back to itself
// (a NaN to some NaN).
static void check_all_16bit(const char* format, float (*decode)(std::uint16_t), std::uint16_t (*encode)(float),
                            double (*formula_of)(std::uint32_t)) {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const float f = decode(static_cast<std::uint16_t>(h));
    if (!same(f, formula_of(h))) FAIL(format << " " << h << " decodes to " << f);
    if (std::isnan(f)) {
      if (!std::isnan(decode(encode(f)))) FAIL("NaN " << h << " does not stay NaN");
    } else if (encode(f) != h) {
      FAIL(format << " " << h << " round-trips to " << encode(f));
    }
  }
}

TEST_CASE("numerics §1.2: every binary16 pattern decodes as the formula and round-trips") {
  check_all_16bit("binary16", f16_to_f32, f32_to_f16, f16_formula);
}

TEST_CASE("numerics §1.1: every bfloat16 pattern decodes as the formula and round-trips") {
  check_all_16bit("bfloat16", bf16_to_f32, f32_to_bf16, bf16_formula);
}

TEST_CASE("numerics §1.2: binary32 to binary16 is round-to-nearest-even, >= 65520 is infinity") {
  const Grid g = grid_of(65536, f16_formula, 0x8000);
  for (float x : probes(midpoints(g))) {
    if (std::isnan(x)) continue;
    const std::uint32_t n = nearest(g, std::fabs(static_cast<double>(x)), 65520.0);
    const std::uint16_t expect = static_cast<std::uint16_t>((std::signbit(x) ? 0x8000 : 0) | (n == UINT32_MAX ? 0x7C00 : n));
    if (f32_to_f16(x) != expect) FAIL("x = " << x << ": got " << f32_to_f16(x) << ", expected " << expect);
  }
  CHECK(f32_to_f16(65519.996f) == 0x7BFF);
  CHECK(f32_to_f16(65520.0f) == 0x7C00);
  CHECK(f32_to_f16(std::ldexp(1.0f, -25)) == 0x0000);                        // tie to even (0)
  CHECK(f32_to_f16(std::ldexp(3.0f, -25)) == 0x0002);                        // tie to even (2^-23)
  CHECK(std::isnan(f16_to_f32(f32_to_f16(NAN))));
}

TEST_CASE("numerics §1.1: binary32 to bfloat16 is round-to-nearest-even as (u + 0x7FFF + lsb) >> 16") {
  const Grid g = grid_of(65536, bf16_formula, 0x8000);
  // The largest finite bf16 plus half its step: at and above it, infinity.
  const double overflow = bf16_formula(0x7F7F) + std::pow(2.0, 127 - 8);
  for (float x : probes(midpoints(g))) {
    if (std::isnan(x)) continue;
    const std::uint32_t n = nearest(g, std::fabs(static_cast<double>(x)), overflow);
    const std::uint16_t expect = static_cast<std::uint16_t>((std::signbit(x) ? 0x8000 : 0) | (n == UINT32_MAX ? 0x7F80 : n));
    if (f32_to_bf16(x) != expect) FAIL("x = " << x << ": got " << f32_to_bf16(x) << ", expected " << expect);
  }
  CHECK(std::isnan(bf16_to_f32(f32_to_bf16(NAN))));
}

TEST_CASE("numerics §2.1: binary32 to E4M3FN rounds to nearest even and saturates at 448") {
  const Grid g = grid_of(256, e4m3_formula, 0x80);
  for (float x : probes(midpoints(g))) {
    if (std::isnan(x)) continue;
    const double a = std::min(std::fabs(static_cast<double>(x)), 448.0);
    const std::uint8_t expect = static_cast<std::uint8_t>((std::signbit(x) ? 0x80 : 0) | nearest(g, a, INFINITY));
    if (f32_to_e4m3fn(x) != expect) FAIL("x = " << x << ": got " << int(f32_to_e4m3fn(x)) << ", expected " << int(expect));
  }
  CHECK(f32_to_e4m3fn(1e30f) == 0x7E);
  CHECK(f32_to_e4m3fn(-INFINITY) == 0xFE);
  CHECK(f32_to_e4m3fn(NAN) == 0x7F);
  for (unsigned c = 0; c < 256; ++c)
    if (c != 0x7F && c != 0xFF) CHECK(f32_to_e4m3fn(decode_e4m3fn(static_cast<std::uint8_t>(c))) == c);
}

TEST_CASE("numerics §2.5: nibble order and convrot_w4a4's signed codes") {
  CHECK(low_nibble(0xA7) == 0x7);
  CHECK(high_nibble(0xA7) == 0xA);
  for (int c = 0; c < 16; ++c) CHECK(signed_int4(static_cast<std::uint8_t>(c)) == (c >= 8 ? c - 16 : c));
}

// The number-format checklist: each 8-bit format's 256 codes and E2M1's 16 against
// the textbook formula in one loop each, and every saturation edge pinned.

TEST_CASE("numerics §2.3: all 256 E8M0 codes against 2^(e-127), both semantics") {
  for (unsigned c = 0; c < 256; ++c) {
    INFO("code " << c);
    const auto b = static_cast<std::uint8_t>(c);
    const double ocp = c == 255 ? NAN : std::pow(2.0, static_cast<int>(c) - 127);
    const double kitchen = c == 255 ? INFINITY : c == 0 ? 0.0 : std::pow(2.0, static_cast<int>(c) - 127);
    CHECK(same(decode_e8m0(b, E8M0::Ocp), ocp));
    CHECK(same(decode_e8m0(b, E8M0::Kitchen), kitchen));
  }
}

TEST_CASE("numerics §2.4: all 16 E2M1 codes against the minifloat formula (bias 1, one mantissa bit)") {
  for (unsigned c = 0; c < 16; ++c) {
    INFO("code " << c);
    CHECK(same(decode_e2m1(static_cast<std::uint8_t>(c)), formula(c & 8, (c >> 1) & 3, c & 1, 1, 1)));
    CHECK(decode_e2m1(static_cast<std::uint8_t>(c | 0xF0)) == decode_e2m1(static_cast<std::uint8_t>(c)));  // high bits ignored
  }
}

TEST_CASE("numerics §1.1 §1.2 §2.1: the saturation edge of every encoder") {
  // bf16: 0x7F7F is the largest finite; 0x7F7F8000 is it plus half an ulp (a
  // tie, odd mantissa, so up: infinity); one binary32 ulp below stays finite.
  CHECK(f32_to_bf16(std::bit_cast<float>(0x7F7F7FFFu)) == 0x7F7F);
  CHECK(f32_to_bf16(std::bit_cast<float>(0x7F7F8000u)) == 0x7F80);
  CHECK(f32_to_bf16(-std::bit_cast<float>(0x7F7F8000u)) == 0xFF80);
  CHECK(f32_to_bf16(INFINITY) == 0x7F80);
  CHECK(f32_to_f16(-65520.0f) == 0xFC00);
  CHECK(f32_to_f16(std::numeric_limits<float>::max()) == 0x7C00);
  CHECK(f32_to_f16(-INFINITY) == 0xFC00);
  // E4M3FN saturates: 464 = 448 + half its step (32) is the first value a
  // rounding cast without saturation would carry past 448.
  CHECK(f32_to_e4m3fn(463.99997f) == 0x7E);
  CHECK(f32_to_e4m3fn(464.0f) == 0x7E);
  CHECK(f32_to_e4m3fn(-1e38f) == 0xFE);
  CHECK(f32_to_e4m3fn(INFINITY) == 0x7E);
  CHECK(f32_to_e4m3fn(-std::numeric_limits<float>::quiet_NaN()) == 0xFF);
  // E2M1 clamps to 6; infinity included.
  CHECK(f32_to_e2m1(INFINITY) == 0x7);
  CHECK(f32_to_e2m1(-INFINITY) == 0xF);
  CHECK(f32_to_e2m1(NAN) == 0x0);
  // NaN keeps its sign through bf16 and f16.
  CHECK(f32_to_bf16(-std::numeric_limits<float>::quiet_NaN()) >> 15 == 1);
  CHECK(f32_to_f16(-std::numeric_limits<float>::quiet_NaN()) == 0xFE00);
}

TEST_CASE("numerics §1.5: every E4M3FN and E5M2 value is exact in bf16 and f16, every E2M1 value too") {
  for (unsigned c = 0; c < 256; ++c) {
    INFO("code " << c);
    for (float v : {decode_e4m3fn(static_cast<std::uint8_t>(c)), decode_e5m2(static_cast<std::uint8_t>(c))}) {
      if (std::isnan(v)) continue;
      CHECK(bf16_to_f32(f32_to_bf16(v)) == v);
      CHECK(f16_to_f32(f32_to_f16(v)) == v);
    }
  }
  for (unsigned c = 0; c < 16; ++c) CHECK(bf16_to_f32(f32_to_bf16(decode_e2m1(static_cast<std::uint8_t>(c)))) == decode_e2m1(static_cast<std::uint8_t>(c)));
}
