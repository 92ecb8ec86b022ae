#include "src/numerics/int8_gemm.hpp"

#include "src/io/header_memory.hpp"
#include "src/io/parallel.hpp"

#include <algorithm>
#include <array>
#include <thread>
#include <utility>
#include <vector>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define SAFESPEC_HAVE_X86_KERNELS 1
#include <immintrin.h>
#else
#define SAFESPEC_HAVE_X86_KERNELS 0
#endif

namespace safespec::numerics {

namespace {

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

// One register block: c[i, j] = base[i, j] + Σ_{k < kl} a[i, k] · b[j, k] for
// i < MR, j < NR, rows `stride` elements apart, where base is c itself when
// `add`, else init[j] (0 without init). Sums wrap modulo 2^32 (see Vnni512).
template <class TA, class TB>
using MicroFn = void (*)(const TA* a, const TB* b, std::size_t stride, std::size_t kl, std::int32_t* c,
                         std::size_t ldc, bool add, const std::int32_t* init);

std::int32_t wrap_add(std::int32_t c, std::int32_t s, bool add, const std::int32_t* init, std::size_t j) {
  const std::uint32_t base = add ? static_cast<std::uint32_t>(c) : init ? static_cast<std::uint32_t>(init[j]) : 0u;
  return static_cast<std::int32_t>(base + static_cast<std::uint32_t>(s));
}

template <class TA, class TB, std::size_t MR, std::size_t NR>
struct Kernel {
  std::array<std::array<MicroFn<TA, TB>, NR>, MR> table;  // [mr - 1][nr - 1]
  std::size_t lane, kc, nc;  // K granule, K block, columns of B per panel (kept in L2)
};

template <class K, class TA, class TB, std::size_t MR, std::size_t NR>
constexpr Kernel<TA, TB, MR, NR> make_kernel(std::size_t lane, std::size_t kc, std::size_t nc) {
  Kernel<TA, TB, MR, NR> kernel{{}, lane, kc, nc};
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((kernel.table[I / NR][I % NR] = &K::template run<I / NR + 1, I % NR + 1>), ...);
  }(std::make_index_sequence<MR * NR>{});
  return kernel;
}

// Portable: int16 operands, int32 sums (the precondition bounds them).
struct Scalar {
  template <std::size_t MR, std::size_t NR>
  static void run(const std::int16_t* a, const std::int16_t* b, std::size_t stride, std::size_t kl, std::int32_t* c,
                  std::size_t ldc, bool add, const std::int32_t* init) {
    std::int32_t acc[MR][NR] = {};
    for (std::size_t k = 0; k < kl; ++k)
      for (std::size_t i = 0; i < MR; ++i)
        for (std::size_t j = 0; j < NR; ++j) acc[i][j] += std::int32_t{a[i * stride + k]} * b[j * stride + k];
    for (std::size_t i = 0; i < MR; ++i)
      for (std::size_t j = 0; j < NR; ++j) c[i * ldc + j] = wrap_add(c[i * ldc + j], acc[i][j], add, init, j);
  }
};

#if SAFESPEC_HAVE_X86_KERNELS
// AVX2: operands widened to int16, one vpmaddwd multiplies 16 pairs and adds
// adjacent products into int32 lanes, exactly (|a · b| <= 2^14). (vpmaddubsw
// needs an unsigned operand and saturates int16 pair sums: |xq| · |Wq| would
// fit, but only with a per-pair sign fix-up that costs as much as widening.)
struct Avx2 {
  __attribute__((target("avx2"))) static std::int32_t hsum(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
  }
  template <std::size_t MR, std::size_t NR>
  __attribute__((target("avx2"))) static void run(const std::int16_t* a, const std::int16_t* b, std::size_t stride,
                                                  std::size_t kl, std::int32_t* c, std::size_t ldc, bool add,
                                                  const std::int32_t* init) {
    __m256i acc[MR][NR];
    for (std::size_t i = 0; i < MR; ++i)
      for (std::size_t j = 0; j < NR; ++j) acc[i][j] = _mm256_setzero_si256();
    for (std::size_t k = 0; k < kl; k += 16) {
      __m256i bv[NR];
      for (std::size_t j = 0; j < NR; ++j)
        bv[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + j * stride + k));
      for (std::size_t i = 0; i < MR; ++i) {
        const __m256i av = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i * stride + k));
        for (std::size_t j = 0; j < NR; ++j) acc[i][j] = _mm256_add_epi32(acc[i][j], _mm256_madd_epi16(av, bv[j]));
      }
    }
    for (std::size_t i = 0; i < MR; ++i)
      for (std::size_t j = 0; j < NR; ++j) c[i * ldc + j] = wrap_add(c[i * ldc + j], hsum(acc[i][j]), add, init, j);
  }
};

