// The fast W4A8 linear against the reference, in one run, to show the fast
// path's speed-up: M = 512, K = 3072, N = 3072, BF16 activations and output,
// cuda semantics, E4M3 group scales (G = 64), no codebook, correction or bias.
//
// The reference runs at M = 512 too (two iterations, about 2 s each); the
// speed-up is against that time. As a cross-check it also runs at M = 8 and
// M = 32, and the summary prints the linear extrapolation t(M) = a + b·M
// through those two points (a: the per-call weight decode, b: one row's
// rotation, quantization, N·K dot products and epilogues).
//
// The fast path runs twice: as it is, and with W4a8FastConfig::vector_lanes
// off (validation, weight decode, activation quantization and the epilogue in
// their portable loops, the rotation in SSE, the GEMM the same): the second is the baseline the first's
// speed-up is measured against in the same process. Both report their phases
// (W4a8FastConfig::phases): validate, decode, quantize, GEMM, epilogue, each
// the mean over the timed iterations.
//
// Integer operations: 2·M·N·K (one multiply and one add per weight and row).
// Peak: register-only loops run on as many threads as the fast path uses,
// each reporting 2 · multiply-adds per second: AVX2 vpmaddubsw + vpmaddwd +
// vpaddd (32 int8 multiply-adds per vpmaddubsw, six accumulators), AVX2
// vpmaddwd + vpaddd (16 int16 multiply-adds, the AVX2 GEMM's instruction),
// and, where the CPU has it, AVX-512 VNNI vpdpbusd (64 int8 multiply-adds,
// the VNNI GEMM's instruction). The machine's int8 peak is the largest.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <thread>
#include <vector>

#include "spec/number_formats.hpp"
#include "src/numerics/w4a8_fast.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SAFESPEC_BENCH_AVX2 1
#else
#define SAFESPEC_BENCH_AVX2 0
#endif

namespace {

using namespace safespec::numerics;

constexpr std::size_t kM = 512, kK = 3072, kN = 3072;

std::map<std::string, double> g_seconds;  // per iteration, by name
std::map<std::string, double> g_ops;      // integer ops per iteration, by name
std::map<std::string, double> g_best;     // the fastest run's, by name
std::map<std::string, std::vector<double>> g_runs;  // every run's, by name
std::map<std::string, W4a8PhaseTimes> g_phases;  // mean per iteration, by name

const W4a8Layer& layer() {
  static const W4a8Layer l = [] {
    W4a8Layer w;
    w.n = kN;
    w.k = kK;
    w.group_size = 64;
    w.convrot_groupsize = 256;
    std::uint32_t s = 12345;
    auto next = [&s] { return s = s * 1664525u + 1013904223u, static_cast<std::uint8_t>(s >> 24); };
    w.weight.resize(kN * kK / 2);
    for (auto& b : w.weight) b = next();
    w.s_rel.resize(kN * kK / 64);
    for (auto& v : w.s_rel) v = safespec::num::decode_e4m3fn(static_cast<std::uint8_t>(0x30 + next() % 32));
    w.s_channel.resize(kN);
    for (auto& v : w.s_channel) v = std::ldexp(1.0f + static_cast<float>(next()) / 256.0f, -9);
    return w;
  }();
  return l;
}

Activations input(std::size_t m) {
  Activations x;
  x.m = m;
  x.dtype = safespec::numerics::FloatType::BF16;
  std::uint32_t s = 777;
  for (std::size_t i = 0; i < m * kK; ++i) {
    s = s * 1664525u + 1013904223u;
    x.values.push_back(round_to(x.dtype, static_cast<float>(static_cast<std::int32_t>(s) >> 16) / 4096.0f));
  }
  return x;
}

template <class F>
void timed(benchmark::State& state, const std::string& name, double ops, F&& body) {
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) body();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  g_seconds[name] = seconds / static_cast<double>(state.iterations());
  g_runs[name].push_back(g_seconds[name]);
  if (!g_best.contains(name) || g_seconds[name] < g_best[name]) g_best[name] = g_seconds[name];
  g_ops[name] = ops;
  state.counters["int_ops_per_s"] = benchmark::Counter(ops, benchmark::Counter::kIsIterationInvariantRate);
}

