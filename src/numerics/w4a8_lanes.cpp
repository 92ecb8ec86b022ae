#include "src/numerics/w4a8_lanes.hpp"

#include <algorithm>
#include <cmath>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SAFESPEC_LANES_X86 1
#else
#define SAFESPEC_LANES_X86 0
#endif

namespace safespec::numerics::lanes {

namespace {

// rne_int of a binary32 value in [-128, 127]: (q + 1.5·2^23) - 1.5·2^23.
// Binary32 spacing there is 1, so the addition rounds to the nearest
// integer, ties to even, as nearbyintf in the default rounding mode; the
// subtraction is exact.
constexpr float kMagic = 12582912.0f;

template <bool Flush, FloatType T>
void quantize_scalar(std::span<const float> r, float d, std::span<std::int8_t> xq) {
  const float df = ftz<Flush>(d);
  for (std::size_t i = 0; i < r.size(); ++i) {
    const float q = round_x<T>(ftz<Flush>(ftz<Flush>(round_x<T>(r[i])) / df));
    if (std::isnan(q)) {
      xq[i] = -128;
      continue;
    }
    const float c = std::clamp(q, -128.0f, 127.0f);
    xq[i] = static_cast<std::int8_t>((c + kMagic) - kMagic);
  }
}

#if SAFESPEC_LANES_X86
// ftz on eight lanes: where the exponent field is zero, the lane's sign bit alone.
template <bool Flush>
[[gnu::always_inline]] inline __attribute__((target("avx2"))) __m256 ftz8(__m256 v) {
  if constexpr (!Flush) return v;
  const __m256i exponent = _mm256_and_si256(_mm256_castps_si256(v), _mm256_set1_epi32(0x7F800000));
  const __m256 zero_exp = _mm256_castsi256_ps(_mm256_cmpeq_epi32(exponent, _mm256_setzero_si256()));
  return _mm256_blendv_ps(v, _mm256_and_ps(v, _mm256_set1_ps(-0.0f)), zero_exp);
}

// round_x on eight lanes, right for every lane that is not a NaN (the
// caller tracks NaN lanes itself: this formula can turn a NaN into ±inf).
template <FloatType T>
[[gnu::always_inline]] inline __attribute__((target("avx2"))) __m256 round8(__m256 v) {
  if constexpr (T == FloatType::F32) {
    return v;
  } else {
    const __m256i u = _mm256_castps_si256(v);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    const __m256i sum = _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7FFF)), lsb);
    return _mm256_castsi256_ps(_mm256_and_si256(sum, _mm256_set1_epi32(static_cast<int>(0xFFFF0000u))));
  }
}

// Eight quantized values as int32 lanes. A lane is NaN at the end exactly
// when r was NaN (then e is NaN) or the division gave NaN (round_x keeps a
// non-NaN value non-NaN), and those lanes become -128; every other lane is
// the scalar steps' value, clamped by max/min (q is not NaN there, so
// max(q, lo) is `q < lo ? lo : q`) and rounded by the same two additions.
template <bool Flush, FloatType T>
[[gnu::always_inline]] inline __attribute__((target("avx2"))) __m256i quantize8(const float* r, __m256 df) {
  const __m256 rv = _mm256_loadu_ps(r);
  const __m256 t = ftz8<Flush>(_mm256_div_ps(ftz8<Flush>(round8<T>(rv)), df));
  const __m256 nan = _mm256_or_ps(_mm256_cmp_ps(rv, rv, _CMP_UNORD_Q), _mm256_cmp_ps(t, t, _CMP_UNORD_Q));
  const __m256 q = round8<T>(t);
  const __m256 c = _mm256_min_ps(_mm256_max_ps(q, _mm256_set1_ps(-128.0f)), _mm256_set1_ps(127.0f));
  const __m256 magic = _mm256_set1_ps(kMagic);
  const __m256i v = _mm256_cvttps_epi32(_mm256_sub_ps(_mm256_add_ps(c, magic), magic));
  return _mm256_blendv_epi8(v, _mm256_set1_epi32(-128), _mm256_castps_si256(nan));
}

