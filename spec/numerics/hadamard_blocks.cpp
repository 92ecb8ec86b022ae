#include "spec/numerics/hadamard_blocks.hpp"

#include <string>

#include "spec/numerics/hadamard.hpp"
#include "spec/numerics/rounding.hpp"

namespace safespec::deq {

// The closed form of §3.1 lives in spec/numerics/hadamard (the W4A8 rotation
// uses it too); these read it with this module's integer types.
bool is_power_of_4(std::uint64_t c) { return numerics::log4_exact(static_cast<std::size_t>(c)).has_value(); }

int log4_of(std::uint64_t c) { return numerics::log4_exact(static_cast<std::size_t>(c)).value_or(0); }

int hadamard_sign(std::uint64_t c, std::uint64_t i, std::uint64_t j) {
  return numerics::hadamard_entry(static_cast<std::size_t>(c), static_cast<std::size_t>(i),
                                  static_cast<std::size_t>(j)) < 0
             ? -1
             : 1;
}

Result<Mat<float>> hadamard_blocks(const Mat<float>& in, std::uint64_t c, Dtype t, RuleId rule) {
  if (!is_power_of_4(c))
    return Error{rule, Place::argument("convrot_groupsize"),
                 "expected a ConvRot group size that is a power of 4 and at least 4, found " + std::to_string(c)};
  if (!in.shape_ok()) return Error{rule, Place::argument("matrix"), "expected rows * cols values"};
  if (in.cols % c != 0)
    return Error{rule, Place::argument("convrot_groupsize"),
                 "expected K divisible by the ConvRot group size " + std::to_string(c) + ", found K = " + std::to_string(in.cols)};
  if (!is_compute_dtype(t)) return Error{rule, Place::argument("dtype"), "expected F32, BF16 or F16, found " + std::string(dtype_name(t))};
  const int k = log4_of(c);
  auto out = Mat<float>::zeros(in.rows, in.cols);
  for (std::uint64_t r = 0; r < in.rows; ++r)
    for (std::uint64_t b = 0; b < in.cols / c; ++b)
      for (std::uint64_t j = 0; j < c; ++j) {
        ExactSum sum;
        for (std::uint64_t i = 0; i < c; ++i) sum.add(in.at(r, b * c + i), hadamard_sign(c, i, j) < 0);
        out.at(r, b * c + j) = sum.round(t, -k);
      }
  return out;
}

}  // namespace safespec::deq
