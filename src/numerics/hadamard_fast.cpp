#include "src/numerics/hadamard_fast.hpp"

#include <algorithm>

#include "spec/numerics/hadamard.hpp"
#include "spec/numerics/hadamard_blocks.hpp"
#include "spec/numerics/rounding.hpp"
#include "src/numerics/w4a8_fast.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#define SAFESPEC_FHT64_SSE 1
#else
#define SAFESPEC_FHT64_SSE 0
#endif

namespace safespec::numerics {

namespace {

int ceil_log2(std::size_t c) { return static_cast<int>(std::bit_width(c > 1 ? c - 1 : 0)); }

enum class Block { Zero, Exact, Other };

// Whether every partial sum of ±x_i is exact in binary64 (Exact), every x_i
// is ±0 (Zero), or neither is proven (Other); x is also copied to s.a as
// binary64 for the butterflies. First a bound that costs two reductions:
// binary32 significands have 24 bits, so with the largest and the smallest
// nonzero magnitude in binades e_hi and e_lo (biased exponent fields,
// subnormals counted as 1), msb <= e_hi - 127 and lsb >= e_lo - 150. Where
// that bound is too loose, the exact BitSpan.
Block float_block(std::span<const float> x, FhtScratch& s) {
  // Magnitudes as bits: integers ordered as the values, below 2^31 (so SSE2's
  // signed comparisons order them); a NaN is above every finite value.
  constexpr std::int32_t kNone = 0x7FFFFFFF;  // "no nonzero value" (or a NaN, which hi catches)
  std::int32_t hi = 0, lo = kNone;
  s.a.resize(x.size());
  std::size_t i = 0;
#if SAFESPEC_FHT64_SSE
  __m128i vhi = _mm_setzero_si128(), vlo = _mm_set1_epi32(kNone);
  for (; i + 4 <= x.size(); i += 4) {
    const __m128 f = _mm_loadu_ps(x.data() + i);
    _mm_storeu_pd(s.a.data() + i, _mm_cvtps_pd(f));
    _mm_storeu_pd(s.a.data() + i + 2, _mm_cvtps_pd(_mm_movehl_ps(f, f)));
    const __m128i a = _mm_and_si128(_mm_castps_si128(f), _mm_set1_epi32(0x7FFFFFFF));
    const __m128i gt = _mm_cmpgt_epi32(a, vhi);
    vhi = _mm_or_si128(_mm_and_si128(gt, a), _mm_andnot_si128(gt, vhi));
    const __m128i take = _mm_andnot_si128(_mm_cmpeq_epi32(a, _mm_setzero_si128()), _mm_cmplt_epi32(a, vlo));
    vlo = _mm_or_si128(_mm_and_si128(take, a), _mm_andnot_si128(take, vlo));
  }
  alignas(16) std::int32_t h[4], l[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(h), vhi);
  _mm_store_si128(reinterpret_cast<__m128i*>(l), vlo);
  for (int j = 0; j < 4; ++j) hi = std::max(hi, h[j]), lo = std::min(lo, l[j]);
#endif
  for (; i < x.size(); ++i) {
    s.a[i] = x[i];
    const std::int32_t a = static_cast<std::int32_t>(std::bit_cast<std::uint32_t>(x[i]) & 0x7FFFFFFFu);
    hi = std::max(hi, a);
    if (a != 0) lo = std::min(lo, a);
  }
  if (hi == 0) return Block::Zero;
  if (hi >= 0x7F800000) return Block::Other;  // a NaN or an infinity
  const int e_hi = std::max(static_cast<int>(hi >> 23), 1), e_lo = std::max(static_cast<int>(lo >> 23), 1);
  if (e_hi - e_lo + 24 + ceil_log2(x.size()) <= 53) return Block::Exact;
  BitSpan span;
  for (float v : x) span.add(v);
  return span.exact_sum(x.size()) ? Block::Exact : Block::Other;
}

// One radix-4 stage with stride s in binary64 (H4's rows, §3.1). Under the
// callers' bounds every value here is a partial sum of the ±x_i, hence exact,
// so the association of each row's three additions is free.
void stage(const double* in, double* out, std::size_t c, std::size_t s) {
#if SAFESPEC_FHT64_SSE
  if (s >= 2) {
    for (std::size_t base0 = 0; base0 < c; base0 += 4 * s)
      for (std::size_t r = 0; r < s; r += 2) {
        const double* p = in + base0 + r;
        double* o = out + base0 + r;
        const __m128d a0 = _mm_loadu_pd(p), a1 = _mm_loadu_pd(p + s), a2 = _mm_loadu_pd(p + 2 * s),
                      a3 = _mm_loadu_pd(p + 3 * s);
        const __m128d p01 = _mm_add_pd(a0, a1), m01 = _mm_sub_pd(a0, a1), p23 = _mm_add_pd(a2, a3),
                      m23 = _mm_sub_pd(a2, a3);
        _mm_storeu_pd(o, _mm_add_pd(p01, m23));
        _mm_storeu_pd(o + s, _mm_sub_pd(p01, m23));
        _mm_storeu_pd(o + 2 * s, _mm_add_pd(m01, p23));
        _mm_storeu_pd(o + 3 * s, _mm_sub_pd(p23, m01));
      }
    return;
  }
#endif
  for (std::size_t base0 = 0; base0 < c; base0 += 4 * s)
    for (std::size_t base = base0; base < base0 + s; ++base) {
      const double a0 = in[base], a1 = in[base + s], a2 = in[base + 2 * s], a3 = in[base + 3 * s];
      const double p01 = a0 + a1, m01 = a0 - a1, p23 = a2 + a3, m23 = a2 - a3;
      out[base] = p01 + m23;          // a0 + a1 + a2 - a3
      out[base + s] = p01 - m23;      // a0 + a1 - a2 + a3
      out[base + 2 * s] = m01 + p23;  // a0 - a1 + a2 + a3
      out[base + 3 * s] = p23 - m01;  // -a0 + a1 + a2 + a3
    }
}

// The same stage on integers (exact while no sum overflows).
void stage_int(const std::int32_t* in, std::int32_t* out, std::size_t c, std::size_t s) {
#if SAFESPEC_FHT64_SSE
  if (s >= 4) {
    for (std::size_t base0 = 0; base0 < c; base0 += 4 * s)
      for (std::size_t r = 0; r < s; r += 4) {
        const auto load = [&](std::size_t d) {
          return _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + base0 + r + d * s));
        };
        const auto store = [&](std::size_t d, __m128i v) {
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out + base0 + r + d * s), v);
        };
        const __m128i a0 = load(0), a1 = load(1), a2 = load(2), a3 = load(3);
        const __m128i p01 = _mm_add_epi32(a0, a1), m01 = _mm_sub_epi32(a0, a1), p23 = _mm_add_epi32(a2, a3),
                      m23 = _mm_sub_epi32(a2, a3);
        store(0, _mm_add_epi32(p01, m23));
        store(1, _mm_sub_epi32(p01, m23));
        store(2, _mm_add_epi32(m01, p23));
        store(3, _mm_sub_epi32(p23, m01));
      }
    return;
  }