// AVX-512 VNNI: vpdpbusd multiplies 64 unsigned-by-signed byte pairs and adds
// each 4 products into an int32 lane, without saturation (wrapping). The
// signed a goes in as a + 128 (a ^ 0x80); the caller passes -128 · Σ_k b[j, k]
// as init, the starting value of each c, so the first K block's stores carry
// the correction. The biased sums may wrap, but all arithmetic is modulo 2^32
// and the true result fits int32 (the precondition), so it comes out exact.
struct Vnni512 {
  // Upper 256 bits added onto the lower, then Avx2::hsum. The masked extract
  // names its pass-through operand: GCC 12 warns -Wuninitialized about the
  // unmasked forms (and the cast, _mm512_reduce_add_epi32), which pass an undefined one.
  __attribute__((target("avx512f,avx2"))) static std::int32_t hsum(__m512i v) {
    const __m256i low = _mm512_mask_extracti64x4_epi64(_mm256_setzero_si256(), 0xF, v, 0);
    const __m256i high = _mm512_mask_extracti64x4_epi64(_mm256_setzero_si256(), 0xF, v, 1);
    return Avx2::hsum(_mm256_add_epi32(low, high));
  }
  // The four sums of v0..v3, in one pass: pairs of lanes interleaved and
  // added within each 128-bit lane (each then holds a partial sum of every
  // v), then the four 128-bit lanes added. Integer addition in any order.
  // The zero-masking forms with a full mask, for GCC 12's -Wuninitialized
  // (as hsum above).
  __attribute__((target("avx512f"))) static __m128i hsum4(__m512i v0, __m512i v1, __m512i v2, __m512i v3) {
    constexpr __mmask16 all32 = 0xFFFF;
    constexpr __mmask8 all64 = 0xFF;
    const __m512i p01 =
        _mm512_add_epi32(_mm512_maskz_unpacklo_epi32(all32, v0, v1), _mm512_maskz_unpackhi_epi32(all32, v0, v1));
    const __m512i p23 =
        _mm512_add_epi32(_mm512_maskz_unpacklo_epi32(all32, v2, v3), _mm512_maskz_unpackhi_epi32(all32, v2, v3));
    __m512i s =
        _mm512_add_epi32(_mm512_maskz_unpacklo_epi64(all64, p01, p23), _mm512_maskz_unpackhi_epi64(all64, p01, p23));
    s = _mm512_add_epi32(s, _mm512_maskz_shuffle_i32x4(all32, s, s, _MM_SHUFFLE(1, 0, 3, 2)));
    s = _mm512_add_epi32(s, _mm512_maskz_shuffle_i32x4(all32, s, s, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm512_mask_extracti32x4_epi32(_mm_setzero_si128(), 0xF, s, 0);
  }
  // acc += Σ of 4 products a (u8) · b (s8) per int32 lane. In asm because
  // GCC 12 copies every accumulator of the intrinsic's form twice per K step
  // (32 register moves per 16 vpdpbusd at 4 x 4: a third of the kernel's
  // issue slots); "+v" keeps each accumulator in one register.
  __attribute__((target("avx512f,avx512vnni"), always_inline)) static inline __m512i dpbusd(__m512i acc, __m512i a,
                                                                                            __m512i b) {
    asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
    return acc;
  }
  // Σ_k b[k] modulo 2^32, 64 bytes per vpdpbusd against ones.
  __attribute__((target("avx512f,avx512bw,avx512vnni,avx2"))) static std::uint32_t row_sum(const std::int8_t* b,
                                                                                         std::size_t k) {
    __m512i acc = _mm512_setzero_si512();
    const __m512i ones = _mm512_set1_epi8(1);
    std::size_t kk = 0;
    for (; kk + 64 <= k; kk += 64) acc = dpbusd(acc, ones, _mm512_loadu_si512(b + kk));
    std::uint32_t sum = static_cast<std::uint32_t>(hsum(acc));
    for (; kk < k; ++kk) sum += static_cast<std::uint32_t>(std::int32_t{b[kk]});
    return sum;
  }
  template <std::size_t MR, std::size_t NR>
  __attribute__((target("avx512f,avx512bw,avx512vnni,avx2"))) static void run(const std::uint8_t* a, const std::int8_t* b,
                                                                         std::size_t stride, std::size_t kl,
                                                                         std::int32_t* c, std::size_t ldc, bool add,
                                                                         const std::int32_t* init) {
    __m512i acc[MR][NR];
    for (std::size_t i = 0; i < MR; ++i)
      for (std::size_t j = 0; j < NR; ++j) acc[i][j] = _mm512_setzero_si512();
    for (std::size_t k = 0; k < kl; k += 64) {
      __m512i bv[NR];
      for (std::size_t j = 0; j < NR; ++j) bv[j] = _mm512_loadu_si512(b + j * stride + k);
      for (std::size_t i = 0; i < MR; ++i) {
        const __m512i av = _mm512_loadu_si512(a + i * stride + k);
        for (std::size_t j = 0; j < NR; ++j) acc[i][j] = dpbusd(acc[i][j], av, bv[j]);
      }
    }
    if constexpr (NR == 4) {
      const __m128i base = init ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(init)) : _mm_setzero_si128();
      for (std::size_t i = 0; i < MR; ++i) {
        auto* row = reinterpret_cast<__m128i*>(c + i * ldc);
        const __m128i sum = hsum4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        _mm_storeu_si128(row, _mm_add_epi32(sum, add ? _mm_loadu_si128(row) : base));
      }
    } else {
      for (std::size_t i = 0; i < MR; ++i)
        for (std::size_t j = 0; j < NR; ++j)
          c[i * ldc + j] = wrap_add(c[i * ldc + j], hsum(acc[i][j]), add, init, j);
    }
  }
};
#endif

// c[m0..m1, n0..n1) over operands padded to kp, K blocked, B in panels.
template <class TA, class TB, std::size_t MR, std::size_t NR>
void block_range(const Kernel<TA, TB, MR, NR>& kernel, const TA* a, const TB* b, std::int32_t* c, std::size_t m0,
                 std::size_t m1, std::size_t n0, std::size_t n1, std::size_t n, std::size_t kp,
                 const std::int32_t* init) {
  for (std::size_t kb = 0; kb < kp; kb += kernel.kc) {
    const std::size_t kl = std::min(kernel.kc, kp - kb);
    for (std::size_t nb = n0; nb < n1; nb += kernel.nc) {
      const std::size_t ne = std::min(nb + kernel.nc, n1);
      for (std::size_t i = m0; i < m1; i += MR) {
        const std::size_t mr = std::min(MR, m1 - i);
        for (std::size_t j = nb; j < ne; j += NR) {
          const std::size_t nr = std::min(NR, ne - j);
          kernel.table[mr - 1][nr - 1](a + i * kp + kb, b + j * kp + kb, kp, kl, c + i * n + j, n, kb != 0,
                                       init ? init + j : nullptr);
        }
      }
    }
  }
}

// Splits the larger dimension across threads; every thread writes its own cells of c.
template <class TA, class TB, std::size_t MR, std::size_t NR>
void run_blocked(const Kernel<TA, TB, MR, NR>& kernel, const TA* a, const TB* b, std::int32_t* c, std::size_t m,
                 std::size_t n, std::size_t kp, unsigned threads, const std::int32_t* init = nullptr) {
  if (n >= m)
    parallel_ranges(n, threads, NR,
                    [&](std::size_t n0, std::size_t n1) { block_range(kernel, a, b, c, 0, m, n0, n1, n, kp, init); });
  else
    parallel_ranges(m, threads, MR,
                    [&](std::size_t m0, std::size_t m1) { block_range(kernel, a, b, c, m0, m1, 0, n, n, kp, init); });
}

// A packed operand, in huge pages (src/io/header_memory.hpp): on these VMs each
// first touch of a 4 KiB page costs about 13 µs, and B widened to int16 at
// N = K = 3072 is 18 MiB, 4,600 pages: more time in page faults than in
// widening. Filled by pack_rows, so never read uninitialised.
template <class T>
class Packed {
 public:
  explicit Packed(std::size_t count) : memory_(count * sizeof(T)) {}
  T* data() const { return reinterpret_cast<T*>(memory_.data()); }