template <bool Flush, FloatType T>
__attribute__((target("avx2"))) void quantize_avx2(std::span<const float> r, float d, std::span<std::int8_t> xq) {
  const __m256 df = _mm256_set1_ps(ftz<Flush>(d));
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);  // undoes the packs' lane interleave
  std::size_t i = 0;
  for (; i + 32 <= r.size(); i += 32) {
    const __m256i v0 = quantize8<Flush, T>(r.data() + i, df), v1 = quantize8<Flush, T>(r.data() + i + 8, df);
    const __m256i v2 = quantize8<Flush, T>(r.data() + i + 16, df), v3 = quantize8<Flush, T>(r.data() + i + 24, df);
    const __m256i packed = _mm256_packs_epi16(_mm256_packs_epi32(v0, v1), _mm256_packs_epi32(v2, v3));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(xq.data() + i), _mm256_permutevar8x32_epi32(packed, order));
  }
  quantize_scalar<Flush, T>(r.subspan(i), d, xq.subspan(i));
}

__attribute__((target("avx2"))) std::size_t representable_bf16_avx2(const float* x, std::size_t n, bool& ok) {
  const __m256i low = _mm256_set1_epi32(0xFFFF), abs_mask = _mm256_set1_epi32(0x7FFFFFFF);
  const __m256i inf = _mm256_set1_epi32(0x7F800000), zero = _mm256_setzero_si256();
  __m256i all = _mm256_set1_epi32(-1);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i u = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
    const __m256i exact = _mm256_cmpeq_epi32(_mm256_and_si256(u, low), zero);  // a BF16 value's binary32 bits
    const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, abs_mask), inf);
    all = _mm256_and_si256(all, _mm256_or_si256(exact, nan));
  }
  ok = _mm256_movemask_epi8(all) == -1;
  return i;
}

__attribute__((target("avx2"))) float amax_lanes(const float* r, std::size_t n, std::size_t& done) {
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  __m256 m = _mm256_setzero_ps();
  std::size_t i = 0;
  // vmaxps a, m is `a > m ? a : m` lane by lane (m for a NaN a): the scalar step.
  for (; i + 8 <= n; i += 8) m = _mm256_max_ps(_mm256_and_ps(_mm256_loadu_ps(r + i), abs_mask), m);
  done = i;
  float lane[8];
  _mm256_storeu_ps(lane, m);
  // The lanes hold maxima of disjoint parts, none NaN, none -0: their
  // maximum is the whole's, in any order.
  float out = 0.0f;
  for (float v : lane) out = v > out ? v : out;
  return out;
}

__attribute__((target("avx2"))) void decode_avx2(const std::int8_t* table, const std::uint8_t* bytes, std::size_t count,
                                                 std::int8_t* out, std::size_t& done) {
  const __m128i tab = _mm_loadu_si128(reinterpret_cast<const __m128i*>(table));
  const __m256i tab2 = _mm256_broadcastsi128_si256(tab), nib2 = _mm256_set1_epi8(0x0F);
  const __m128i nib = _mm_set1_epi8(0x0F);
  std::size_t j = 0;
  for (; j + 32 <= count; j += 32) {
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes + j));
    const __m256i lo = _mm256_shuffle_epi8(tab2, _mm256_and_si256(b, nib2));
    const __m256i hi = _mm256_shuffle_epi8(tab2, _mm256_and_si256(_mm256_srli_epi16(b, 4), nib2));
    // Per 128-bit lane: unpacklo interleaves its bytes 0-7, unpackhi its bytes 8-15.
    const __m256i a = _mm256_unpacklo_epi8(lo, hi), c = _mm256_unpackhi_epi8(lo, hi);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * j), _mm256_permute2x128_si256(a, c, 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * j + 32), _mm256_permute2x128_si256(a, c, 0x31));
  }
  for (; j + 8 <= count; j += 8) {
    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes + j));
    const __m128i lo = _mm_shuffle_epi8(tab, _mm_and_si128(b, nib));
    const __m128i hi = _mm_shuffle_epi8(tab, _mm_and_si128(_mm_srli_epi16(b, 4), nib));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * j), _mm_unpacklo_epi8(lo, hi));
  }
  done = j;
}
#endif

}  // namespace

