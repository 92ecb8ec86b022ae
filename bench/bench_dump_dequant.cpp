// `safespec linear`, `linear --dump` and `dequant` on the same layer, as a
// user runs them (dump and dequant within 2x of linear, as
// whole processes): each iteration spawns the built `safespec` binary, cold
// (a new process; the layer file stays in the page cache), and waits for it.
// The same commands also run in-process (run_linear / run_dequant: the same
// work without the process start). Counters: dump/linear and
// dequant/linear, the ratio of this benchmark's time to linear's on the same
// layer in the same mode; us/weight; and, for processes, the child's CPU
// seconds (user + system), steadier than wall time on a busy machine.
//
// Layers, written once into a temporary folder (removed at exit):
// - W4A8 (asym_w4a8_int8) from `safespec vectors`' generator: M = 16,
//   N = K = 4096, G = 128, C = 256, BF16; with SAFESPEC_BENCH_LARGE=1 also
//   N = 14336 (the issue's 4096 x 14336 layer);
// - every other format at N = K = 4096, dequantized only (fp8 e4m3/e5m2,
//   int8 with and without ConvRot, W4A4, nvfp4, mxfp8, AWQ).
// SAFESPEC_BENCH_BIN=path times another safespec binary (an older build, for
// before/after numbers); the layers do not depend on it.
#include <benchmark/benchmark.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "spec/number_formats.hpp"
#include "src/commands/linear.hpp"
#include "src/commands/vectors.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using safespec::Dtype;
using safespec::NamedTensor;

const fs::path& work_dir() {
  static const fs::path dir = [] {
    std::string tmpl = (fs::temp_directory_path() / "safespec-bench-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    return fs::path(tmpl);
  }();
  return dir;
}

std::string binary() {
  const char* env = std::getenv("SAFESPEC_BENCH_BIN");
  return env && *env ? env : SAFESPEC_BINARY;
}

// ---- layers ----

struct Bytes {
  std::uint64_t state;
  std::uint8_t next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint8_t>(state >> 56);
  }
  std::vector<std::uint8_t> take(std::size_t n, std::uint8_t (*shape)(std::uint8_t) = nullptr) {
    std::vector<std::uint8_t> v(n);
    for (auto& b : v) b = shape ? shape(next()) : next();
    return v;
  }
};

std::vector<std::uint8_t> f32_bytes(const std::vector<float>& v) {
  std::vector<std::uint8_t> out(v.size() * 4);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto u = std::bit_cast<std::uint32_t>(v[i]);
    for (int b = 0; b < 4; ++b) out[4 * i + b] = static_cast<std::uint8_t>(u >> (8 * b));
  }
  return out;
}

std::vector<std::uint8_t> f16_bytes(const std::vector<float>& v) {
  std::vector<std::uint8_t> out(v.size() * 2);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint16_t u = safespec::num::f32_to_f16(v[i]);
    out[2 * i] = static_cast<std::uint8_t>(u);
    out[2 * i + 1] = static_cast<std::uint8_t>(u >> 8);
  }
  return out;
}

std::vector<float> scales(std::size_t n, float lo, float hi, Bytes& r) {
  std::vector<float> v(n);
  for (float& x : v) x = lo + (hi - lo) * static_cast<float>(r.next()) / 255.0f;
  return v;
}

std::uint64_t round_up(std::uint64_t v, std::uint64_t to) { return (v + to - 1) / to * to; }

