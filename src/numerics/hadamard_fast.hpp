// ConvRot's rotation (quant-numerics.md §3) at the speed of butterflies, with
// the values of the references that define it, bit for bit:
// - rotate_eager (spec/numerics/hadamard.hpp, eager.2): T(x · H_C), each
//   output the exact sum rounded once;
// - deq::hadamard_blocks (spec/numerics/hadamard_blocks.hpp, §6.1, §7.2):
//   the same map for the dequantized weights of int8 and W4A4;
// - rotate_ideal (§5.10): the binary64 sum in the reference's own order.
//
// Why they are equal: every output is 2^-k · Σ_i ±x_i (§3.1). When a bound
// on the inputs' bits proves that every partial sum of the ±x_i is exact in
// binary64, the radix-4 butterflies (H4's rows, §3.1) compute that sum
// exactly, and so does any order of the reference: the same value, which
// the 2^-k scale keeps exact and one round_double_to takes to T. A block
// outside the bound (a NaN or an infinity, or too wide a span of bits) goes
// through the reference itself. Signed zeros follow each reference's rule.
#pragma once

#include <bit>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "spec/dtype.hpp"
#include "spec/numerics/float_type.hpp"

namespace safespec::numerics {

// The bit span of a set of binary64 values: every one is an integer multiple
// of 2^lsb below 2^(msb + 1) in magnitude. A sum of `count` of them (and every
// partial sum, in any order, with any signs) is then a multiple of 2^lsb below
// 2^(msb + 1 + ceil(log2 count)), exactly representable when that span is at
// most 53 bits: binary64 addition is then exact.
struct BitSpan {
  int msb = INT_MIN, lsb = INT_MAX;
  bool special = false;  // a NaN or an infinity: left to the reference's IEEE rules

  void add(double v) {
    if (!std::isfinite(v)) {
      special = true;
      return;
    }
    if (v == 0.0) return;
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(v);
    const int field = static_cast<int>(bits >> 52 & 0x7FF);
    std::uint64_t mant = bits & ((std::uint64_t{1} << 52) - 1);
    int e = -1074;
    if (field != 0) {
      mant |= std::uint64_t{1} << 52;
      e = field - 1075;
    }
    lsb = std::min(lsb, e + std::countr_zero(mant));
    msb = std::max(msb, e + 63 - std::countl_zero(mant));
  }
  // Whether a sum of `count` such values is exact in binary64.
  bool exact_sum(std::size_t count) const {
    if (special) return false;
    if (msb == INT_MIN) return true;  // all zeros
    const int log2_count = static_cast<int>(std::bit_width(count > 1 ? count - 1 : 0));
    return msb + 1 + log2_count - lsb <= 53;
  }
};

// Buffers for one thread's blocks, reused from block to block.
struct FhtScratch {
  std::vector<double> a, b;
  std::vector<std::int32_t> ia, ib;
};

// eager.2 on one block of T values: out[j] = T(Σ_i x_i · H_C[i][j]), as
// rotate_eager(x, t) (an exact zero is -0 only when every term is -0).
void rotate_eager_block(std::span<const float> x, FloatType t, FhtScratch& s, float* out);

// §3.2 on one block of binary32 values, as one row block of
// deq::hadamard_blocks: out[j] = T(2^-k · Σ_i ±x_i), an exact zero +0.
void hadamard_block(std::span<const float> x, Dtype t, FhtScratch& s, float* out);

// §5.10 on one block of binary64 values, as rotate_ideal: out[j · stride] =
// Σ_i x_i · H_C[i][j] summed from i = 0 in binary64, starting from +0.
void rotate_ideal_block(std::span<const double> x, FhtScratch& s, double* out, std::size_t stride = 1);
// rotate_ideal for x_i = q_i · s with int8 q_i and a finite binary32 s
// (W4A8's Wq · s_channel without a correction): every partial sum of the
// reference is s · 2^-k times an integer of magnitude at most 128 · C <=
// 2^23 (C <= K <= 132104, so C <= 4^8), at most 47 significant bits, hence
// exact, and output j is ideal_scaled(S_j, s) with S_j = Σ_i q_i ·
// sign(H_C[i][j]), the integers hadamard_int_block sums (exact in int32).
void hadamard_int_block(std::span<const std::int8_t> q, FhtScratch& s, std::int32_t* out);
// S · s · 2^-k, one exact product (s · 2^-k is exact); + 0.0 turns the
// reference's exact zero into +0 whatever the signs (s may be -0) and
// changes nothing else. `s_2k` is ldexp(s, -k) in binary64.
inline double ideal_scaled(std::int32_t sum, double s_2k) { return static_cast<double>(sum) * s_2k + 0.0; }

}  // namespace safespec::numerics