bool use_avx2(GemmKernel kernel) { return kernel != GemmKernel::Scalar && avx2_available(); }

bool all_representable_scalar(FloatType t, std::span<const float> x) {
  return std::all_of(x.begin(), x.end(), [t](float v) { return representable(t, v); });
}

bool all_representable_avx2(FloatType t, std::span<const float> x) {
#if SAFESPEC_LANES_X86
  if (t == FloatType::BF16) {  // representable: NaN, or a round trip through BF16 that keeps every bit
    bool ok = false;
    const std::size_t done = representable_bf16_avx2(x.data(), x.size(), ok);
    return ok && all_representable_scalar(t, x.subspan(done));
  }
#endif
  return all_representable_scalar(t, x);
}

void decode_group_scalar(const std::int8_t* table, const std::uint8_t* bytes, std::size_t count, std::int8_t* out) {
  for (std::size_t j = 0; j < count; ++j) {
    out[2 * j] = table[bytes[j] & 0xF];
    out[2 * j + 1] = table[bytes[j] >> 4];
  }
}

void decode_group_avx2(const std::int8_t* table, const std::uint8_t* bytes, std::size_t count, std::int8_t* out) {
  std::size_t done = 0;
#if SAFESPEC_LANES_X86
  decode_avx2(table, bytes, count, out, done);
#endif
  decode_group_scalar(table, bytes + done, count - done, out + 2 * done);
}

float amax_scalar(std::span<const float> r) {
  float m = 0.0f;
  for (float v : r) {
    const float a = std::fabs(v);
    m = a > m ? a : m;
  }
  return m;
}

float amax_avx2(std::span<const float> r) {
#if SAFESPEC_LANES_X86
  std::size_t done = 0;
  const float lanes = amax_lanes(r.data(), r.size(), done);
  const float tail = amax_scalar(r.subspan(done));
  return tail > lanes ? tail : lanes;
#else
  return amax_scalar(r);
#endif
}

void quantize_cuda_scalar(std::span<const float> r, float d, FloatType t, bool flush, std::span<std::int8_t> xq) {
  switch (t) {
    case FloatType::F32: return flush ? quantize_scalar<true, FloatType::F32>(r, d, xq) : quantize_scalar<false, FloatType::F32>(r, d, xq);
    case FloatType::BF16: return flush ? quantize_scalar<true, FloatType::BF16>(r, d, xq) : quantize_scalar<false, FloatType::BF16>(r, d, xq);
    case FloatType::F16: return flush ? quantize_scalar<true, FloatType::F16>(r, d, xq) : quantize_scalar<false, FloatType::F16>(r, d, xq);
  }
}

bool quantize_cuda_avx2(std::span<const float> r, float d, FloatType t, bool flush, std::span<std::int8_t> xq) {
#if SAFESPEC_LANES_X86
  switch (t) {
    case FloatType::F32:
      flush ? quantize_avx2<true, FloatType::F32>(r, d, xq) : quantize_avx2<false, FloatType::F32>(r, d, xq);
      return true;
    case FloatType::BF16:
      flush ? quantize_avx2<true, FloatType::BF16>(r, d, xq) : quantize_avx2<false, FloatType::BF16>(r, d, xq);
      return true;
    case FloatType::F16: break;
  }
#else
  (void)r, (void)d, (void)t, (void)flush, (void)xq;
#endif
  return false;
}

}  // namespace safespec::numerics::lanes
