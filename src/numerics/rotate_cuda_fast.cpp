#include "src/numerics/rotate_cuda_fast.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "src/numerics/w4a8_lanes.hpp"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && defined(__SSE2__)
#define SAFESPEC_ROTATE_X86 1
#include <immintrin.h>
#else
#define SAFESPEC_ROTATE_X86 0
#endif

namespace safespec::numerics {

namespace {

// CudaF32's operations (spec/numerics/hadamard.cpp) inlined: with Flush
// (--ftz modelled) each operand and the result with a zero exponent field
// becomes the zero of its sign (fpclassify's FP_SUBNORMAL, and zeros stay
// themselves), then one IEEE binary32 operation.
using lanes::ftz;
using lanes::ftz_lanes;

template <bool Flush> float add(float a, float b) { return ftz<Flush>(ftz<Flush>(a) + ftz<Flush>(b)); }
template <bool Flush> float sub(float a, float b) { return ftz<Flush>(ftz<Flush>(a) - ftz<Flush>(b)); }
template <bool Flush> float half(float a) { return ftz<Flush>(0.5f * ftz<Flush>(a)); }  // mul(0.5f, a)

// One radix-4 stage with stride s (§3.3): for each base b (digit 0 at s),
// out[b + d·s] = f32(0.5 · S_d(in[b], in[b + s], in[b + 2s], in[b + 3s])),
// S_d left to right as rotate_cuda's h4_row. The shared a0 + a1 is the same
// IEEE operation on the same operands as h4_row's, hence the same value.
template <bool Flush>
void stage_portable(const float* in, float* out, std::size_t c, std::size_t s) {
  for (std::size_t base0 = 0; base0 < c; base0 += 4 * s)
    for (std::size_t r = 0; r < s; ++r) {
      const std::size_t b = base0 + r;
      const float a0 = in[b], a1 = in[b + s], a2 = in[b + 2 * s], a3 = in[b + 3 * s];
      const float p01 = add<Flush>(a0, a1), m01 = sub<Flush>(a0, a1), m10 = sub<Flush>(a1, a0);
      out[b] = half<Flush>(sub<Flush>(add<Flush>(p01, a2), a3));
      out[b + s] = half<Flush>(add<Flush>(sub<Flush>(p01, a2), a3));
      out[b + 2 * s] = half<Flush>(add<Flush>(add<Flush>(m01, a2), a3));
      out[b + 3 * s] = half<Flush>(add<Flush>(add<Flush>(m10, a2), a3));
    }
}

// The vector stages share one butterfly, on GCC/Clang vector types (__m128
// and __m512 are such types): + - * are the packed IEEE operations, whatever
// the width. Operands by reference and every helper inlined into a stage
// compiled for its width (the psabi rule). ftz is idempotent (a flushed
// value is ±0 or has a nonzero exponent field, and ftz returns it
// unchanged), so flushing each input once and each result once gives the
// bits of flushing every operand of every operation, at a third of the cost.
//
// o[d] = half(S_d(a0, a1, a2, a3)) lane by lane, as stage_portable.
template <bool Flush, class I, class F>
[[gnu::always_inline]] inline void butterfly(F (&a)[4], F (&o)[4]) {
  for (F& v : a) ftz_lanes<Flush, I>(v);
  F p01 = a[0] + a[1], m01 = a[0] - a[1], m10 = a[1] - a[0];
  ftz_lanes<Flush, I>(p01), ftz_lanes<Flush, I>(m01), ftz_lanes<Flush, I>(m10);
  F s[4] = {p01 + a[2], p01 - a[2], m01 + a[2], m10 + a[2]};
  for (F& v : s) ftz_lanes<Flush, I>(v);
  s[0] = s[0] - a[3], s[1] = s[1] + a[3], s[2] = s[2] + a[3], s[3] = s[3] + a[3];
  for (F& v : s) ftz_lanes<Flush, I>(v);
  for (int d = 0; d < 4; ++d) o[d] = 0.5f * s[d];  // mul(0.5f, ·)
  for (F& v : o) ftz_lanes<Flush, I>(v);
}

// A stage whose stride s is a multiple of the lane count: each digit's
// vector loads straight (memcpy: an unaligned load of F once inlined).
template <bool Flush, class I, class F>
[[gnu::always_inline]] inline void stage_strided(const float* in, float* out, std::size_t c, std::size_t s,
                                                 F (&v)[4], F (&o)[4]) {
  constexpr std::size_t width = sizeof(F) / sizeof(float);
  for (std::size_t base0 = 0; base0 < c; base0 += 4 * s)
    for (std::size_t r = 0; r < s; r += width) {
      for (std::size_t d = 0; d < 4; ++d) std::memcpy(&v[d], in + base0 + r + d * s, sizeof(F));
      butterfly<Flush, I>(v, o);
      for (std::size_t d = 0; d < 4; ++d) std::memcpy(out + base0 + r + d * s, &o[d], sizeof(F));
    }
}

#if SAFESPEC_ROTATE_X86
using I4 = lanes::Int32x4;
using I16 = lanes::Int32x16;

template <bool Flush>
void stage_sse(const float* in, float* out, std::size_t c, std::size_t s) {
  __m128 v[4], o[4];
  if (s == 1) {  // groups are 4 consecutive values: transpose 4 groups, butterfly, transpose back
    for (std::size_t b = 0; b < c; b += 16) {
      for (std::size_t q = 0; q < 4; ++q) v[q] = _mm_loadu_ps(in + b + 4 * q);
      _MM_TRANSPOSE4_PS(v[0], v[1], v[2], v[3]);
      butterfly<Flush, I4>(v, o);
      _MM_TRANSPOSE4_PS(o[0], o[1], o[2], o[3]);
      for (std::size_t q = 0; q < 4; ++q) _mm_storeu_ps(out + b + 4 * q, o[q]);
    }
    return;
  }
  stage_strided<Flush, I4>(in, out, c, s, v, o);
}

// The permutes use their zero-masking forms with a full mask: GCC 12 warns
// -Wuninitialized about the unmasked forms, which pass an undefined operand.
#define SAFESPEC_AVX512 __attribute__((target("avx512f"), always_inline)) inline

// Four 4 x 4 transposes at once, one per 128-bit lane: v[q] lane L's element
// d goes to v[d] lane L's element q.
SAFESPEC_AVX512 void transpose_in_lanes(__m512 (&v)[4]) {
  constexpr __mmask16 all32 = 0xFFFF;
  constexpr __mmask8 all64 = 0xFF;
  const __m512d t0 = _mm512_castps_pd(_mm512_maskz_unpacklo_ps(all32, v[0], v[1]));
  const __m512d t1 = _mm512_castps_pd(_mm512_maskz_unpacklo_ps(all32, v[2], v[3]));
  const __m512d t2 = _mm512_castps_pd(_mm512_maskz_unpackhi_ps(all32, v[0], v[1]));
  const __m512d t3 = _mm512_castps_pd(_mm512_maskz_unpackhi_ps(all32, v[2], v[3]));
  v[0] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(all64, t0, t1));
  v[1] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(all64, t0, t1));
  v[2] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(all64, t2, t3));
  v[3] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(all64, t2, t3));
}

