// The exact sum of binary64 terms, rounded once to a FloatType.
//
// safespec models every T-typed matrix product of the eager backend as the
// correctly rounded sum T(Σ exact) (quant-numerics.md §3.3, §5.13 U1 option
// (a)); a binary32 BLAS accumulates in an order of its choosing and may differ
// from this by one ulp of T. Every term used here (a T value times ±2^-k, or
// the product of two binary32 values) is exact in binary64, so summing those
// binary64 values exactly and rounding once is that model, independent of any
// summation order. A fixed-point integer wide enough for the whole binary64
// range holds the sum; speed is not a goal.
#pragma once

#include <cstdint>
#include <vector>

#include "spec/numerics/float_type.hpp"

namespace safespec::numerics {

class ExactSum {
 public:
  ExactSum();
  void add(double term);
  // a · b for binary32 a, b: exact in binary64 (48 significant bits).
  void add_product(float a, float b) { add(static_cast<double>(a) * static_cast<double>(b)); }
  // T(Σ terms): one round-to-nearest-even, overflow to ±inf. Special values
  // follow IEEE addition: a NaN term, or +inf and -inf together, give NaN; an
  // infinity otherwise wins. An exact zero is +0 unless every term was -0
  // (what a sequential IEEE sum of the same terms gives). Intermediate
  // overflow of a binary32 accumulator is not modelled (U1).
  // With scale_exp: T(2^scale_exp · Σ terms), scaled exactly before the one
  // rounding.
  float rounded(FloatType t, int scale_exp = 0) const;

 private:
  // value = Σ digit[i] · 2^(16 i + kLowExponent); digits carry lazily.
  static constexpr int kLowExponent = -1152;  // below 2^-1074 / 2^52 (frexp significand of a subnormal)
  std::vector<std::int64_t> digits_;
  bool nan_ = false, pos_inf_ = false, neg_inf_ = false;
  bool any_term_ = false, all_negative_zero_ = true;
};

}  // namespace safespec::numerics
