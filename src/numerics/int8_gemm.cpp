#include "src/numerics/int8_gemm.hpp"

#include <algorithm>
#include <thread>
#include <vector>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define SAFESPEC_HAVE_AVX2_KERNEL 1
#include <immintrin.h>
#else
#define SAFESPEC_HAVE_AVX2_KERNEL 0
#endif

namespace safespec::numerics {

namespace {

// Operands are widened to int16 and K padded with zeros to a multiple of 16,
// so one 256-bit vpmaddwd multiplies 16 pairs and adds adjacent products
// into int32 lanes: exact, since |a · b| <= 2^14. (vpmaddubsw would need an
// unsigned operand; |xq| · |Wq| pairs fit its int16 saturation bound only
// with a per-pair sign fix-up, which costs as much as the widening.)
constexpr std::size_t kLane = 16;
constexpr std::size_t kKc = 1024;  // K block: one int16 row block is 2 KiB
constexpr std::size_t kNc = 128;   // columns of B per panel: 256 KiB, kept in L2
constexpr std::size_t kMr = 4, kNr = 2;

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

// One register block: c[i, j] (+)= Σ_{k < kl} a[i, k] · b[j, k] for i < MR, j < NR.
using Micro = void (*)(const std::int16_t* a, const std::int16_t* b, std::size_t stride, std::size_t kl,
                       std::int32_t* c, std::size_t ldc, bool add);

template <std::size_t MR, std::size_t NR>
void micro_scalar(const std::int16_t* a, const std::int16_t* b, std::size_t stride, std::size_t kl, std::int32_t* c,
                  std::size_t ldc, bool add) {
  std::int32_t acc[MR][NR] = {};
  for (std::size_t k = 0; k < kl; ++k)
    for (std::size_t i = 0; i < MR; ++i)
      for (std::size_t j = 0; j < NR; ++j) acc[i][j] += std::int32_t{a[i * stride + k]} * b[j * stride + k];
  for (std::size_t i = 0; i < MR; ++i)
    for (std::size_t j = 0; j < NR; ++j) c[i * ldc + j] = add ? c[i * ldc + j] + acc[i][j] : acc[i][j];
}

constexpr Micro kScalarTable[kMr][kNr] = {{micro_scalar<1, 1>, micro_scalar<1, 2>},
                                          {micro_scalar<2, 1>, micro_scalar<2, 2>},
                                          {micro_scalar<3, 1>, micro_scalar<3, 2>},
                                          {micro_scalar<4, 1>, micro_scalar<4, 2>}};

#if SAFESPEC_HAVE_AVX2_KERNEL
__attribute__((target("avx2"))) inline std::int32_t hsum_avx2(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  return _mm_cvtsi128_si32(s);
}

template <std::size_t MR, std::size_t NR>
__attribute__((target("avx2"))) void micro_avx2(const std::int16_t* a, const std::int16_t* b, std::size_t stride,
                                                std::size_t kl, std::int32_t* c, std::size_t ldc, bool add) {
  __m256i acc[MR][NR];
  for (std::size_t i = 0; i < MR; ++i)
    for (std::size_t j = 0; j < NR; ++j) acc[i][j] = _mm256_setzero_si256();
  for (std::size_t k = 0; k < kl; k += kLane) {
    __m256i bv[NR];
    for (std::size_t j = 0; j < NR; ++j)
      bv[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + j * stride + k));
    for (std::size_t i = 0; i < MR; ++i) {
      const __m256i av = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i * stride + k));
      for (std::size_t j = 0; j < NR; ++j) acc[i][j] = _mm256_add_epi32(acc[i][j], _mm256_madd_epi16(av, bv[j]));
    }
  }
  for (std::size_t i = 0; i < MR; ++i)
    for (std::size_t j = 0; j < NR; ++j) {
      const std::int32_t s = hsum_avx2(acc[i][j]);
      c[i * ldc + j] = add ? c[i * ldc + j] + s : s;
    }
}

constexpr Micro kAvx2Table[kMr][kNr] = {{micro_avx2<1, 1>, micro_avx2<1, 2>},
                                        {micro_avx2<2, 1>, micro_avx2<2, 2>},
                                        {micro_avx2<3, 1>, micro_avx2<3, 2>},
                                        {micro_avx2<4, 1>, micro_avx2<4, 2>}};
#endif

