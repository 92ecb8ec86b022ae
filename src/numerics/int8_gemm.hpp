// The O(M·N·K) core of the fast W4A8 path: C = A · Bᵀ over int8, accumulated
// exactly in int32. Integer addition is associative, so every blocking, lane
// split and thread split gives the same C as the reference's sequential
// `accumulate` (quant-numerics.md cuda.7 / eager.7), provided no partial sum
// overflows int32 (the precondition below).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

namespace safespec::numerics {

enum class GemmKernel : unsigned char {
  Auto,        // the best this CPU has (checked at run time): Avx512Vnni, Avx2, Scalar
  Scalar,      // portable C++
  Avx2,        // x86-64 AVX2 (vpmaddwd on int16); Scalar where unavailable
  Avx512Vnni,  // x86-64 AVX-512 VNNI (vpdpbusd on int8); Avx2 or Scalar where unavailable
};

struct GemmConfig {
  unsigned threads = 0;  // 0: std::thread::hardware_concurrency()
  GemmKernel kernel = GemmKernel::Auto;
};

// Whether this build and this CPU can run the AVX2 / AVX-512 VNNI kernel.
bool avx2_available();
bool avx512_vnni_available();
// Whether this build and this CPU can run AVX-512F lanes (the cuda.3
// rotation's and the cuda epilogue's).
bool avx512f_available();
const char* kernel_name(GemmKernel kernel);
// The kernel `requested` resolves to on this machine.
GemmKernel resolve_kernel(GemmKernel requested);
// The thread count `requested` (0 = auto) resolves to, at least 1.
unsigned resolve_threads(unsigned requested);

// c[i, j] = Σ_k a[i, k] · b[j, k] for a [m, k], b [n, k], c [m, n], all
// row-major. Precondition: Σ_k |a[i, k]| · |b[j, k]| <= INT32_MAX for every
// (i, j) (W4A8: |Wq| <= 127 and K <= kW4a8MaxK guarantee it), so no order of
// summation can overflow. Spans shorter than the shapes make it do nothing.
void gemm_s8s8s32(std::span<const std::int8_t> a, std::span<const std::int8_t> b, std::span<std::int32_t> c,
                  std::size_t m, std::size_t n, std::size_t k, const GemmConfig& config = {});

// Runs body(begin, end) on contiguous chunks of [0, count) (chunk starts are
// multiples of `align`), on up to `threads` std::threads; the calling thread
// takes one chunk itself.
void parallel_ranges(std::size_t count, unsigned threads, std::size_t align,
                     const std::function<void(std::size_t, std::size_t)>& body);

}  // namespace safespec::numerics
