// `safespec compare EXPECTED ACTUAL [--ulps N]`: tensor by tensor, how far an
// implementation's output is from the reference's, in units in the last
// place of the tensor's own dtype.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "spec/dtype.hpp"
#include "src/linear_command.hpp"

namespace safespec {

// The distance of two elements of one dtype. Floats: the count of
// representable values between them (sign-magnitude order, so +0 and -0 are
// 0 apart); two NaNs are 0 apart, a NaN and a number infinitely far (nullopt).
// Integers: |a - b|. Dtypes without a value order here (F4, F6_*, F8_E8M0,
// the FNUZ formats, C64): 0 when the bits are equal, otherwise nullopt.
struct ElementDistance {
  std::optional<std::uint64_t> ulps;
  double abs_err = 0;  // |a - b| as binary64 (0 for NaN pairs and equal infinities)
  double rel_err = 0;  // abs_err / |expected|; infinite when expected is 0 and they differ
};

struct TensorComparison {
  std::string name;
  Dtype dtype = Dtype::F32;
  std::vector<std::uint64_t> shape;
  std::uint64_t count = 0;
  std::uint64_t bit_exact = 0;
  std::optional<std::uint64_t> max_ulps = 0;  // nullopt: infinite
  double max_abs = 0, max_rel = 0;
  std::string mismatch;  // set when the two tensors cannot be compared element by element
  bool within = true;
};

struct Comparison {
  std::vector<TensorComparison> tensors;  // by name
  bool within = true;
};

// One element of `dtype` each, as stored (little-endian bytes).
ElementDistance element_distance(Dtype dtype, std::span<const std::uint8_t> expected, std::span<const std::uint8_t> actual);

// The value of one element as binary64, for the float dtypes with an order
// (F64, F32, F16, BF16, F8_E4M3, F8_E5M2) and the integers; nullopt for the
// others. Little-endian bytes, as stored.
std::optional<double> element_value(Dtype dtype, std::span<const std::uint8_t> bytes);

TensorComparison compare_tensor(std::string name, Dtype dtype, std::vector<std::uint64_t> shape,
                                std::span<const std::uint8_t> expected, std::span<const std::uint8_t> actual,
                                std::uint64_t tolerance_ulps);

// One line per tensor, then a summary line:
//   y: BF16 [2, 8]: 16/16 bit-exact, max 0 ulps, max abs err 0, max rel err 0: ok
//   compare: 1 tensor, all within 0 ulps
std::string render_comparison(const Comparison& c, std::uint64_t tolerance_ulps);

// 0 within the tolerance, 1 beyond it (or tensors missing, of another dtype
// or shape), 2 when a file cannot be read.
CommandOutcome run_compare(const std::string& expected, const std::string& actual, std::uint64_t tolerance_ulps);

}  // namespace safespec
