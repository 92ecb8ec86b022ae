// The W4A8 fast path's element-wise steps, each twice: a portable loop (the
// definition, the reference's step written out) and an AVX2 loop that must
// give the same bits for every input (props/prop_w4a8_lanes_test.cpp runs
// both on every bit pattern class: NaN, infinities, subnormals, zeros, and
// lengths that leave a tail). The fast linear picks the AVX2 loops at run
// time where the CPU has AVX2 and W4a8FastConfig::kernel is not Scalar;
// a CPU with AVX-512 runs them too. The cuda.3 rotation and the cuda
// epilogue have AVX-512 variants (rotate_cuda_fast.hpp, epilogue_lanes.hpp):
// on an AVX-512 VNNI Xeon these two were a third of the call, while
// validation and decode here were 12% of it (docs/performance-2026-12-early.md,
// "The W4A8 linear").
//
// Why element-wise IEEE operations in vector lanes are the scalar ones:
// packed add, mul and div round each lane as the scalar instruction does
// (MXCSR stays at its default: RNE, no FTZ, no DAZ), -ffp-contract=off keeps
// the scalar side from fusing, and every select below is written to pick
// what the scalar ternary picks, NaN operands included.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

#include "spec/numerics/float_type.hpp"
#include "src/numerics/int8_gemm.hpp"

namespace safespec::numerics::lanes {

// CudaF32's flush (--ftz modelled): a zero exponent field becomes the zero of its sign.
template <bool Flush>
inline float ftz(float v) {
  if constexpr (!Flush) return v;
  const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  return (u & 0x7F800000u) == 0 ? std::bit_cast<float>(u & 0x80000000u) : v;
}

// The same flush in vector lanes, in place, for a GCC/Clang vector type F
// of binary32 lanes (__m128, __m512) and I, int32 lanes of the same width:
// the sign bit kept where the exponent field is zero. In place, so no vector
// crosses a call boundary (the psabi rule): a caller compiled for the width
// inlines it.
using Int32x4 = std::int32_t __attribute__((vector_size(16)));   // I for __m128
using Int32x16 = std::int32_t __attribute__((vector_size(64)));  // I for __m512
template <bool Flush, class I, class F>
[[gnu::always_inline]] inline void ftz_lanes(F& v) {
  if constexpr (Flush) {
    const I bits = (I)v;  // a vector cast reinterprets the bits (std::bit_cast would return a vector by value)
    const I zero_exp = (bits & 0x7F800000) == 0;  // all ones where flushed
    v = (F)(bits & (~zero_exp | INT32_MIN));
  }
}

// round_to(T, v), bit for bit: the identity for F32; for BF16 the RNE formula
// of §1.1 that num::f32_to_bf16 uses (a NaN goes to round_to itself); F16
// calls round_to.
template <FloatType T>
inline float round_x(float v) {
  if constexpr (T == FloatType::F32) {
    return v;
  } else if constexpr (T == FloatType::BF16) {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return round_to(T, v);  // NaN: the reference's quiet NaN bits
    return std::bit_cast<float>((u + 0x7FFFu + (u >> 16 & 1u)) & 0xFFFF0000u);
  } else {
    return round_to(T, v);
  }
}

// Whether this CPU runs the AVX2 loops for `kernel` (not Scalar, AVX2 present).
bool use_avx2(GemmKernel kernel);

// validate's element loop (§5.1): whether representable(t, v) for every v.
bool all_representable_scalar(FloatType t, std::span<const float> x);
bool all_representable_avx2(FloatType t, std::span<const float> x);

// W4A8.1 for one group: out[2j] = table[bytes[j] & 0xF], out[2j + 1] =
// table[bytes[j] >> 4] for j < count (unpack_codes' nibble order).
void decode_group_scalar(const std::int8_t* table, const std::uint8_t* bytes, std::size_t count, std::int8_t* out);
void decode_group_avx2(const std::int8_t* table, const std::uint8_t* bytes, std::size_t count, std::int8_t* out);

// cuda.4, amax_cuda: m = fmaxf(m, |r|) from m = +0 (a NaN |r| never taken).
float amax_scalar(std::span<const float> r);
float amax_avx2(std::span<const float> r);

// cuda.6 for one row, quantize_cuda inlined: e = T(r), q = T(ftz(ftz(e) /
// ftz(d))) (CudaF32::div), NaN -> -128, else nearbyint of q clamped to [-128, 127].
void quantize_cuda_scalar(std::span<const float> r, float d, FloatType t, bool flush, std::span<std::int8_t> xq);
// The same for T = F32 or BF16; false (nothing written) for F16.
bool quantize_cuda_avx2(std::span<const float> r, float d, FloatType t, bool flush, std::span<std::int8_t> xq);

}  // namespace safespec::numerics::lanes
