#include "src/numerics/w4a8_fast.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cmath>
#include <span>

#include "spec/numerics/exact_sum.hpp"
#include "src/io/header_memory.hpp"
#include "src/numerics/epilogue_lanes.hpp"
#include "src/numerics/hadamard_fast.hpp"
#include "src/numerics/rotate_cuda_fast.hpp"
#include "src/numerics/w4a8_lanes.hpp"

namespace safespec::numerics {

namespace {

// ---- per-row activation quantization ----

struct RowState {
  float amax = 0, xs = 0, divisor = 0;
};

RowState quantize_row(std::span<const float> x_row, std::span<float> rotated, std::span<std::int8_t> xq,
                      std::size_t c, FloatType tx, const W4a8Options& o, bool avx2, RotateLanes rotate_lanes,
                      std::vector<float>& fscratch, FhtScratch& dscratch) {
  RowState st;
  if (o.semantics == Semantics::Cuda) {
    const CudaF32 f32{o.cuda_flush_subnormals};
    std::copy(x_row.begin(), x_row.end(), rotated.begin());  // cuda.2: exact
    fscratch.resize(c);
    for (std::size_t b = 0; b < rotated.size(); b += c)
      rotate_cuda_block(rotated.subspan(b, c), fscratch, o.cuda_flush_subnormals, rotate_lanes);
    st.amax = avx2 ? lanes::amax_avx2(rotated) : lanes::amax_scalar(rotated);  // cuda.4
    st.xs = activation_scale_cuda(st.amax, tx, f32);   // cuda.5
    st.divisor = round_to(tx, st.xs);                  // cuda.6, zero kept
    if (!avx2 || !lanes::quantize_cuda_avx2(rotated, st.divisor, tx, o.cuda_flush_subnormals, xq))
      lanes::quantize_cuda_scalar(rotated, st.divisor, tx, o.cuda_flush_subnormals, xq);
  } else {
    for (std::size_t b = 0; b < x_row.size(); b += c)  // eager.2
      rotate_eager_block(x_row.subspan(b, c), tx, dscratch, rotated.data() + b);
    st.amax = amax_eager(rotated);                          // eager.3
    st.xs = activation_scale_eager(st.amax, o.eager_scale);  // eager.4
    st.divisor = divisor_eager(st.xs, tx);                   // eager.5
    for (std::size_t i = 0; i < rotated.size(); ++i) xq[i] = quantize_eager(rotated[i], st.divisor, tx);  // eager.6
  }
  return st;
}

// cuda.10 as correction_cuda: y + Σ_g u_g · c_g rounded once to T_o, with
// u_g = T_o(T_o(S_g) · T_o(xs)) per row and c_g = T_o(corr[g, n]).
float correct(float y, std::span<const float> u, const std::vector<float>& corr_o, std::size_t n_stride,
              std::size_t n, FloatType to, std::vector<double>& terms) {
  terms.clear();
  BitSpan span;
  terms.push_back(y);
  span.add(y);
  for (std::size_t g = 0; g < u.size(); ++g) {
    const double p = static_cast<double>(u[g]) * static_cast<double>(corr_o[g * n_stride + n]);  // exact
    terms.push_back(p);
    span.add(p);
  }
  if (span.exact_sum(terms.size())) {
    double s = 0.0;
    bool first = true;
    for (double t : terms) {
      s = first ? t : s + t;  // a sequential IEEE sum of exact terms: ExactSum's signed-zero rule
      first = false;
    }
    return round_double_to(to, s);
  }
  ExactSum sum;
  for (double t : terms) sum.add(t);
  return sum.rounded(to);
}

// W4A8.1: Wq = decode_weight_element(code, s, codebook, bits), a pure
// function of its arguments; the codebook and bits are the layer's, so the
// 16 (64 at 6 bits) values for one scale bit pattern are computed once (by
// that function) and kept in a small direct-mapped cache. Each byte holds
// columns 2j (low nibble) and 2j + 1 (high), as unpack_codes; G is even, so
// both are in one group.
class DecodeCache {
 public:
  DecodeCache(const std::optional<std::array<float, 16>>& codebook, std::size_t bits)
      : codebook_(codebook), bits_(bits) {}
  const std::int8_t* table(float s) {
    const std::uint32_t key = std::bit_cast<std::uint32_t>(s);
    const std::size_t slot = (key * 2654435761u) >> 24;  // Fibonacci hash to 8 bits
    Entry& e = entries_[slot];
    if (!e.valid || e.key != key) {
      const unsigned codes = 1u << bits_;
      for (unsigned code = 0; code < codes; ++code)
        e.values[code] = decode_weight_element(static_cast<std::uint8_t>(code), s, codebook_, bits_);
      e.key = key;
      e.valid = true;
    }
    return e.values;
  }