 private:
  HeaderMemory memory_;
};

// dst [rows, kp] = f(src [rows, k]), zero padded; every element written once.
template <class T, class F>
void pack_rows(std::span<const std::int8_t> src, T* dst, std::size_t rows, std::size_t k, std::size_t kp,
               unsigned threads, F f) {
  parallel_ranges(rows, threads, 1, [&](std::size_t r0, std::size_t r1) {
    // Locals, not the captures: a byte store may alias anything, so through
    // the captured references the compiler reloaded src, dst and k after
    // every byte (a scalar loop: 14% of the VNNI GEMM on M = 512, K = 3072).
    const std::int8_t* const from = src.data();
    T* const to = dst;
    const std::size_t len = k, pitch = kp;
    for (std::size_t r = r0; r < r1; ++r) {
      const std::int8_t* s = from + r * len;
      T* d = to + r * pitch;
      for (std::size_t j = 0; j < len; ++j) d[j] = f(s[j]);
      std::fill(d + len, d + pitch, T{0});
    }
  });
}

void gemm_int16(GemmKernel kind, std::span<const std::int8_t> a, std::span<const std::int8_t> b, std::int32_t* c,
                std::size_t m, std::size_t n, std::size_t k, unsigned threads) {
  static constexpr auto kScalar = make_kernel<Scalar, std::int16_t, std::int16_t, 4, 2>(16, 1024, 128);
  const std::size_t kp = round_up(k, 16);
  Packed<std::int16_t> a16(m * kp), b16(n * kp);
  auto widen = [](std::int8_t v) { return std::int16_t{v}; };
  pack_rows(a, a16.data(), m, k, kp, threads, widen);
  pack_rows(b, b16.data(), n, k, kp, threads, widen);
#if SAFESPEC_HAVE_X86_KERNELS
  static constexpr auto kAvx2 = make_kernel<Avx2, std::int16_t, std::int16_t, 4, 2>(16, 1024, 128);
  if (kind == GemmKernel::Avx2) return run_blocked(kAvx2, a16.data(), b16.data(), c, m, n, kp, threads);
#endif
  (void)kind;
  run_blocked(kScalar, a16.data(), b16.data(), c, m, n, kp, threads);
}

#if SAFESPEC_HAVE_X86_KERNELS
void gemm_vnni(std::span<const std::int8_t> a, std::span<const std::int8_t> b, std::int32_t* c, std::size_t m,
               std::size_t n, std::size_t k, unsigned threads) {
  // 6 x 4: 24 accumulators, 4 B rows and 1 A row are 29 of the 32 zmm
  // registers, and B (streamed from L2) is read once per 6 rows of A. On the
  // Xeon of the W4A8 table of 3 December 2026 (docs/performance-2026-12-early.md),
  // 4 x 4 ran at 67-69% of the vpdpbusd peak, 6 x 4 at 62-85% (a noisy VM;
  // most runs above 75%), 8 x 4 (spilling) at 75-78%.
  static constexpr auto kVnni = make_kernel<Vnni512, std::uint8_t, std::int8_t, 6, 4>(64, 4096, 128);
  const std::size_t kp = round_up(k, 64);
  Packed<std::uint8_t> a8(m * kp);
  pack_rows(a, a8.data(), m, k, kp, threads, [](std::int8_t v) { return static_cast<std::uint8_t>(v ^ 0x80); });
  Packed<std::int8_t> b8(kp != k ? n * kp : 0);
  const std::int8_t* bp = b.data();
  if (kp != k) {  // zero padding: a padded column of B contributes nothing
    pack_rows(b, b8.data(), n, k, kp, threads, [](std::int8_t v) { return v; });
    bp = b8.data();
  }
  std::vector<std::int32_t> unbias(n);  // -128 · Σ_k b[j, k], modulo 2^32: each c's starting value
  parallel_ranges(n, threads, 1, [&](std::size_t n0, std::size_t n1) {
    for (std::size_t j = n0; j < n1; ++j)
      unbias[j] = static_cast<std::int32_t>(0u - Vnni512::row_sum(b.data() + j * k, k) * 128u);
  });
  run_blocked(kVnni, a8.data(), bp, c, m, n, kp, threads, unbias.data());
}
#endif

}  // namespace