// range(0): vector lanes on (1) or off (0). Runs alternate, and each name
// keeps its fastest run (the machine is shared: the minimum is the least
// disturbed) and that run's phases.
void BM_W4a8Fast(benchmark::State& state) {
  const Activations x = input(kM);
  const bool vector_lanes = state.range(0) != 0;
  const std::string name = vector_lanes ? "fast" : "fast_portable_lanes";
  W4a8PhaseTimes one, sum;
  W4a8FastConfig config;
  config.vector_lanes = vector_lanes;
  config.phases = &one;
  timed(state, name, 2.0 * kM * kN * kK, [&] {
    auto y = w4a8_linear_fast(layer(), x, {}, config);
    if (!y.ok()) state.SkipWithError("fast path refused the layer");
    benchmark::DoNotOptimize(y);
    sum.validate += one.validate, sum.decode += one.decode, sum.quantize += one.quantize;
    sum.gemm += one.gemm, sum.epilogue += one.epilogue;
  });
  const double n = static_cast<double>(state.iterations());
  if (g_seconds[name] != g_best[name]) return;  // not this name's fastest run
  g_phases[name] = {sum.validate / n, sum.decode / n, sum.quantize / n, sum.gemm / n, sum.epilogue / n};
}

void BM_Int8Gemm(benchmark::State& state) {  // the GEMM alone, on the same shapes
  std::vector<std::int8_t> a(kM * kK), b(kN * kK);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::int8_t>(i * 7 % 255 - 127);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::int8_t>(i * 13 % 255 - 127);
  std::vector<std::int32_t> c(kM * kN);
  timed(state, "gemm", 2.0 * kM * kN * kK, [&] {
    gemm_s8s8s32(a, b, c, kM, kN, kK);
    benchmark::DoNotOptimize(c.data());
  });
}

void BM_W4a8Reference(benchmark::State& state) {
  const std::size_t m = static_cast<std::size_t>(state.range(0));
  const Activations x = input(m);
  timed(state, "reference_m" + std::to_string(m), 2.0 * static_cast<double>(m) * kN * kK, [&] {
    auto y = w4a8_linear(layer(), x);
    if (!y.ok()) state.SkipWithError("reference refused the layer");
    benchmark::DoNotOptimize(y);
  });
}

#if SAFESPEC_BENCH_AVX2
constexpr long kPeakIterations = 20'000'000;

// 6 · 32 int8 multiply-adds per iteration; 2 ops each.
__attribute__((target("avx2"))) long peak_maddubs_thread() {
  __m256i a = _mm256_set1_epi8(3);
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i b0 = _mm256_set1_epi8(1), b1 = _mm256_set1_epi8(2), b2 = _mm256_set1_epi8(-3),
                b3 = _mm256_set1_epi8(4), b4 = _mm256_set1_epi8(-5), b5 = _mm256_set1_epi8(6);
  __m256i c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0;
  for (long i = 0; i < kPeakIterations; ++i) {
    __asm__ volatile("" : "+x"(a));  // a "changes": nothing is hoisted out of the loop
    c0 = _mm256_add_epi32(c0, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b0), ones));
    c1 = _mm256_add_epi32(c1, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b1), ones));
    c2 = _mm256_add_epi32(c2, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b2), ones));
    c3 = _mm256_add_epi32(c3, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b3), ones));
    c4 = _mm256_add_epi32(c4, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b4), ones));
    c5 = _mm256_add_epi32(c5, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b5), ones));
  }
  const __m256i s = _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(c0, c1), _mm256_add_epi32(c2, c3)),
                                     _mm256_add_epi32(c4, c5));
  return _mm256_extract_epi32(s, 0);
}