#endif
  for (std::size_t base0 = 0; base0 < c; base0 += 4 * s)
    for (std::size_t base = base0; base < base0 + s; ++base) {
      const std::int32_t a0 = in[base], a1 = in[base + s], a2 = in[base + 2 * s], a3 = in[base + 3 * s];
      const std::int32_t p01 = a0 + a1, m01 = a0 - a1, p23 = a2 + a3, m23 = a2 - a3;
      out[base] = p01 + m23;
      out[base + s] = p01 - m23;
      out[base + 2 * s] = m01 + p23;
      out[base + 3 * s] = p23 - m01;
    }
}

// Σ_i s.a[i] · sign(H_C[i][j]) for every j (the unnormalized transform), in
// s.a or s.b; returns where.
const double* butterflies(FhtScratch& s) {
  const std::size_t c = s.a.size();
  s.b.resize(c);
  double* in = s.a.data();
  double* out = s.b.data();
  for (std::size_t st = 1; st < c; st *= 4) {
    stage(in, out, c, st);
    std::swap(in, out);
  }
  return in;
}

// The nonzero-block tail shared by eager.2 and §3.2: T(2^-k · S_j), and +0
// for S_j = 0 (a nonzero term exists, ExactSum's rule; deq::ExactSum adds no
// zero terms at all).
void round_outputs(FhtScratch& s, FloatType t, float* out) {
  const std::size_t c = s.a.size();
  const double scale = std::ldexp(1.0, -log4_exact(c).value_or(0));  // 2^-k: exact products, far from underflow
  const double* sum = butterflies(s);
  if (t == FloatType::F32) {  // round_double_to for F32 is the one conversion; +0.0 stays +0
    for (std::size_t j = 0; j < c; ++j) out[j] = static_cast<float>(sum[j] == 0.0 ? 0.0 : sum[j] * scale);
    return;
  }
  for (std::size_t j = 0; j < c; ++j) out[j] = sum[j] == 0.0 ? 0.0f : round_double_to(t, sum[j] * scale);
}

}  // namespace