bool avx2_available() {
#if SAFESPEC_HAVE_X86_KERNELS
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

bool avx512_vnni_available() {
#if SAFESPEC_HAVE_X86_KERNELS
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

bool avx512f_available() {
#if SAFESPEC_HAVE_X86_KERNELS
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

GemmKernel resolve_kernel(GemmKernel requested) {
  if (requested == GemmKernel::Scalar) return GemmKernel::Scalar;
  if (requested != GemmKernel::Avx2 && avx512_vnni_available()) return GemmKernel::Avx512Vnni;
  return avx2_available() ? GemmKernel::Avx2 : GemmKernel::Scalar;
}

const char* kernel_name(GemmKernel kernel) {
  switch (kernel) {
    case GemmKernel::Auto: return "auto";
    case GemmKernel::Scalar: return "scalar";
    case GemmKernel::Avx2: return "AVX2 vpmaddwd";
    case GemmKernel::Avx512Vnni: return "AVX-512 VNNI vpdpbusd";
  }
  return "?";
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
  const std::size_t ranges = (count + chunk - 1) / chunk;
  parallel_for(ranges, static_cast<unsigned>(ranges), [&](std::size_t r, unsigned) {
    body(r * chunk, std::min(count, (r + 1) * chunk));
  });
}

void gemm_s8s8s32(std::span<const std::int8_t> a, std::span<const std::int8_t> b, std::span<std::int32_t> c,
                  std::size_t m, std::size_t n, std::size_t k, const GemmConfig& config) {
  if (a.size() < m * k || b.size() < n * k || c.size() < m * n || m == 0 || n == 0) return;
  if (k == 0) {
    std::fill(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(m * n), 0);
    return;
  }
  const unsigned threads = resolve_threads(config.threads);
  const GemmKernel kind = resolve_kernel(config.kernel);
#if SAFESPEC_HAVE_X86_KERNELS
  if (kind == GemmKernel::Avx512Vnni) return gemm_vnni(a, b, c.data(), m, n, k, threads);
#endif
  gemm_int16(kind, a, b, c.data(), m, n, k, threads);
}

}  // namespace safespec::numerics
