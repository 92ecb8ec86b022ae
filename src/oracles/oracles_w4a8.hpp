// The fast W4A8 path's postcondition (quant-numerics.md §5): what
// linear_fuzzer and prop_w4a8_fast_test check.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "src/numerics/w4a8_fast.hpp"

namespace safespec {

// w4a8_linear_fast and the reference w4a8_linear on one call agree: both
// fail with the same Error, or both succeed with the same out dtype, the same
// y bit for bit and, when a trace is recorded, the same trace bit for bit;
// a NaN matches any NaN (sign and payload are not specified, §1.1).
std::optional<std::string> w4a8_fast_differs(const numerics::W4a8Layer& layer, const numerics::Activations& x,
                                             const numerics::W4a8Options& options,
                                             const numerics::W4a8FastConfig& config = {});

// The linear fuzzer's oracle: a small W4A8 layer, input, options and fast
// configuration built from `bytes` (any bit patterns in scales, codebook,
// correction, bias and x; M, N, G, C, K and the dtypes chosen by the first
// bytes), checked with the overload above.
std::optional<std::string> w4a8_fast_differs(std::span<const std::uint8_t> bytes);

}  // namespace safespec
