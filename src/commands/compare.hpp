// `safespec compare EXPECTED ACTUAL [--ulps N] [--atol A] [--rtol R]`: tensor
// by tensor, how far an implementation's output is from the reference's, in
// units in the last place of the tensor's own dtype and in absolute and
// relative error.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <span>
#include <string>
#include <vector>

#include "spec/dtype.hpp"
#include "src/commands/first_difference.hpp"
#include "src/commands/linear.hpp"

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

// Which elements pass: bit-exact ones; those within `ulps` units in the last
// place; and, when atol or rtol is set, finite pairs with
// |actual - expected| <= atol + rtol * |expected|, numpy.isclose's rule
// (asymmetric: the tolerance scales with the expected value). Infinities pass
// only by the ulp rule (equal, or `ulps` apart), as in numpy; a NaN only
// against a NaN.
struct Tolerance {
  std::uint64_t ulps = 0;
  double atol = 0, rtol = 0;
  bool passes(const ElementDistance& d, std::optional<double> expected, std::optional<double> actual) const;
};

// The ulp histogram's buckets: 0 (equal values: bit-exact, ±0, two NaNs), 1,
// 2-3, 4-15, 16+ (which holds infinite distances: a NaN against a number).
inline constexpr std::size_t kUlpBuckets = 5;
inline constexpr std::array<std::string_view, kUlpBuckets> kUlpBucketNames = {"0", "1", "2-3", "4-15", "16+"};
std::size_t ulp_bucket(std::optional<std::uint64_t> ulps);

struct TensorComparison {
  std::string name;
  Dtype dtype = Dtype::F32;
  std::vector<std::uint64_t> shape;
  std::uint64_t count = 0;
  std::uint64_t bit_exact = 0;
  std::optional<std::uint64_t> max_ulps = 0;  // nullopt: infinite
  double max_abs = 0, max_rel = 0;
  std::array<std::uint64_t, kUlpBuckets> histogram{};  // elements per ulp bucket
  std::uint64_t beyond = 0;                            // elements the tolerance does not pass
  std::optional<FirstDifference> first;                // the first element whose bytes differ
  std::optional<FirstDifference> worst;                // the first element the furthest apart in ulps
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
                                const Tolerance& tolerance);
// The same with a tolerance in ulps only.
TensorComparison compare_tensor(std::string name, Dtype dtype, std::vector<std::uint64_t> shape,
                                std::span<const std::uint8_t> expected, std::span<const std::uint8_t> actual,
                                std::uint64_t tolerance_ulps);

// "ulps 0: 14, 1: 1, 2-3: 1, 4-15: 0, 16+: 0"
std::string histogram_text(const TensorComparison& t);
// "[2, 3]": a shape as the comparison's lines print it (and the conformance
// runner's, which grade kernels' outputs the same way).
std::string shape_text(std::span<const std::uint64_t> shape);
// A double as those lines print it: 9 significant digits ("%.9g").
std::string number_text(double v);
// "0 ulps", or "0 ulps or 0.001 + 0.01 * |expected|" with atol or rtol.
std::string tolerance_text(const Tolerance& t);

// One line per tensor, and for a tensor with differing elements a second one
// with the histogram, how many elements are beyond the tolerance and the
// first difference; then a summary line:
//   y: BF16 [2, 8]: 14/16 bit-exact, max 2 ulps, max abs err 0.0078125, max rel err 0.0039: FAIL
//     ulps 0: 14, 1: 1, 2-3: 1, 4-15: 0, 16+: 0; 2/16 beyond the tolerance; first difference at [0, 3]: expected …, got …
//     worst difference (2 ulps) at [1, 5]: expected …, got …
//   compare: 1 tensor, 1 beyond 0 ulps
std::string render_comparison(const Comparison& c, const Tolerance& tolerance);
// The same facts as one JSON document (schema 1); infinite errors are null.
std::string render_comparison_json(const Comparison& c, const Tolerance& tolerance);

// 0 within the tolerance, 1 beyond it (or tensors missing, of another dtype
// or shape), 2 when a file cannot be read.
CommandOutcome run_compare(const std::string& expected, const std::string& actual, const Tolerance& tolerance,
                           bool json = false);

}  // namespace safespec
