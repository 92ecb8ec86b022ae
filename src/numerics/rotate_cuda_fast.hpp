// cuda.3 (quant-numerics.md §5.3) in place, at the speed of vector lanes:
// rotate_cuda's radix-4 stages (strides 1, 4, 16, ...), each output
// f32(0.5 · S_d) of four binary32 operations in h4_row's order, with
// CudaF32's flushes when `flush` (--ftz modelled). Packed IEEE operations give
// each lane the scalar operation's bits (MXCSR's FTZ and DAZ stay off; the
// flush is an explicit select), so every variant below is the portable one,
// bit for bit, NaN payloads aside (any NaN for a NaN: a payload follows
// operand order, which a compiler may swap in a commutative add, §1.1):
// props/prop_w4a8_lanes_test.cpp runs each against it.
#pragma once

#include <cstddef>
#include <span>

namespace safespec::numerics {

enum class RotateLanes : unsigned char {
  Portable,  // one element at a time: the definition
  Sse,       // 4 lanes (SSE2, part of x86-64) for C >= 16
  Avx512,    // 16 lanes for C >= 64 (AVX-512F), Sse below that
};

// The widest variant this build and CPU run, up to `widest`.
RotateLanes resolve_rotate_lanes(RotateLanes widest);

// block.size() = C, a power of 4; scratch holds at least C floats. `lanes`
// must come from resolve_rotate_lanes (Avx512 is run as asked).
void rotate_cuda_block(std::span<float> block, std::span<float> scratch, bool flush, RotateLanes lanes);

}  // namespace safespec::numerics