void rotate_eager_block(std::span<const float> x, FloatType t, FhtScratch& s, float* out) {
  const std::size_t c = x.size();
  switch (float_block(x, s)) {
    case Block::Other: {
      const std::vector<float> xr = rotate_eager(x, t);
      std::copy(xr.begin(), xr.end(), out);
      return;
    }
    case Block::Zero: {
      // ExactSum gives -0 exactly when every term x_i · H[i][j] is -0, i.e.
      // when Σ_i σ_i · sign(H[i][j]) = -C with σ_i the sign of x_i (-1 for
      // -0): the same butterflies on ±1, exact on small integers.
      s.a.resize(c);
      for (std::size_t i = 0; i < c; ++i) s.a[i] = std::signbit(x[i]) ? -1.0 : 1.0;
      const double* sum = butterflies(s);
      for (std::size_t j = 0; j < c; ++j) out[j] = sum[j] == -static_cast<double>(c) ? -0.0f : 0.0f;
      return;
    }
    case Block::Exact:
      round_outputs(s, t, out);
      return;
  }
}

void hadamard_block(std::span<const float> x, Dtype t, FhtScratch& s, float* out) {
  const std::size_t c = x.size();
  switch (float_block(x, s)) {
    case Block::Other: {
      // The rule only names an error; none can occur for one row of C = 4^k
      // columns in a compute dtype, which the callers guarantee.
      const auto r = deq::hadamard_blocks(deq::Mat<float>(1, c, std::vector<float>(x.begin(), x.end())), c, t,
                                          RuleId::QuantInt8ConvrotGroupsize);
      std::copy(r.value().v.begin(), r.value().v.end(), out);
      return;
    }
    case Block::Zero:
      std::fill(out, out + c, 0.0f);  // deq::ExactSum skips zero terms: an empty sum is +0
      return;
    case Block::Exact:
      round_outputs(s, deq::float_type(t), out);
      return;
  }
}

