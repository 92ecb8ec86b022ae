// ConvRot's regular Hadamard rotation (quant-numerics.md §3; layout L4),
// written from the closed form of §3.1 for reading, not speed.
#pragma once

#include <cstdint>

#include "spec/dtype.hpp"
#include "spec/numerics/matrix.hpp"
#include "spec/result.hpp"

namespace safespec::deq {

// §3.1: C = 4^k with k >= 1 (comfy-kitchen raises "Regular Hadamard size must
// be a power of 4, got {size}" otherwise).
bool is_power_of_4(std::uint64_t c);
// k = log4(C) for a power of 4.
int log4_of(std::uint64_t c);
// H_C[i][j] = sign * 2^-k with sign = (-1)^#{t : i_t + j_t == 3} over the
// base-4 digits of i and j (§3.1 closed form). Returns the sign, +1 or -1.
int hadamard_sign(std::uint64_t c, std::uint64_t i, std::uint64_t j);

// §3.2 per contiguous block of C columns: out[r, b*C + j] = sum_i
// in[r, b*C + i] * H_C[i][j]. H_C is symmetric and H_C * H_C = I, so this one
// map both rotates activations and un-rotates stored weights. Each output is
// the exact sum rounded once to T (the eager model of a T-typed matmul, §3.3,
// ⚠ U1: a BLAS may differ by one ulp of T). Errors: C not a power of 4,
// columns not divisible by C, T not F32/BF16/F16, a bad shape. `rule` is the
// caller's rule id for the error (the format whose invariant it is).
Result<Mat<float>> hadamard_blocks(const Mat<float>& in, std::uint64_t c, Dtype t, RuleId rule);

}  // namespace safespec::deq
