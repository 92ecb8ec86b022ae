#include "src/numerics/epilogue_lanes.hpp"

#include <cmath>

#include "src/numerics/w4a8_lanes.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SAFESPEC_EPILOGUE_X86 1
#else
#define SAFESPEC_EPILOGUE_X86 0
#endif

namespace safespec::numerics {

namespace {

using lanes::ftz;
using lanes::ftz_lanes;
using lanes::round_x;

// epilogue_cuda inlined: a = f32(acc), t0 = mul(a, xs), then mul(t0, s)
// straight to T_o without a bias, or fma(t0, s, b) / add(mul(t0, s), b) and
// one conversion to T_o; CudaF32's flushes on every operand and result.
template <bool Flush, FloatType To>
void portable(const EpilogueRow& r, std::span<float> y) {
  const auto mul = [](float a, float b) { return ftz<Flush>(ftz<Flush>(a) * ftz<Flush>(b)); };
  for (std::size_t n = 0; n < r.acc.size(); ++n) {
    const float t0 = mul(static_cast<float>(r.acc[n]), r.xs), s = r.s_channel[n];
    if (r.bias == nullptr) {
      y[n] = round_x<To>(mul(t0, s));
      continue;
    }
    const float b = r.bias[n];
    const float sum = r.fma ? ftz<Flush>(std::fma(ftz<Flush>(t0), ftz<Flush>(s), ftz<Flush>(b)))
                            : ftz<Flush>(mul(t0, s) + ftz<Flush>(b));
    y[n] = round_x<To>(sum);
  }
}

#if SAFESPEC_EPILOGUE_X86
using I16 = lanes::Int32x16;

// As portable, operands flushed once each (ftz is idempotent: a flushed
// result needs no second flush as the next operand). cvtdq2ps, mul, add and
// fmadd round each lane as the scalar conversion, *, + and std::fma do
// (MXCSR at its default). BF16 is round_x's RNE formula, for non-NaN lanes;
// a NaN anywhere gives up the row. Zero-masking forms throughout: GCC 12
// warns -Wuninitialized about the unmasked ones' undefined operand.
template <bool Flush, FloatType To>
__attribute__((target("avx512f"))) bool lanes16(const EpilogueRow& r, std::span<float> y) {
  const __m512 xs = _mm512_set1_ps(ftz<Flush>(r.xs));
  const std::size_t n_all = r.acc.size();
  for (std::size_t n = 0; n < n_all; n += 16) {
    const __mmask16 k = n_all - n >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << (n_all - n)) - 1);
    __m512 a = _mm512_maskz_cvtepi32_ps(k, _mm512_maskz_loadu_epi32(k, r.acc.data() + n));
    __m512 s = _mm512_maskz_loadu_ps(k, r.s_channel.data() + n);
    ftz_lanes<Flush, I16>(a), ftz_lanes<Flush, I16>(s);
    __m512 t0 = _mm512_mul_ps(a, xs);
    ftz_lanes<Flush, I16>(t0);
    __m512 v = _mm512_mul_ps(t0, s);
    if (r.bias != nullptr) {
      __m512 b = _mm512_maskz_loadu_ps(k, r.bias + n);
      ftz_lanes<Flush, I16>(b);
      if (r.fma) {
        v = _mm512_fmadd_ps(t0, s, b);
      } else {
        ftz_lanes<Flush, I16>(v);
        v = _mm512_add_ps(v, b);
      }
    }
    ftz_lanes<Flush, I16>(v);
    if (_mm512_mask_cmp_ps_mask(k, v, v, _CMP_UNORD_Q) != 0) return false;
    if constexpr (To == FloatType::BF16) {
      const __m512i u = _mm512_castps_si512(v);
      const __m512i lsb = _mm512_and_si512(_mm512_maskz_srli_epi32(k, u, 16), _mm512_set1_epi32(1));
      const __m512i rounded = _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), lsb);
      v = _mm512_castsi512_ps(_mm512_and_si512(rounded, _mm512_set1_epi32(static_cast<int>(0xFFFF0000u))));
    }
    _mm512_mask_storeu_ps(y.data() + n, k, v);
  }
  return true;
}
#endif

}  // namespace

void epilogue_cuda_portable(const EpilogueRow& row, std::span<float> y) {
  const bool f = row.flush;
  switch (row.to) {
    case FloatType::F32: return f ? portable<true, FloatType::F32>(row, y) : portable<false, FloatType::F32>(row, y);
    case FloatType::BF16: return f ? portable<true, FloatType::BF16>(row, y) : portable<false, FloatType::BF16>(row, y);
    case FloatType::F16: return f ? portable<true, FloatType::F16>(row, y) : portable<false, FloatType::F16>(row, y);
  }
}

bool epilogue_cuda_avx512(const EpilogueRow& row, std::span<float> y) {
#if SAFESPEC_EPILOGUE_X86
  if (!avx512f_available()) return false;
  const bool f = row.flush;
  switch (row.to) {
    case FloatType::F32: return f ? lanes16<true, FloatType::F32>(row, y) : lanes16<false, FloatType::F32>(row, y);
    case FloatType::BF16: return f ? lanes16<true, FloatType::BF16>(row, y) : lanes16<false, FloatType::BF16>(row, y);
    case FloatType::F16: return false;
  }
#else
  (void)row, (void)y;
#endif
  return false;
}

}  // namespace safespec::numerics