// 6 · 16 int16 multiply-adds per iteration (vpmaddwd + vpaddd).
__attribute__((target("avx2"))) long peak_maddwd_thread() {
  __m256i a = _mm256_set1_epi16(3);
  const __m256i b0 = _mm256_set1_epi16(1), b1 = _mm256_set1_epi16(2), b2 = _mm256_set1_epi16(-3),
                b3 = _mm256_set1_epi16(4), b4 = _mm256_set1_epi16(-5), b5 = _mm256_set1_epi16(6);
  __m256i c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0;
  for (long i = 0; i < kPeakIterations; ++i) {
    __asm__ volatile("" : "+x"(a));
    c0 = _mm256_add_epi32(c0, _mm256_madd_epi16(a, b0));
    c1 = _mm256_add_epi32(c1, _mm256_madd_epi16(a, b1));
    c2 = _mm256_add_epi32(c2, _mm256_madd_epi16(a, b2));
    c3 = _mm256_add_epi32(c3, _mm256_madd_epi16(a, b3));
    c4 = _mm256_add_epi32(c4, _mm256_madd_epi16(a, b4));
    c5 = _mm256_add_epi32(c5, _mm256_madd_epi16(a, b5));
  }
  const __m256i s = _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(c0, c1), _mm256_add_epi32(c2, c3)),
                                     _mm256_add_epi32(c4, c5));
  return _mm256_extract_epi32(s, 0);
}

// 8 · 64 int8 multiply-adds per iteration (AVX-512 VNNI vpdpbusd, 8 chains to cover its latency).
// Each chain has its own b: with one b for all eight, the chains were the
// same value, and GCC computed one and doubled it three times after the loop
// (one vpdpbusd an iteration, its latency, counted as eight: on Zen 4 the
// "peak" came out twice the instruction's throughput, and every share of it
// half what it is). The maddubs and maddwd loops above already had six b's.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) long peak_vnni_thread() {
  __m512i a = _mm512_set1_epi8(3);
  const __m512i b0 = _mm512_set1_epi8(1), b1 = _mm512_set1_epi8(-2), b2 = _mm512_set1_epi8(3),
                b3 = _mm512_set1_epi8(-4), b4 = _mm512_set1_epi8(5), b5 = _mm512_set1_epi8(-6),
                b6 = _mm512_set1_epi8(7), b7 = _mm512_set1_epi8(-8);
  __m512i c0 = _mm512_setzero_si512(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
  for (long i = 0; i < kPeakIterations; ++i) {
    __asm__ volatile("" : "+v"(a));
    c0 = _mm512_dpbusd_epi32(c0, a, b0);
    c1 = _mm512_dpbusd_epi32(c1, a, b1);
    c2 = _mm512_dpbusd_epi32(c2, a, b2);
    c3 = _mm512_dpbusd_epi32(c3, a, b3);
    c4 = _mm512_dpbusd_epi32(c4, a, b4);
    c5 = _mm512_dpbusd_epi32(c5, a, b5);
    c6 = _mm512_dpbusd_epi32(c6, a, b6);
    c7 = _mm512_dpbusd_epi32(c7, a, b7);
  }
  const __m512i s = _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(c0, c1), _mm512_add_epi32(c2, c3)),
                                     _mm512_add_epi32(_mm512_add_epi32(c4, c5), _mm512_add_epi32(c6, c7)));
  std::int32_t lanes[16];
  _mm512_storeu_si512(lanes, s);
  return lanes[0];
}

template <long (*Kernel)(), long MacsPerIteration, int Which>
void BM_Peak(benchmark::State& state) {
  const unsigned threads = resolve_threads(0);
  const std::string name = Which == 0 ? "peak_maddubs" : Which == 1 ? "peak_maddwd" : "peak_vnni";
  if (Which == 2 ? !avx512_vnni_available() : !avx2_available()) {
    state.SkipWithError("instruction set not available");
    return;
  }
  timed(state, name, 2.0 * MacsPerIteration * kPeakIterations * threads, [&] {
    std::vector<std::thread> pool;
    std::vector<long> sink(threads);
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back([&sink, t] { sink[t] = Kernel(); });
    for (auto& t : pool) t.join();
    benchmark::DoNotOptimize(sink.data());
  });
  state.counters["threads"] = threads;
}
BENCHMARK(BM_Peak<peak_maddubs_thread, 6 * 32, 0>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Peak<peak_maddwd_thread, 6 * 16, 1>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Peak<peak_vnni_thread, 8 * 64, 2>)->Unit(benchmark::kMillisecond)->UseRealTime();
#endif