void hadamard_int_block(std::span<const std::int8_t> q, FhtScratch& s, std::int32_t* out) {
  const std::size_t c = q.size();
  s.ia.resize(c);
  s.ib.resize(c);
  // The stride-1 stage reads the int8 codes; the last stage writes `out`.
  std::int32_t* in = c == 4 ? out : s.ia.data();
  std::size_t b = 0;
#if SAFESPEC_FHT64_SSE
  // 16 codes at a time: sign-extended to int32 (SSE2 has no pmovsx), the
  // four groups transposed so that lane g holds group g, one butterfly on
  // whole registers, transposed back.
  for (; b + 16 <= c; b += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q.data() + b));
    const __m128i lo16 = _mm_srai_epi16(_mm_unpacklo_epi8(bytes, bytes), 8), hi16 = _mm_srai_epi16(_mm_unpackhi_epi8(bytes, bytes), 8);
    __m128 g0 = _mm_castsi128_ps(_mm_srai_epi32(_mm_unpacklo_epi16(lo16, lo16), 16));
    __m128 g1 = _mm_castsi128_ps(_mm_srai_epi32(_mm_unpackhi_epi16(lo16, lo16), 16));
    __m128 g2 = _mm_castsi128_ps(_mm_srai_epi32(_mm_unpacklo_epi16(hi16, hi16), 16));
    __m128 g3 = _mm_castsi128_ps(_mm_srai_epi32(_mm_unpackhi_epi16(hi16, hi16), 16));
    _MM_TRANSPOSE4_PS(g0, g1, g2, g3);  // only moves bits: the lanes stay integers
    const __m128i a0 = _mm_castps_si128(g0), a1 = _mm_castps_si128(g1), a2 = _mm_castps_si128(g2),
                  a3 = _mm_castps_si128(g3);
    const __m128i p01 = _mm_add_epi32(a0, a1), m01 = _mm_sub_epi32(a0, a1), p23 = _mm_add_epi32(a2, a3),
                  m23 = _mm_sub_epi32(a2, a3);
    __m128 o0 = _mm_castsi128_ps(_mm_add_epi32(p01, m23)), o1 = _mm_castsi128_ps(_mm_sub_epi32(p01, m23)),
           o2 = _mm_castsi128_ps(_mm_add_epi32(m01, p23)), o3 = _mm_castsi128_ps(_mm_sub_epi32(p23, m01));
    _MM_TRANSPOSE4_PS(o0, o1, o2, o3);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(in + b), _mm_castps_si128(o0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(in + b + 4), _mm_castps_si128(o1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(in + b + 8), _mm_castps_si128(o2));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(in + b + 12), _mm_castps_si128(o3));
  }
#endif
  for (; b < c; b += 4) {
    const std::int32_t a0 = q[b], a1 = q[b + 1], a2 = q[b + 2], a3 = q[b + 3];
    const std::int32_t p01 = a0 + a1, m01 = a0 - a1, p23 = a2 + a3, m23 = a2 - a3;
    in[b] = p01 + m23;
    in[b + 1] = p01 - m23;
    in[b + 2] = m01 + p23;
    in[b + 3] = p23 - m01;
  }
  std::int32_t* spare = s.ib.data();
  for (std::size_t st = 4; st < c; st *= 4) {  // |partial sums| <= 128 · C: int32 for any valid C
    std::int32_t* to = 4 * st >= c ? out : spare;
    stage_int(in, to, c, st);
    spare = in;
    in = to;
  }
}

void rotate_ideal_block(std::span<const double> x, FhtScratch& s, double* out, std::size_t stride) {
  const std::size_t c = x.size();
  const int k = log4_exact(c).value_or(0);
  BitSpan span;
  for (double v : x) span.add(v);
  // Besides the exact partial sums: each product x_i · 2^-k of the reference
  // must be exact (no bits below 2^-1074), and no partial sum may overflow.
  const bool exact = span.exact_sum(c) && (span.msb == INT_MIN || (span.lsb - k >= -1074 && span.msb + 1 + ceil_log2(c) < 1024));
  if (!exact) {
    const std::vector<double> r = rotate_ideal(x);
    for (std::size_t j = 0; j < c; ++j) out[j * stride] = r[j];
    return;
  }
  s.a.assign(x.begin(), x.end());
  const double* sum = butterflies(s);
  // The reference starts from +0: an exact zero sum is +0 (x + -x and
  // +0 + -0 both give +0 in round-to-nearest).
  const double scale = std::ldexp(1.0, -k);  // the bound above keeps every S_j · 2^-k representable: exact
  for (std::size_t j = 0; j < c; ++j) out[j * stride] = sum[j] == 0.0 ? 0.0 : sum[j] * scale;
}

}  // namespace safespec::numerics
