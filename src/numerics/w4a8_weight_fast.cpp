#include "src/numerics/w4a8_weight_fast.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "src/numerics/hadamard_fast.hpp"
#include "src/numerics/int8_gemm.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SAFESPEC_IDEAL_AVX 1
#else
#define SAFESPEC_IDEAL_AVX 0
#endif

namespace safespec::numerics {

namespace {

// Outputs n computed side by side: two AVX registers of binary64.
constexpr std::size_t kTile = 8;

// y[m, j] = init[j] + Σ_k x[m, k] · wt[k, j] for j < cols, each one
// sequential binary64 chain from k = 0 (w4a8_ideal's loop: s += x · w, the
// product rounded, then the sum; -ffp-contract=off keeps them two
// operations). wt is [K, kTile]; y rows are ldy apart.
struct DotArgs {
  const double* wt;
  std::size_t k;
  const double* x;  // [M, K], x widened once (exactly) to binary64
  std::size_t m;
  const double* init;
  double* y;
  std::size_t ldy, cols;
};

void dot_portable(const DotArgs& a) {
  for (std::size_t m = 0; m < a.m; ++m) {
    double acc[kTile];
    std::copy(a.init, a.init + kTile, acc);
    const double* x = a.x + m * a.k;
    for (std::size_t k = 0; k < a.k; ++k) {
      const double xv = x[k];
      for (std::size_t j = 0; j < kTile; ++j) acc[j] = acc[j] + xv * a.wt[k * kTile + j];
    }
    std::copy(acc, acc + a.cols, a.y + m * a.ldy);
  }
}

#if SAFESPEC_IDEAL_AVX
// Four rows of x at once: eight independent chains keep the adder busy.
template <std::size_t R>
__attribute__((target("avx2"))) void dot_avx_rows(const DotArgs& a, std::size_t m0) {
  __m256d acc[R][2];
  for (std::size_t r = 0; r < R; ++r) {
    acc[r][0] = _mm256_loadu_pd(a.init);
    acc[r][1] = _mm256_loadu_pd(a.init + 4);
  }
  const double* x = a.x + m0 * a.k;
  for (std::size_t k = 0; k < a.k; ++k) {
    const __m256d w0 = _mm256_loadu_pd(a.wt + k * kTile), w1 = _mm256_loadu_pd(a.wt + k * kTile + 4);
#pragma GCC unroll 8  // the accumulators stay in registers only when this loop is unrolled
    for (std::size_t r = 0; r < R; ++r) {
      const __m256d xv = _mm256_set1_pd(x[r * a.k + k]);
      acc[r][0] = _mm256_add_pd(acc[r][0], _mm256_mul_pd(xv, w0));
      acc[r][1] = _mm256_add_pd(acc[r][1], _mm256_mul_pd(xv, w1));
    }
  }
  for (std::size_t r = 0; r < R; ++r) {
    double out[kTile];
    _mm256_storeu_pd(out, acc[r][0]);
    _mm256_storeu_pd(out + 4, acc[r][1]);
    std::copy(out, out + a.cols, a.y + (m0 + r) * a.ldy);
  }
}

__attribute__((target("avx2"))) void dot_avx(const DotArgs& a) {
  std::size_t m = 0;
  for (; m + 4 <= a.m; m += 4) dot_avx_rows<4>(a, m);
  for (; m < a.m; ++m) dot_avx_rows<1>(a, m);
}

// AVX-512: a tile row is one register; 16 or 8 rows of x at once.
template <std::size_t R>
__attribute__((target("avx512f"))) void dot_avx512_rows(const DotArgs& a, std::size_t m0) {
  __m512d acc[R];
  for (std::size_t r = 0; r < R; ++r) acc[r] = _mm512_loadu_pd(a.init);
  const double* x = a.x + m0 * a.k;
  for (std::size_t k = 0; k < a.k; ++k) {
    const __m512d w = _mm512_loadu_pd(a.wt + k * kTile);
#pragma GCC unroll 16  // the accumulators stay in registers only when this loop is unrolled
    for (std::size_t r = 0; r < R; ++r)
      acc[r] = _mm512_add_pd(acc[r], _mm512_mul_pd(_mm512_set1_pd(x[r * a.k + k]), w));
  }
  for (std::size_t r = 0; r < R; ++r) {
    double out[kTile];
    _mm512_storeu_pd(out, acc[r]);
    std::copy(out, out + a.cols, a.y + (m0 + r) * a.ldy);
  }
}

__attribute__((target("avx512f"))) void dot_avx512(const DotArgs& a) {
  std::size_t m = 0;
  for (; m + 16 <= a.m; m += 16) dot_avx512_rows<16>(a, m);  // 16 chains: twice the adder's latency
  for (; m + 8 <= a.m; m += 8) dot_avx512_rows<8>(a, m);
  for (; m < a.m; ++m) dot_avx512_rows<1>(a, m);
}
#endif

using DotFn = void (*)(const DotArgs&);

// A NaN's bits in one output. The lanes compute every value the reference
// does, but which NaN a chain ends with depends on operand order (x86 returns
// the first operand's NaN, quieted), and a compiler may swap the operands of
// an operation it knows to be commutative. So an output that is NaN is
// computed again in the reference's source order, s + (x · w), with that
// choice made explicit (w4a8_ideal as compiled keeps this order).
double first_nan(double a, double b, double result) {
  const auto quiet = [](double v) { return std::bit_cast<double>(std::bit_cast<std::uint64_t>(v) | (std::uint64_t{1} << 51)); };
  if (std::isnan(a)) return quiet(a);
  if (std::isnan(b)) return quiet(b);
  return result;
}

double chain_in_order(double init, const double* x, const double* wt_column, std::size_t k) {
  double s = init;
  for (std::size_t i = 0; i < k; ++i) {
    const double xv = x[i], w = wt_column[i * kTile];
    const double p = first_nan(xv, w, xv * w);
    s = first_nan(s, p, s + p);
  }
  return s;
}

// The GEMM's kernel choice (W4a8FastConfig::kernel) picks the lane width too,
// so a test can run each: Scalar, Avx2 (AVX), Avx512Vnni (AVX-512F, which
// VNNI implies).
DotFn pick_dot(GemmKernel kernel) {
#if SAFESPEC_IDEAL_AVX
  switch (resolve_kernel(kernel)) {
    case GemmKernel::Avx512Vnni: return dot_avx512;
    case GemmKernel::Avx2: return dot_avx;  // AVX2 implies AVX
    default: break;
  }
#else
  (void)kernel;
#endif
  return dot_portable;
}

// Weight rows decoded (W4A8.1) a few at a time, per thread.
constexpr std::size_t kDecodeRows = 16;

// eager.C2 for row n (Wrot in binary32, T = F32), as w4a8_dequant.
void rotated_row_f32(const W4a8Layer& l, const std::int8_t* wq, std::size_t n, float* out) {
  const float s = l.s_channel[n];
  if (l.correction) {
    for (std::size_t k = 0; k < l.k; ++k)
      out[k] = rotated_weight_eager(wq[k], s, (*l.correction)[(k / l.group_size) * l.n + n], FloatType::F32);
  } else {
    for (std::size_t k = 0; k < l.k; ++k) out[k] = static_cast<float>(wq[k]) * s;
  }
}

// Whether row n of §5.10's W is hadamard_int_block's sums times one scale.
bool integer_row(const W4a8Layer& l, std::size_t n) { return !l.correction && std::isfinite(l.s_channel[n]); }

// Row n of §5.10's W in binary64, as w4a8_ideal: Wq · s_channel
// (+ correction), exact products and one binary64 sum, then rotate_ideal;
// element k goes to out[k · stride].
void ideal_row(const W4a8Layer& l, const std::int8_t* wq, std::size_t n, std::vector<double>& wrot, FhtScratch& s,
               double* out, std::size_t stride) {
  const std::size_t K = l.k, C = l.convrot_groupsize;
  for (std::size_t k = 0; k < K; ++k) {
    wrot[k] = static_cast<double>(wq[k]) * l.s_channel[n];
    if (l.correction) wrot[k] += (*l.correction)[(k / l.group_size) * l.n + n];
  }
  for (std::size_t b = 0; b < K; b += C)
    rotate_ideal_block(std::span<const double>(wrot).subspan(b, C), s, out + b * stride, stride);
}

}  // namespace

Result<W4a8DequantRows> W4a8DequantRows::make(const W4a8Layer& l, const W4a8FastConfig& config) {
  W4a8Options o;
  o.semantics = Semantics::Eager;  // as w4a8_dequant: no C == 256 restriction
  if (Status s = validate(l, Activations{0, FloatType::F32, {}}, o); !s) return s.error();
  return W4a8DequantRows(l, resolve_threads(config.threads));
}

bool W4a8DequantRows::rows(std::size_t first, std::size_t last, std::span<float> out) const {
  const W4a8Layer& l = *layer_;
  const std::size_t K = l.k, C = l.convrot_groupsize;
  if (first > last || last > l.n || (K != 0 && out.size() / K < last - first)) return false;
  parallel_ranges(last - first, threads_, 1, [&](std::size_t r0, std::size_t r1) {
    FhtScratch s;
    std::vector<float> wrot(K);
    std::vector<std::int8_t> wq(kDecodeRows * K);
    for (std::size_t nb = first + r0; nb < first + r1; nb += kDecodeRows) {
      const std::size_t ne = std::min(first + r1, nb + kDecodeRows);
      decode_weight_rows(l, nb, ne, wq.data());  // W4A8.1
      for (std::size_t n = nb; n < ne; ++n) {
        rotated_row_f32(l, wq.data() + (n - nb) * K, n, wrot.data());
        float* row = out.data() + (n - first) * K;
        for (std::size_t b = 0; b < K; b += C)  // eager.C3: H_C is symmetric, the un-rotation is the rotation
          rotate_eager_block(std::span<const float>(wrot).subspan(b, C), FloatType::F32, s, row + b);
      }
    }
  });
  return true;
}

Result<std::vector<float>> w4a8_dequant_fast(const W4a8Layer& l, const W4a8FastConfig& config) {
  auto rows = W4a8DequantRows::make(l, config);
  if (!rows) return rows.error();
  std::vector<float> w(l.n * l.k);
  static_cast<void>(rows.value().rows(0, l.n, w));  // [0, N) always fits w
  return w;
}

Result<std::vector<double>> w4a8_ideal_fast(const W4a8Layer& l, const Activations& x, const W4a8FastConfig& config,
                                            std::span<const std::int8_t> decoded) {
  W4a8Options eager;  // as w4a8_ideal: no CUDA-only shape limits
  eager.semantics = Semantics::Eager;
  if (Status s = validate(l, x, eager); !s) return s.error();
  const unsigned threads = resolve_threads(config.threads);
  const std::size_t M = x.m, N = l.n, K = l.k;
  if (!decoded.empty() && decoded.size() != N * K) decoded = {};
  std::vector<double> y(M * N);
  // No rows (M = 0): nothing to compute, and y.data() + nb would offset a
  // null pointer (undefined behaviour, which clang's UBSan reports).
  if (y.empty()) return y;
  const DotFn dot = pick_dot(config.kernel);
  const std::vector<double> xd(x.values.begin(), x.values.end());  // what w4a8_ideal's double{x} gives
  parallel_ranges(N, threads, kTile, [&](std::size_t n0, std::size_t n1) {
    FhtScratch s;
    std::vector<double> wrot(K), wt(K * kTile);
    std::vector<std::int32_t> sums(K * kTile);
    const std::size_t C = l.convrot_groupsize;
    const int log4c = log4_exact(C).value_or(0);
    std::vector<std::int8_t> wq(decoded.empty() ? kTile * K : 0);
    for (std::size_t nb = n0; nb < n1; nb += kTile) {
      const std::size_t cols = std::min(kTile, n1 - nb);
      if (decoded.empty()) decode_weight_rows(l, nb, nb + cols, wq.data(), config.kernel);  // W4A8.1
      const std::int8_t* tile_wq = decoded.empty() ? wq.data() : decoded.data() + nb * K;
      // wt [K, kTile]: column j is row nb + j of W. Integer rows first go
      // through their sums (row-major), then one pass writes wt row by row.
      double init[kTile] = {}, s_2k[kTile] = {};
      bool all_integer = true;
      for (std::size_t j = 0; j < kTile; ++j) {
        const std::size_t n = nb + j;
        if (j < cols && integer_row(l, n)) {
          for (std::size_t b = 0; b < K; b += C)
            hadamard_int_block(std::span<const std::int8_t>(tile_wq + j * K + b, C), s, sums.data() + j * K + b);
          s_2k[j] = std::ldexp(static_cast<double>(l.s_channel[n]), -log4c);
        } else {
          all_integer = false;
          std::fill(sums.begin() + static_cast<std::ptrdiff_t>(j * K), sums.begin() + static_cast<std::ptrdiff_t>((j + 1) * K), 0);
        }
        if (j < cols) init[j] = l.bias ? double{(*l.bias)[n]} : 0.0;
      }
      for (std::size_t k = 0; k < K; ++k)  // a lane past N is 0: computed, never stored
        for (std::size_t j = 0; j < kTile; ++j) wt[k * kTile + j] = ideal_scaled(sums[j * K + k], s_2k[j]);
      if (!all_integer)
        for (std::size_t j = 0; j < cols; ++j)
          if (!integer_row(l, nb + j)) ideal_row(l, tile_wq + j * K, nb + j, wrot, s, wt.data() + j, kTile);
      dot({wt.data(), K, xd.data(), M, init, y.data() + nb, N, cols});
      for (std::size_t m = 0; m < M; ++m)
        for (std::size_t j = 0; j < cols; ++j)
          if (double& out = y[m * N + nb + j]; std::isnan(out))
            out = chain_in_order(init[j], xd.data() + m * K, wt.data() + j, K);
    }
  });
  return y;
}

}  // namespace safespec::numerics
