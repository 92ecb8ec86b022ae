#include "spec/numerics/exact_sum.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace safespec::numerics {

namespace {

// 2^-1152 .. 2^1120: every finite binary64 and the sum of up to 2^64 of them.
constexpr std::size_t kDigits = 142;
constexpr std::int64_t kRadix = 1 << 16;

// Carry every digit into 0..2^16-1; returns the final carry (0 or -1 for a
// sum that fits, -1 meaning the value is negative in two's complement).
std::int64_t normalize(std::vector<std::int64_t>& d) {
  std::int64_t carry = 0;
  for (std::int64_t& digit : d) {
    const std::int64_t v = digit + carry;
    carry = v >> 16;  // arithmetic shift: floor division (C++20)
    digit = v - carry * kRadix;
  }
  return carry;
}

bool bit(const std::vector<std::int64_t>& d, std::size_t i) { return (d[i / 16] >> (i % 16)) & 1; }

}  // namespace

ExactSum::ExactSum() : digits_(kDigits, 0) {}

void ExactSum::add(double term) {
  any_term_ = true;
  if (std::isnan(term)) { nan_ = true; return; }
  if (std::isinf(term)) { (term > 0 ? pos_inf_ : neg_inf_) = true; return; }
  if (!(term == 0.0 && std::signbit(term))) all_negative_zero_ = false;
  if (term == 0.0) return;
  int e = 0;
  const double f = std::frexp(std::fabs(term), &e);  // |term| = f · 2^e, f in [0.5, 1)
  const auto m = static_cast<std::uint64_t>(std::ldexp(f, 53));  // exact 53-bit integer
  const auto pos = static_cast<std::size_t>(e - 53 - kLowExponent);
  const std::size_t q = pos / 16, r = pos % 16;
  const std::int64_t sign = term < 0 ? -1 : 1;
  for (std::size_t j = 0; j < 4; ++j) {
    const auto chunk = static_cast<std::int64_t>((m >> (16 * j)) & 0xFFFF);
    digits_[q + j] += sign * (chunk << r);  // < 2^32 per term: 2^31 terms fit a digit
  }
}

float ExactSum::rounded(FloatType t, int scale_exp) const {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (nan_ || (pos_inf_ && neg_inf_)) return std::numeric_limits<float>::quiet_NaN();
  if (pos_inf_) return kInf;
  if (neg_inf_) return -kInf;

  std::vector<std::int64_t> mag = digits_;
  const bool negative = normalize(mag) < 0;
  if (negative) {
    for (std::int64_t& digit : mag) digit = -digit;
    // -(value) = -(Σ d·2^16i) + 2^(16·kDigits); the last term drops out of range.
    (void)normalize(mag);
  }
  const auto top = std::find_if(mag.rbegin(), mag.rend(), [](std::int64_t v) { return v != 0; });
  if (top == mag.rend()) return any_term_ && all_negative_zero_ ? -0.0f : 0.0f;

  const std::size_t top_digit = static_cast<std::size_t>(mag.rend() - top) - 1;
  const std::size_t length = 16 * top_digit + static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(*top)));
  // Value = mag · 2^low with its leading bit at exponent E; keep
  // significand_bits(t) bits, or fewer in T's subnormal range.
  const int low = kLowExponent + scale_exp;
  const int e_top = static_cast<int>(length) - 1 + low;
  const int quantum = std::max(e_top, min_normal_exponent(t)) - (significand_bits(t) - 1);
  if (quantum <= low) {  // every bit is kept (a large scale_exp): no rounding, at most 24 bits
    std::uint64_t all = 0;
    for (std::size_t i = length; i-- > 0;) all = all * 2 + (bit(mag, i) ? 1 : 0);
    const double value = std::ldexp(static_cast<double>(all), low);
    const float out = value > static_cast<double>(max_finite(t)) ? kInf : static_cast<float>(value);
    return negative ? -out : out;
  }
  const auto shift = static_cast<std::size_t>(quantum - low);

  std::uint64_t kept = 0;
  for (std::size_t i = length; i-- > shift;) kept = kept * 2 + (bit(mag, i) ? 1 : 0);
  const bool half = shift <= length && bit(mag, shift - 1);
  // Sticky: any set bit below the half bit, whole digits first.
  const std::size_t below = std::min(shift - 1, length);
  bool sticky = false;
  for (std::size_t i = 0; i < below / 16 && !sticky; ++i) sticky = mag[i] != 0;
  for (std::size_t i = below / 16 * 16; i < below && !sticky; ++i) sticky = bit(mag, i);
  if (half && (sticky || (kept & 1))) ++kept;

  const double value = std::ldexp(static_cast<double>(kept), quantum);
  const float out = value > static_cast<double>(max_finite(t)) ? kInf : static_cast<float>(value);
  return negative ? -out : out;
}

}  // namespace safespec::numerics