// The 4 x 4 transpose of 128-bit lanes: v[q] lane d goes to v[d] lane q.
SAFESPEC_AVX512 void transpose_lanes(__m512 (&v)[4]) {
  constexpr __mmask16 all = 0xFFFF;
  const __m512 t0 = _mm512_maskz_shuffle_f32x4(all, v[0], v[1], 0x44);
  const __m512 t1 = _mm512_maskz_shuffle_f32x4(all, v[0], v[1], 0xEE);
  const __m512 t2 = _mm512_maskz_shuffle_f32x4(all, v[2], v[3], 0x44);
  const __m512 t3 = _mm512_maskz_shuffle_f32x4(all, v[2], v[3], 0xEE);
  v[0] = _mm512_maskz_shuffle_f32x4(all, t0, t2, 0x88);
  v[1] = _mm512_maskz_shuffle_f32x4(all, t0, t2, 0xDD);
  v[2] = _mm512_maskz_shuffle_f32x4(all, t1, t3, 0x88);
  v[3] = _mm512_maskz_shuffle_f32x4(all, t1, t3, 0xDD);
}
#undef SAFESPEC_AVX512

// 16 lanes; c is a multiple of 64. s = 1: 16 groups of 4 per step, each
// 128-bit lane transposed as stage_sse does. s = 4: 4 bases of 16 per step;
// lane d of a base's 16 values is its digit d, so a transpose of 128-bit
// lanes lines the digits up. s >= 16: digit vectors load straight.
template <bool Flush>
__attribute__((target("avx512f"))) void stage_avx512(const float* in, float* out, std::size_t c, std::size_t s) {
  __m512 v[4], o[4];
  if (s <= 4) {
    for (std::size_t b = 0; b < c; b += 64) {
      for (std::size_t q = 0; q < 4; ++q) v[q] = _mm512_loadu_ps(in + b + 16 * q);
      s == 1 ? transpose_in_lanes(v) : transpose_lanes(v);
      butterfly<Flush, I16>(v, o);
      s == 1 ? transpose_in_lanes(o) : transpose_lanes(o);
      for (std::size_t q = 0; q < 4; ++q) _mm512_storeu_ps(out + b + 16 * q, o[q]);
    }
    return;
  }
  stage_strided<Flush, I16>(in, out, c, s, v, o);
}
#endif

template <bool Flush>
void rotate(std::span<float> block, std::span<float> scratch, RotateLanes lanes) {
  const std::size_t c = block.size();
  float* in = block.data();
  float* out = scratch.data();
  for (std::size_t s = 1; s < c; s *= 4) {
#if SAFESPEC_ROTATE_X86
    if (lanes == RotateLanes::Avx512 && c % 64 == 0)
      stage_avx512<Flush>(in, out, c, s);
    else if (lanes != RotateLanes::Portable && c >= 16)
      stage_sse<Flush>(in, out, c, s);
    else
      stage_portable<Flush>(in, out, c, s);
#else
    (void)lanes;
    stage_portable<Flush>(in, out, c, s);
#endif
    std::swap(in, out);
  }
  if (in != block.data()) std::copy(in, in + c, block.data());
}

}  // namespace

RotateLanes resolve_rotate_lanes(RotateLanes widest) {
#if SAFESPEC_ROTATE_X86
  if (widest == RotateLanes::Avx512) return avx512f_available() ? RotateLanes::Avx512 : RotateLanes::Sse;
  return widest;
#else
  (void)widest;
  return RotateLanes::Portable;
#endif
}

void rotate_cuda_block(std::span<float> block, std::span<float> scratch, bool flush, RotateLanes lanes) {
  if (flush)
    rotate<true>(block, scratch, lanes);
  else
    rotate<false>(block, scratch, lanes);
}

}  // namespace safespec::numerics
