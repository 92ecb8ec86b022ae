// Rounding to the activation/output dtypes T in {F32, BF16, F16}
// (quant-numerics.md §0.2, §1) and an exact sum for the T-typed matrix
// products of the eager backend (§3.3: safespec's model of a T-typed matmul is
// the correctly rounded T(sum exact), ⚠ U1).
#pragma once

#include <array>
#include <cstdint>

#include "spec/dtype.hpp"
#include "spec/numerics/exact_sum.hpp"

namespace safespec::deq {

// F32, BF16 or F16: the dtypes the references compute in.
bool is_compute_dtype(Dtype t);

// T(v): v rounded to nearest even in T (§1.1, §1.2; overflow gives +-inf),
// returned as binary32, which holds every T value exactly. F32 is the
// identity; any other dtype is treated as F32 (callers check is_compute_dtype).
float round_t(Dtype t, float v);
// v is a value of T (NaN counts as one).
bool is_t_value(Dtype t, float v);
// tiny(T): the smallest positive normal of T (§0.2).
float tiny_t(Dtype t);

// The exact value of sum(+-v_i) * 2^scale_exp for binary32 v_i, rounded once
// to T: numerics::ExactSum (the one exact-sum algorithm) seen with this
// module's Dtype. IEEE special cases: a NaN term, or +inf and -inf together,
// give NaN; otherwise an infinite term gives that infinity. An exact zero sum
// is +0 (zero terms are not summed).
class ExactSum {
 public:
  void add(float v, bool negate = false);
  float round(Dtype t, int scale_exp = 0) const;

 private:
  numerics::ExactSum sum_;
};

// The FloatType of a compute dtype (F32 for any other).
numerics::FloatType float_type(Dtype t);

}  // namespace safespec::deq