// Rows [0, rows) of src [rows, k] widened into dst [rows, kp], zero padded.
void widen_rows(std::span<const std::int8_t> src, std::vector<std::int16_t>& dst, std::size_t rows, std::size_t k,
                std::size_t kp, unsigned threads) {
  dst.assign(rows * kp, 0);
  parallel_ranges(rows, threads, 1, [&](std::size_t r0, std::size_t r1) {
    for (std::size_t r = r0; r < r1; ++r)
      for (std::size_t j = 0; j < k; ++j) dst[r * kp + j] = src[r * k + j];
  });
}

// c[m0..m1, n0..n1) over the packed operands, K blocked by kKc, B in panels of kNc columns.
void block_range(const Micro (&table)[kMr][kNr], const std::int16_t* a, const std::int16_t* b, std::int32_t* c,
                 std::size_t m0, std::size_t m1, std::size_t n0, std::size_t n1, std::size_t n, std::size_t kp) {
  for (std::size_t kb = 0; kb < kp; kb += kKc) {
    const std::size_t kl = std::min(kKc, kp - kb);
    for (std::size_t nb = n0; nb < n1; nb += kNc) {
      const std::size_t ne = std::min(nb + kNc, n1);
      for (std::size_t i = m0; i < m1; i += kMr) {
        const std::size_t mr = std::min(kMr, m1 - i);
        for (std::size_t j = nb; j < ne; j += kNr) {
          const std::size_t nr = std::min(kNr, ne - j);
          table[mr - 1][nr - 1](a + i * kp + kb, b + j * kp + kb, kp, kl, c + i * n + j, n, kb != 0);
        }
      }
    }
  }
}

}  // namespace

bool avx2_available() {
#if SAFESPEC_HAVE_AVX2_KERNEL
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

GemmKernel resolve_kernel(GemmKernel requested) {
  if (requested == GemmKernel::Scalar) return GemmKernel::Scalar;
  return avx2_available() ? GemmKernel::Avx2 : GemmKernel::Scalar;
}

unsigned resolve_threads(unsigned requested) {
  if (requested != 0) return requested;
  return std::max(1u, std::thread::hardware_concurrency());
}

void parallel_ranges(std::size_t count, unsigned threads, std::size_t align,
                     const std::function<void(std::size_t, std::size_t)>& body) {
  if (count == 0) return;
  align = std::max<std::size_t>(align, 1);
  const std::size_t units = (count + align - 1) / align;
  const std::size_t chunks = std::clamp<std::size_t>(units, 1, std::max(1u, threads));
  const std::size_t chunk = (units + chunks - 1) / chunks * align;
  std::vector<std::thread> pool;
  for (std::size_t begin = chunk; begin < count; begin += chunk)
    pool.emplace_back(body, begin, std::min(count, begin + chunk));
  body(0, std::min(count, chunk));
  for (std::thread& t : pool) t.join();
}

void gemm_s8s8s32(std::span<const std::int8_t> a, std::span<const std::int8_t> b, std::span<std::int32_t> c,
                  std::size_t m, std::size_t n, std::size_t k, const GemmConfig& config) {
  if (a.size() < m * k || b.size() < n * k || c.size() < m * n || m == 0 || n == 0) return;
  if (k == 0) {
    std::fill(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(m * n), 0);
    return;
  }
  const unsigned threads = resolve_threads(config.threads);
  const std::size_t kp = round_up(k, kLane);
  std::vector<std::int16_t> a16, b16;
  widen_rows(a, a16, m, k, kp, threads);
  widen_rows(b, b16, n, k, kp, threads);
  const Micro(*table)[kMr][kNr] = &kScalarTable;
#if SAFESPEC_HAVE_AVX2_KERNEL
  if (resolve_kernel(config.kernel) == GemmKernel::Avx2) table = &kAvx2Table;
#endif
  // Split the larger dimension across threads; every thread writes its own cells of c.
  if (n >= m)
    parallel_ranges(n, threads, kNr, [&](std::size_t n0, std::size_t n1) {
      block_range(*table, a16.data(), b16.data(), c.data(), 0, m, n0, n1, n, kp);
    });
  else
    parallel_ranges(m, threads, kMr, [&](std::size_t m0, std::size_t m1) {
      block_range(*table, a16.data(), b16.data(), c.data(), m0, m1, 0, n, n, kp);
    });
}

}  // namespace safespec::numerics