// One marked layer "lin" of another format, N = K = 4096 (as tools' layer
// generators would write it: codes of every finite value, sane scales).
fs::path write_format(const std::string& name) {
  constexpr std::uint64_t N = 4096, K = 4096;
  Bytes r{std::hash<std::string>{}(name)};
  std::vector<NamedTensor> t;
  std::string marker;
  const auto no_nan_e4m3 = [](std::uint8_t b) -> std::uint8_t { return (b & 0x7F) == 0x7F ? b ^ 1 : b; };
  if (name == "fp8_e4m3" || name == "fp8_e5m2") {
    const bool e4m3 = name == "fp8_e4m3";
    t.push_back({"lin.weight", e4m3 ? Dtype::F8_E4M3 : Dtype::F8_E5M2, {N, K},
                 r.take(N * K, e4m3 ? +no_nan_e4m3 : +[](std::uint8_t b) -> std::uint8_t { return b & 0xFB; })});
    t.push_back({"lin.weight_scale", Dtype::F32, {}, f32_bytes({0.0123f})});
    marker = e4m3 ? R"({"format": "float8_e4m3fn"})" : R"({"format": "float8_e5m2"})";
  } else if (name == "int8" || name == "int8_convrot") {
    const bool rot = name == "int8_convrot";
    t.push_back({"lin.weight", Dtype::I8, {N, K}, r.take(N * K)});
    if (rot)
      t.push_back({"lin.weight_scale", Dtype::F32, {N, 1}, f32_bytes(scales(N, 1e-3f, 1e-2f, r))});
    else
      t.push_back({"lin.weight_scale", Dtype::F32, {}, f32_bytes({0.01f})});
    marker = rot ? R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 256})"
                 : R"({"format": "int8_tensorwise"})";
  } else if (name == "w4a4") {
    t.push_back({"lin.weight", Dtype::I8, {N, K / 2}, r.take(N * K / 2)});
    t.push_back({"lin.weight_scale", Dtype::F32, {N}, f32_bytes(scales(N, 1e-3f, 1e-2f, r))});
    marker = R"({"format": "convrot_w4a4", "convrot_groupsize": 256, "linear_dtype": "int4"})";
  } else if (name == "nvfp4") {
    const std::uint64_t sr = round_up(N, 128), sc = round_up(K / 16, 4);
    t.push_back({"lin.weight", Dtype::U8, {N, K / 2}, r.take(N * K / 2)});
    t.push_back({"lin.weight_scale", Dtype::F8_E4M3, {sr, sc}, r.take(sr * sc, [](std::uint8_t b) -> std::uint8_t { return b & 0x3F; })});
    t.push_back({"lin.weight_scale_2", Dtype::F32, {}, f32_bytes({0.001f})});
    marker = R"({"format": "nvfp4", "full_precision_matrix_mult": true})";
  } else if (name == "mxfp8") {
    const std::uint64_t sr = round_up(N, 128), sc = round_up(K / 32, 4);
    t.push_back({"lin.weight", Dtype::F8_E4M3, {N, K}, r.take(N * K, +no_nan_e4m3)});
    t.push_back({"lin.weight_scale", Dtype::U8, {sr, sc}, r.take(sr * sc, [](std::uint8_t b) -> std::uint8_t { return 110 + b % 30; })});
    marker = R"({"format": "mxfp8"})";
  } else {  // awq
    constexpr std::uint64_t G = 64;
    t.push_back({"lin.weight", Dtype::I8, {N, K / 2}, r.take(N * K / 2)});
    t.push_back({"lin.weight_scale", Dtype::F16, {K / G, N}, f16_bytes(scales(K / G * N, 1e-3f, 1e-2f, r))});
    t.push_back({"lin.weight_zeros", Dtype::F16, {K / G, N}, f16_bytes(scales(K / G * N, -1e-2f, 1e-2f, r))});
    marker = R"({"format": "awq_w4a16", "group_size": 64})";
  }
  t.push_back({"lin.comfy_quant", Dtype::U8, {marker.size()}, std::vector<std::uint8_t>(marker.begin(), marker.end())});
  const fs::path path = work_dir() / (name + ".safetensors");
  if (auto e = safespec::write_tensors(path.string(), t)) {
    std::fprintf(stderr, "%s\n", e->c_str());
    std::abort();
  }
  return path;
}

// The W4A8 vector folder for N (layer.safetensors, x.safetensors).
fs::path w4a8_vector(std::size_t n) {
  const fs::path dir = work_dir() / ("w4a8_n" + std::to_string(n));
  if (fs::exists(dir / "layer.safetensors")) return dir;
  safespec::VectorSpec s;
  s.m = 16, s.n = n, s.k = 4096, s.group_size = 128, s.convrot_groupsize = 256, s.seed = 1;
  auto w = safespec::write_vector(dir, s);
  if (!w) {
    std::fprintf(stderr, "%s\n", w.error().c_str());
    std::abort();
  }
  return dir;
}

// ---- runs ----

struct Run {
  std::string layer;  // a key: the ratios compare runs on one layer
  std::uint64_t weights = 0;
  std::vector<std::string> args;  // after `safespec`
};

Run linear_run(std::size_t n, bool dump) {
  const fs::path d = w4a8_vector(n), out = work_dir() / "out";
  Run r{"w4a8_n" + std::to_string(n), n * 4096, {"linear", (d / "layer.safetensors").string(), "--layer", "lin", "--input",
                                                  (d / "x.safetensors").string(), "--out", (out / "y.safetensors").string()}};
  if (dump) r.args.insert(r.args.end(), {"--dump", (out / "dump").string()});
  return r;
}

