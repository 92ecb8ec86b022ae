#include "spec/numerics/rounding.hpp"

#include <cmath>

namespace safespec::deq {

numerics::FloatType float_type(Dtype t) {
  if (t == Dtype::BF16) return numerics::FloatType::BF16;
  if (t == Dtype::F16) return numerics::FloatType::F16;
  return numerics::FloatType::F32;
}

bool is_compute_dtype(Dtype t) { return t == Dtype::F32 || t == Dtype::BF16 || t == Dtype::F16; }

float round_t(Dtype t, float v) { return numerics::round_to(float_type(t), v); }

bool is_t_value(Dtype t, float v) { return std::isnan(v) || round_t(t, v) == v; }

float tiny_t(Dtype t) { return numerics::min_normal(float_type(t)); }

void ExactSum::add(float v, bool negate) {
  if (v == 0.0f) return;  // an exact zero sum is +0 here
  sum_.add(negate ? -static_cast<double>(v) : static_cast<double>(v));
}

float ExactSum::round(Dtype t, int scale_exp) const { return sum_.rounded(float_type(t), scale_exp); }

}  // namespace safespec::deq
