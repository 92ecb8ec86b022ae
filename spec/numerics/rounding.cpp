#include "spec/numerics/rounding.hpp"

#include <bit>
#include <cmath>
#include <limits>

#include "spec/number_formats.hpp"

namespace safespec::deq {

namespace {

// Precision p (significand bits with the implicit one), smallest normal
// exponent and largest exponent of T.
struct Format {
  int p, emin, emax;
};
Format format_of(Dtype t) {
  if (t == Dtype::BF16) return {8, -126, 127};
  if (t == Dtype::F16) return {11, -14, 15};
  return {24, -126, 127};
}

using Limbs = std::array<std::uint64_t, 6>;

// x += v * 2^(64 i) (or -=), carrying (borrowing) only as far as needed;
// the top limb wraps, which is two's complement arithmetic mod 2^384.
void add_at(Limbs& x, std::size_t i, std::uint64_t v) {
  for (; i < x.size() && v != 0; ++i) {
    x[i] += v;
    v = x[i] < v ? 1 : 0;
  }
}
void sub_at(Limbs& x, std::size_t i, std::uint64_t v) {
  for (; i < x.size() && v != 0; ++i) {
    const std::uint64_t old = x[i];
    x[i] -= v;
    v = old < v ? 1 : 0;
  }
}

// x += m * 2^shift (m < 2^24, shift < 384 - 64), or x -= it.
void add_shifted(Limbs& x, std::uint64_t m, unsigned shift, bool negate) {
  const std::size_t li = shift / 64;
  const unsigned bit = shift % 64;
  const std::uint64_t low = m << bit, high = bit != 0 ? m >> (64 - bit) : 0;
  if (negate) {
    sub_at(x, li, low);
    sub_at(x, li + 1, high);
  } else {
    add_at(x, li, low);
    add_at(x, li + 1, high);
  }
}

// Bits past the top read as 0: a value far below T's smallest step rounds to 0.
bool bit_of(const Limbs& x, int i) {
  if (i < 0 || i >= static_cast<int>(x.size() * 64)) return false;
  return (x[static_cast<std::size_t>(i) / 64] >> (i % 64)) & 1;
}

}  // namespace

bool is_compute_dtype(Dtype t) { return t == Dtype::F32 || t == Dtype::BF16 || t == Dtype::F16; }

float round_t(Dtype t, float v) {
  if (t == Dtype::BF16) return num::bf16_to_f32(num::f32_to_bf16(v));
  if (t == Dtype::F16) return num::f16_to_f32(num::f32_to_f16(v));
  return v;
}

bool is_t_value(Dtype t, float v) { return std::isnan(v) || round_t(t, v) == v; }

float tiny_t(Dtype t) { return std::ldexp(1.0f, format_of(t).emin); }

void ExactSum::add(float v, bool negate) {
  if (std::isnan(v)) {
    nan_ = true;
    return;
  }
  if (std::isinf(v)) {
    ((v > 0) != negate ? pos_inf_ : neg_inf_) = true;
    return;
  }
  if (v == 0.0f) return;
  // |v| = m * 2^-149 * 2^shift from the binary32 fields: a subnormal is
  // mantissa * 2^-149, a normal (1 + mantissa/2^23) * 2^(e-127) =
  // (2^23 + mantissa) * 2^-149 * 2^(e-1).
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(v);
  const std::uint32_t e = (bits >> 23) & 0xFF, mantissa = bits & 0x7FFFFF;
  const std::uint64_t m = e == 0 ? mantissa : (mantissa | 0x800000u);
  const unsigned shift = e == 0 ? 0 : e - 1;
  add_shifted(limb_, m, shift, (v < 0) != negate);
}

float ExactSum::round(Dtype t, int scale_exp) const {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (nan_ || (pos_inf_ && neg_inf_)) return std::numeric_limits<float>::quiet_NaN();
  if (pos_inf_) return kInf;
  if (neg_inf_) return -kInf;
  Limbs mag = limb_;
  const bool negative = (mag.back() >> 63) != 0;
  if (negative) {
    bool carry = true;
    for (auto& w : mag) {
      w = ~w;
      if (carry) carry = (++w == 0);
    }
  }
  int top = kLimbs * 64 - 1;
  while (top >= 0 && !bit_of(mag, top)) --top;
  if (top < 0) return 0.0f;
  // value = mag * 2^u; round to a multiple of 2^q, q the quantum of T at the
  // value's binade (or of T's subnormal range).
  const Format f = format_of(t);
  const int u = scale_exp - 149;
  const int exponent = top + u;
  const int q = (exponent < f.emin ? f.emin : exponent) - (f.p - 1);
  const int s = q - u;  // bits of mag below the kept ones
  double r = 0;
  if (s <= 0) {
    std::uint64_t kept = 0;  // top < p here, so mag fits in one limb
    for (int i = top; i >= 0; --i) kept = (kept << 1) | (bit_of(mag, i) ? 1u : 0u);
    r = std::ldexp(static_cast<double>(kept), u);
  } else {
    std::uint64_t kept = 0;
    for (int i = top; i >= s; --i) kept = (kept << 1) | (bit_of(mag, i) ? 1u : 0u);
    const bool half = bit_of(mag, s - 1);
    bool sticky = false;
    for (int i = s - 2; i >= 0 && !sticky; --i) sticky = bit_of(mag, i);
    if (half && (sticky || (kept & 1))) ++kept;
    r = std::ldexp(static_cast<double>(kept), q);
  }
  const double max_finite = std::ldexp(2.0 - std::ldexp(1.0, 1 - f.p), f.emax);
  const float out = r > max_finite ? kInf : static_cast<float>(r);
  return negative ? -out : out;
}

}  // namespace safespec::deq