 private:
  struct Entry {
    std::uint32_t key = 0;
    bool valid = false;
    std::int8_t values[64] = {};
  };
  const std::optional<std::array<float, 16>>& codebook_;
  std::size_t bits_;
  Entry entries_[256];
};

// W4a8FastConfig::phases: each mark() charges the time since the last to one
// phase. Without a target no clock is read.
class PhaseClock {
 public:
  explicit PhaseClock(W4a8PhaseTimes* target) : target_(target) {
    if (target_ != nullptr) {
      *target_ = {};
      last_ = std::chrono::steady_clock::now();
    }
  }
  void mark(double W4a8PhaseTimes::*phase) {
    if (target_ == nullptr) return;
    const auto now = std::chrono::steady_clock::now();
    target_->*phase += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  W4a8PhaseTimes* target_;
  std::chrono::steady_clock::time_point last_{};
};

// One untraced call's intermediates (Wq, xq, the int32 sums) in huge pages
// (src/io/header_memory.hpp): on these VMs each first touch of a 4 KiB page
// costs about 13 µs, and at M = 512, K = N = 3072 these are 22 MiB, 5,600
// pages, more time than decoding or quantizing them. Every element is
// written before it is read (decode, quantization and the GEMM fill them).
class Intermediates {
 public:
  Intermediates(std::size_t wq, std::size_t xq, std::size_t acc)
      : wq_(wq), xq_(xq), acc_(acc * sizeof(std::int32_t)) {}
  std::int8_t* wq() const { return reinterpret_cast<std::int8_t*>(wq_.data()); }
  std::int8_t* xq() const { return reinterpret_cast<std::int8_t*>(xq_.data()); }
  std::int32_t* acc() const { return reinterpret_cast<std::int32_t*>(acc_.data()); }

