// ConvRot's regular Hadamard rotation (quant-numerics.md §3) and the two ways
// the comfy-kitchen backends compute it on activations (§3.3).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "spec/numerics/float_type.hpp"

namespace safespec::numerics {

// log4(C) when C = 4^k with k >= 1 (§3.1: a power of 4, at least 4).
std::optional<int> log4_exact(std::size_t c);

// §3.1 closed form: H_C[i][j] = 2^-k · (-1)^#{t : i_t + j_t == 3} over the
// base-4 digits of i and j. Exact in every format (§1.5). C must be 4^k.
double hadamard_entry(std::size_t c, std::size_t i, std::size_t j);

// Binary32 arithmetic as the CUDA kernels are built (--use_fast_math, §5.3):
// each operation is IEEE RNE, and with `flush_subnormals` (--ftz=true, U12
// option (a)) subnormal operands and results become zero of the same sign.
struct CudaF32 {
  bool flush_subnormals = true;
  float flush(float v) const;
  float add(float a, float b) const;
  float sub(float a, float b) const;
  float mul(float a, float b) const;
  float div(float a, float b) const;  // IEEE division (U11 option (a))
  float fma(float a, float b, float c) const;
};

// cuda.3: one C-block of binary32 values through the kernel's radix-4
// butterflies (§3.3), stages with strides 1, 4, 16, ... in that order, each
// output f32(0.5 × S_d) with S_d evaluated left to right. The kernel has only
// C = 256 (four stages); smaller powers of 4 run the same stages, fewer of
// them (used by the hand-sized tests). block.size() must be 4^k.
std::vector<float> rotate_cuda(std::span<const float> block, const CudaF32& f32);

// eager.2: xr = T_x(x_block · H_C), one T_x-typed matrix product, modelled
// as the correctly rounded exact sum per output (U1 option (a); see
// exact_sum.hpp). A BLAS summing in binary32 in another order may differ by
// one ulp of T_x here (±1 in xq later). block.size() must be 4^k.
std::vector<float> rotate_eager(std::span<const float> block, FloatType t);

// The rotation block · H_C summed in binary64 (not exact, but far below any
// T rounding), for the
// ideal reference (§5.10) and tests.
std::vector<double> rotate_ideal(std::span<const double> block);

}  // namespace safespec::numerics