BENCHMARK(BM_W4a8Fast)->Arg(0)->Arg(1)->Arg(0)->Arg(1)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_Int8Gemm)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_W4a8Reference)->Arg(8)->Arg(32)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);
BENCHMARK(BM_W4a8Reference)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

void summary() {
  auto get = [](const char* k) { auto it = g_best.find(k); return it == g_best.end() ? 0.0 : it->second; };
  const double fast = get("fast"), gemm = get("gemm"), r8 = get("reference_m8"), r32 = get("reference_m32");
  const double r512 = get("reference_m512");
  const double per_row = (r32 - r8) / 24.0, fixed = r8 - 8 * per_row, extrapolated = fixed + per_row * kM;
  const double ops = 2.0 * kM * kN * kK;
  std::printf("\n--- W4A8 M=%zu K=%zu N=%zu BF16 cuda, %u threads, GEMM kernel %s ---\n", kM, kK, kN,
              resolve_threads(0), kernel_name(resolve_kernel(GemmKernel::Auto)));
  if (fast > 0) std::printf("fast path        %9.1f ms  %7.1f Gop/s\n", fast * 1e3, ops / fast / 1e9);
  if (gemm > 0) std::printf("int8 GEMM alone  %9.1f ms  %7.1f Gop/s\n", gemm * 1e3, ops / gemm / 1e9);
  if (r512 > 0) std::printf("reference        %9.1f ms  %7.1f Gop/s (measured at M=512)\n", r512 * 1e3, ops / r512 / 1e9);
  if (r8 > 0 && r32 > 0)
    std::printf("reference, extrapolated from M=8 (%.1f ms) and M=32 (%.1f ms): %.1f ms (%.1f ms/call + %.2f ms/row)\n",
                r8 * 1e3, r32 * 1e3, extrapolated * 1e3, fixed * 1e3, per_row * 1e3);
  if (fast > 0 && r512 > 0) std::printf("speed-up         %9.1fx\n", r512 / fast);
  const double base = get("fast_portable_lanes");
  if (base > 0) std::printf("portable lanes   %9.1f ms  %7.1f Gop/s (baseline: validation, decode, quantization, epilogue unvectorized)\n", base * 1e3, ops / base / 1e9);
  if (fast > 0 && base > 0) std::printf("fast / baseline  %9.2fx faster (fastest runs)\n", base / fast);
  for (const char* p : {"fast_portable_lanes", "fast"}) {
    std::vector<double> runs = g_runs[p];
    if (runs.empty()) continue;
    std::sort(runs.begin(), runs.end());
    std::printf("%-20s runs: min %.1f ms, median %.1f ms, max %.1f ms (%zu runs)\n", p, runs.front() * 1e3,
                runs[runs.size() / 2] * 1e3, runs.back() * 1e3, runs.size());
  }
  std::printf("phases (ms)       validate   decode quantize     gemm epilogue\n");
  for (const char* p : {"fast_portable_lanes", "fast"}) {
    const auto it = g_phases.find(p);
    if (it == g_phases.end()) continue;
    const W4a8PhaseTimes& t = it->second;
    std::printf("%-16s %9.2f %8.2f %8.2f %8.2f %8.2f\n", p, t.validate * 1e3, t.decode * 1e3, t.quantize * 1e3,
                t.gemm * 1e3, t.epilogue * 1e3);
  }
  for (const char* p : {"peak_maddubs", "peak_maddwd", "peak_vnni"}) {
    const double t = get(p);
    if (t <= 0) continue;
    const double peak = g_ops[p] / t;
    std::printf("%-16s %9.1f Gop/s  fast path at %.0f%%, GEMM at %.0f%%\n", p, peak / 1e9,
                fast > 0 ? 100 * ops / fast / peak : 0.0, gemm > 0 ? 100 * ops / gemm / peak : 0.0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  summary();
  return 0;
}