Run dequant_run(const std::string& layer, const fs::path& file, std::uint64_t weights) {
  return {layer, weights, {"dequant", file.string(), "--layer", "lin", "--out", (work_dir() / "out" / "w.safetensors").string()}};
}

// Seconds of wall time and of the child's CPU (user + system).
std::pair<double, double> spawn(const std::vector<std::string>& args) {
  std::vector<std::string> all{binary()};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return {-1, -1};
  int status = 0;
  rusage ru{};
  if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return {-1, -1};
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto sec = [](timeval t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return {wall, sec(ru.ru_utime) + sec(ru.ru_stime)};
}

std::map<std::string, double> g_linear;  // "mode/layer" (or ".../cpu") -> seconds per run of `linear`

// us/weight and the ratio to `linear` on the same layer in the same mode;
// for processes also the ratio of CPU seconds (`<what>/linear_cpu`).
void record(benchmark::State& state, const std::string& mode, const std::string& what, const Run& r, double seconds,
            double cpu = -1) {
  state.counters["us/weight"] = seconds * 1e6 / static_cast<double>(r.weights);
  const std::string key = mode + "/" + r.layer;
  if (what == "linear") {
    g_linear[key] = seconds;
    g_linear[key + "/cpu"] = cpu;
    return;
  }
  if (auto it = g_linear.find(key); it != g_linear.end()) state.counters[what + "/linear"] = seconds / it->second;
  if (auto it = g_linear.find(key + "/cpu"); it != g_linear.end() && it->second > 0 && cpu > 0)
    state.counters[what + "/linear_cpu"] = cpu / it->second;
}

void BM_Process(benchmark::State& state, std::string what, Run r) {
  fs::create_directories(work_dir() / "out");
  double wall = 0, cpu = 0;
  for (auto _ : state) {
    const auto [w, c] = spawn(r.args);
    if (w < 0) {
      state.SkipWithError(("`safespec " + r.args[0] + "` failed").c_str());
      return;
    }
    state.SetIterationTime(w);
    wall += w, cpu += c;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["cpu_s"] = cpu / n;
  record(state, "process", what, r, wall / n, cpu / n);
}

void BM_InProcess(benchmark::State& state, std::string what, Run r) {
  fs::create_directories(work_dir() / "out");
  const auto& a = r.args;
  double wall = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    safespec::CommandOutcome o;
    if (a[0] == "linear") {
      safespec::LinearRequest q;
      q.checkpoint = a[1], q.layer = a[3], q.input = a[5], q.out = a[7];
      if (a.size() > 9) q.dump_dir = a[9];
      o = safespec::run_linear(q);
    } else {
      o = safespec::run_dequant({a[1], a[3], a[5]});
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (o.exit_code != 0) {
      state.SkipWithError(o.err.c_str());
      return;
    }
    state.SetIterationTime(s);
    wall += s;
  }
  record(state, "in-process", what, r, wall / static_cast<double>(state.iterations()));
}

void register_all() {
  std::vector<std::size_t> sizes{4096};
  if (const char* big = std::getenv("SAFESPEC_BENCH_LARGE"); big && *big == '1') sizes.push_back(14336);
  std::vector<std::pair<std::string, Run>> runs;
  for (std::size_t n : sizes) {
    runs.push_back({"linear", linear_run(n, false)});
    runs.push_back({"dump", linear_run(n, true)});
    runs.push_back({"dequant", dequant_run("w4a8_n" + std::to_string(n), w4a8_vector(n) / "layer.safetensors", n * 4096)});
  }
  for (const char* f : {"fp8_e4m3", "fp8_e5m2", "int8", "int8_convrot", "w4a4", "nvfp4", "mxfp8", "awq"})
    runs.push_back({"dequant", dequant_run(f, write_format(f), 4096 * 4096)});
  for (const auto& [what, r] : runs)
    benchmark::RegisterBenchmark(("process/" + what + "/" + r.layer).c_str(), BM_Process, what, r)
        ->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
  for (const auto& [what, r] : runs)
    benchmark::RegisterBenchmark(("in-process/" + what + "/" + r.layer).c_str(), BM_InProcess, what, r)
        ->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::printf("safespec binary: %s\nlayers in %s\n", binary().c_str(), work_dir().string().c_str());
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ec;
  fs::remove_all(work_dir(), ec);
  return 0;
}