 private:
  HeaderMemory wq_, xq_, acc_;
};

// validate(l, x, o), with its element loop (every x representable in x's
// dtype) done first in vector lanes where they are on. When that scan passes
// and x has exactly M·K values, validate on an empty x (M = 0) returns what
// validate on x would: the checks run in the same order, x's size check
// passes both ways, and the element loop would find nothing. Otherwise
// validate runs on x itself, so every Error is the reference's.
Status validate_fast(const W4a8Layer& l, const Activations& x, const W4a8Options& o, bool avx2) {
  const bool sized = l.k == 0 ? x.values.empty() : x.values.size() % l.k == 0 && x.values.size() / l.k == x.m;
  if (!avx2 || !sized || !lanes::all_representable_avx2(x.dtype, x.values)) return validate(l, x, o);
  return validate(l, Activations{0, x.dtype, {}}, o);
}

}  // namespace

void decode_weight_rows(const W4a8Layer& l, std::size_t n0, std::size_t n1, std::int8_t* wq, GemmKernel kernel) {
  const std::size_t g_size = l.group_size, groups = l.k / g_size, half = l.k / 2;
  const auto decode_group = lanes::use_avx2(kernel) ? lanes::decode_group_avx2 : lanes::decode_group_scalar;
  DecodeCache cache(l.codebook, l.bits);
  if (l.bits == 6) {  // W6A8: the reference's weight_code per element, behind the cache
    const std::size_t row_bytes = l.k * 6 / 8;
    for (std::size_t n = n0; n < n1; ++n) {
      const std::span<const std::uint8_t> row(l.weight.data() + n * row_bytes, row_bytes);
      std::int8_t* out = wq + (n - n0) * l.k;
      for (std::size_t g = 0; g < groups; ++g) {
        const std::int8_t* table = cache.table(l.s_rel[n * groups + g]);
        for (std::size_t k = g * g_size; k < (g + 1) * g_size; ++k) out[k] = table[weight_code(row, l.k, k, 6)];
      }
    }
    return;
  }
  for (std::size_t n = n0; n < n1; ++n)
    for (std::size_t g = 0; g < groups; ++g) {
      const std::int8_t* table = cache.table(l.s_rel[n * groups + g]);
      const std::uint8_t* bytes = &l.weight[n * half + g * g_size / 2];
      std::int8_t* out = wq + (n - n0) * l.k + g * g_size;
      decode_group(table, bytes, g_size / 2, out);
    }
}

void decode_weights(const W4a8Layer& l, std::vector<std::int8_t>& wq, unsigned threads, GemmKernel kernel) {
  wq.resize(l.n * l.k);
  parallel_ranges(l.n, threads, 1,
                  [&](std::size_t n0, std::size_t n1) { decode_weight_rows(l, n0, n1, wq.data() + n0 * l.k, kernel); });
}

float round_double_to(FloatType t, double e) {
  const float f = static_cast<float>(e);  // RNE, overflow to ±inf
  if (t == FloatType::F32 || std::isnan(e) || static_cast<double>(f) == e) return round_to(t, f);
  // Round to odd at binary32 precision (truncate, then set the last bit),
  // then RNE to T: with 24 >= p + 2 bits, and binary32 covering T's exponent
  // range including its subnormals, this equals one RNE to T (Boldo and
  // Melquiond's round-to-odd theorem).
  const float truncated = std::fabs(static_cast<double>(f)) > std::fabs(e) ? std::nextafter(f, 0.0f) : f;
  return round_to(t, std::bit_cast<float>(std::bit_cast<std::uint32_t>(truncated) | 1u));
}

Result<W4a8Output> w4a8_linear_fast(const W4a8Layer& l, const Activations& x, const W4a8Options& o,
                                    const W4a8FastConfig& config) {
  if (o.semantics == Semantics::Eager && l.correction) return w4a8_linear(l, x, o);  // eager.C1-C4
  PhaseClock clock(config.phases);
  const bool avx2 = config.vector_lanes && lanes::use_avx2(config.kernel);
  // cuda.3 in 16 lanes where the CPU has them and the kernel asked for allows
  // them; in SSE otherwise, as before vector_lanes existed (its baseline).
  const bool wide =
      config.vector_lanes && (config.kernel == GemmKernel::Auto || config.kernel == GemmKernel::Avx512Vnni);
  const RotateLanes rotate_lanes = resolve_rotate_lanes(wide ? RotateLanes::Avx512 : RotateLanes::Sse);
  if (Status s = validate_fast(l, x, o, avx2); !s) return s.error();
  clock.mark(&W4a8PhaseTimes::validate);
  const FloatType to = o.out_dtype.value_or(x.dtype);
  const bool cuda = o.semantics == Semantics::Cuda;
  const bool trace = o.record_trace;
  const unsigned threads = resolve_threads(config.threads);
  const std::size_t M = x.m, N = l.n, K = l.k, C = l.convrot_groupsize, G = l.group_size;
  const std::size_t groups = K / G;

  // Intermediates: the trace's vectors when it is recorded, else huge-page
  // scratch (Intermediates) and one rotated row per thread.
  W4a8Trace t;
  Intermediates im(trace ? 0 : N * K, trace ? 0 : M * K, trace ? 0 : M * N);
  if (trace) {
    t.wq.resize(N * K);
    t.rotated.resize(M * K);
    t.xq.resize(M * K);
    t.acc.resize(M * N);
  }
  std::int8_t* const wq = trace ? t.wq.data() : im.wq();
  std::int8_t* const xq = trace ? t.xq.data() : im.xq();
  std::int32_t* const acc = trace ? t.acc.data() : im.acc();

  parallel_ranges(N, threads, 1, [&](std::size_t n0, std::size_t n1) {  // W4A8.1
    decode_weight_rows(l, n0, n1, wq + n0 * K, avx2 ? config.kernel : GemmKernel::Scalar);
  });
  clock.mark(&W4a8PhaseTimes::decode);

  t.amax.resize(M);
  t.xs.resize(M);
  t.divisor.resize(M);
  parallel_ranges(M, threads, 1, [&](std::size_t m0, std::size_t m1) {
    std::vector<float> fscratch, row(trace ? 0 : K);
    FhtScratch dscratch;
    for (std::size_t m = m0; m < m1; ++m) {
      const std::span<float> rotated = trace ? std::span<float>(t.rotated).subspan(m * K, K) : std::span<float>(row);
      const RowState st = quantize_row(std::span<const float>(x.values).subspan(m * K, K), rotated,
                                       std::span<std::int8_t>(xq + m * K, K), C, x.dtype, o, avx2, rotate_lanes,
                                       fscratch, dscratch);
      t.amax[m] = st.amax;
      t.xs[m] = st.xs;
      t.divisor[m] = st.divisor;
    }
  });
  clock.mark(&W4a8PhaseTimes::quantize);

  gemm_s8s8s32({xq, M * K}, {wq, N * K}, {acc, M * N}, M, N, K, GemmConfig{threads, config.kernel});  // cuda.7 / eager.7
  clock.mark(&W4a8PhaseTimes::gemm);

  std::vector<float> corr_o;
  if (cuda && l.correction) {
    corr_o.resize(groups * N);
    for (std::size_t i = 0; i < corr_o.size(); ++i) corr_o[i] = round_to(to, (*l.correction)[i]);
  }
  if (!corr_o.empty()) t.y_epilogue.resize(M * N);
  t.y.resize(M * N);
  parallel_ranges(M, threads, 1, [&](std::size_t m0, std::size_t m1) {
    std::vector<float> u(corr_o.empty() ? 0 : groups);
    std::vector<double> terms;
    for (std::size_t m = m0; m < m1; ++m) {
      const float xs = t.xs[m];
      if (!corr_o.empty()) {
        const float xs_o = round_to(to, xs);
        for (std::size_t g = 0; g < groups; ++g) {
          std::int32_t s = 0;
          for (std::size_t kk = g * G; kk < (g + 1) * G; ++kk) s += xq[m * K + kk];
          const float s_o = round_to(to, static_cast<float>(s));
          const float prod = s_o * xs_o;  // one binary32 product, rounded to T_o below
          u[g] = round_to(to, prod);
        }
      }
      // cuda.10 runs on cuda.9's T_o output; y_epilogue keeps that output.
      const std::span<float> y_row = std::span<float>(corr_o.empty() ? t.y : t.y_epilogue).subspan(m * N, N);
      const std::span<const std::int32_t> acc_row(acc + m * N, N);
      if (cuda) {
        const EpilogueRow row{acc_row, xs, l.s_channel, l.bias ? l.bias->data() : nullptr, o.cuda_fma_epilogue,
                              o.cuda_flush_subnormals, to};
        if (!wide || !epilogue_cuda_avx512(row, y_row)) epilogue_cuda_portable(row, y_row);
      } else {
        for (std::size_t n = 0; n < N; ++n)
          y_row[n] = epilogue_eager(acc_row[n], xs, l.s_channel[n],
                                    l.bias ? std::optional<float>((*l.bias)[n]) : std::nullopt, to);
      }
      if (!corr_o.empty())
        for (std::size_t n = 0; n < N; ++n) t.y[m * N + n] = correct(y_row[n], u, corr_o, N, n, to, terms);
    }
  });
  clock.mark(&W4a8PhaseTimes::epilogue);

  W4a8Output out;
  out.out_dtype = to;
  if (trace) {
    if (corr_o.empty()) t.y_epilogue = t.y;
    out.y = t.y;
    out.trace = std::move(t);
  } else {
    out.y = std::move(t.y);
  }
  return out;
}

}  // namespace safespec::numerics
