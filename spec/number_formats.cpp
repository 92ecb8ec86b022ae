#include "spec/number_formats.hpp"

#include <bit>
#include <cmath>
#include <limits>

namespace safespec::num {

namespace {

float from_bits(std::uint32_t u) { return std::bit_cast<float>(u); }
std::uint32_t to_bits(float f) { return std::bit_cast<std::uint32_t>(f); }

// sign * mantissa * 2^exponent, exact for the small integers used here.
float scaled(bool negative, std::uint32_t mantissa, int exponent) {
  const float v = std::ldexp(static_cast<float>(mantissa), exponent);
  return negative ? -v : v;
}

// A minifloat with `mbits` mantissa bits and exponent bias `bias`, finite
// codes only: the subnormal row (e = 0) has no implicit one.
float minifloat(bool negative, std::uint32_t e, std::uint32_t m, int mbits, int bias) {
  if (e == 0) return scaled(negative, m, 1 - bias - mbits);
  return scaled(negative, (1u << mbits) | m, static_cast<int>(e) - bias - mbits);
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Round a finite binary32 to the nearest multiple of 2^q (q the grid step of
// the target binade), ties to even, exactly: binary32 values are dyadic, so
// scaling by a power of two and rounding with nearbyint (the default
// round-to-nearest-even mode) is exact.
float round_to_grid(float v, int q) { return std::ldexp(std::nearbyint(std::ldexp(v, -q)), q); }

}  // namespace

float decode_e4m3fn(std::uint8_t code) {
  const bool s = code & 0x80;
  const std::uint32_t e = (code >> 3) & 0xF, m = code & 0x7;
  if (e == 15 && m == 7) return s ? -kNaN : kNaN;
  return minifloat(s, e, m, 3, 7);
}

// §2.2: an E5M2 byte is the upper byte of the binary16 with bits code << 8.
float decode_e5m2(std::uint8_t code) { return f16_to_f32(static_cast<std::uint16_t>(code << 8)); }

float decode_e8m0(std::uint8_t code, E8M0 semantics) {
  if (code == 255) return semantics == E8M0::Ocp ? kNaN : kInf;
  if (code == 0 && semantics == E8M0::Kitchen) return 0.0f;
  return std::ldexp(1.0f, static_cast<int>(code) - 127);
}

float decode_e2m1(std::uint8_t code) {
  const bool s = code & 0x8;
  const std::uint32_t e = (code >> 1) & 0x3, m = code & 0x1;
  return minifloat(s, e, m, 1, 1);
}

float f16_to_f32(std::uint16_t bits) {
  const bool s = bits & 0x8000;
  const std::uint32_t e = (bits >> 10) & 0x1F, m = bits & 0x3FF;
  if (e == 31) return m == 0 ? (s ? -kInf : kInf) : (s ? -kNaN : kNaN);
  return minifloat(s, e, m, 10, 15);
}

float bf16_to_f32(std::uint16_t bits) { return from_bits(static_cast<std::uint32_t>(bits) << 16); }

std::uint16_t f32_to_bf16(float value) {
  const std::uint32_t u = to_bits(value);
  if (std::isnan(value)) return static_cast<std::uint16_t>((u >> 16) | 0x0040);  // quiet, sign kept
  return static_cast<std::uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

std::uint16_t f32_to_f16(float value) {
  const std::uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value)) return sign | 0x7E00;
  const float a = std::fabs(value);
  if (a >= 65520.0f) return sign | 0x7C00;  // rounds past 65504
  // Grid step: 2^(exp - 10) in the normal range, 2^-24 below 2^-14.
  const int exp = a == 0.0f ? -15 : std::ilogb(a);
  const float r = round_to_grid(a, (exp < -14 ? -14 : exp) - 10);
  if (r == 0.0f) return sign;
  const int re = std::ilogb(r);  // rounding may carry into the next binade
  if (re < -14) return sign | static_cast<std::uint16_t>(std::ldexp(r, 24));  // subnormal
  const auto m = static_cast<std::uint16_t>(std::ldexp(r, 10 - re) - 1024.0f);
  return sign | static_cast<std::uint16_t>((re + 15) << 10) | m;
}

std::uint8_t f32_to_e4m3fn(float value) {
  const std::uint8_t sign = std::signbit(value) ? 0x80 : 0;
  if (std::isnan(value)) return sign | 0x7F;
  float a = std::fabs(value);
  if (a >= 448.0f) return sign | 0x7E;  // saturate
  const int exp = a == 0.0f ? -7 : std::ilogb(a);
  a = round_to_grid(a, (exp < -6 ? -6 : exp) - 3);
  if (a >= 448.0f) return sign | 0x7E;
  if (a == 0.0f) return sign;
  const int re = std::ilogb(a);
  if (re < -6) return sign | static_cast<std::uint8_t>(std::ldexp(a, 9));  // subnormal
  const auto m = static_cast<std::uint8_t>(std::ldexp(a, 3 - re) - 8.0f);
  return sign | static_cast<std::uint8_t>((re + 7) << 3) | m;
}

std::uint8_t f32_to_e2m1(float value) {
  if (std::isnan(value)) return 0;
  const std::uint8_t sign = std::signbit(value) ? 0x8 : 0;
  const float a = std::fmin(std::fabs(value), 6.0f);
  // Grid steps: 0.5 below 2, 1 in [2, 4), 2 in [4, 6].
  const int q = a < 2.0f ? -1 : a < 4.0f ? 0 : 1;
  const float r = round_to_grid(a, q);
  static constexpr float kGrid[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (std::uint8_t c = 0; c < 8; ++c)
    if (kGrid[c] == r) return sign | c;
  return sign | 7;  // unreachable: r is on the grid
}

}  // namespace safespec::num
