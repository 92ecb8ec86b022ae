// `safespec check --data` at storage speed: the value rules over a
// checkpoint of SAFESPEC_BENCH_DATA_GB gigabytes (default 1; docs/performance.md's
// numbers are for 4) of marked layers, N = K = 4096, cycling through int8
// (3 of 8 layers), W4A8, W4A4, nvfp4, mxfp8 and fp8, every 16th layer with a
// bad value (gen/data_checkpoint.hpp). The file is written once into a
// temporary folder (removed at exit) and read once before timing, so every
// run reads it from the page cache.
//
// - pread_baseline: one thread pread()s exactly the bytes the value rules
//   read (recorded from a run of them), in the same 1 MiB pieces, and touches
//   nothing: what reading those bytes costs with no rule at all.
// - rules/threads:T: quant::analyze with --data's FileTensorData on T
//   threads, in this process (markers, header and value rules).
// - process: the built `safespec check --data FILE` as a user runs it.
// Counters: GB/s, value-rule bytes per second (what --data reads; 10^9);
// file_GB/s, the checkpoint's bytes per second; vs_pread, pread_baseline's
// time over this one's, measured in the same run (1.0: as fast as reading
// the bytes; above 1 with threads: faster than one thread reading them).
// SAFESPEC_BENCH_BIN=path times another safespec binary.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "gen/data_checkpoint.hpp"
#include "spec/quant/analyze.hpp"
#include "src/parse/load.hpp"
#include "src/parse/marker_reader.hpp"
#include "src/io/tensor_data.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using namespace safespec;

struct Fixture {
  fs::path dir;
  std::string path;
  std::uint64_t file_bytes = 0;
  Model model;
  std::vector<quant::CheckpointFile> files;
  // What the value rules read: (offset in the file, size), in order.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  std::uint64_t rule_bytes = 0;
  double pread_seconds = 0;  // per run, from pread_baseline
  ~Fixture() {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

// Records what the rules ask for, then reads it with FileTensorData.
struct Recorder final : quant::TensorData {
  const FileTensorData* inner;
  const Model* model;
  mutable std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  quant::TensorScan scan(const quant::TensorRef& t, const quant::TensorChunk& chunk) const override {
    ranges.emplace_back(8 + model->header_length + t.entry->begin, t.entry->end - t.entry->begin);
    return inner->scan(t, chunk);
  }
};

Fixture& fixture() {
  static Fixture f = [] {
    Fixture x;
    std::string tmpl = (fs::temp_directory_path() / "safespec-bench-data-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    x.dir = tmpl;
    x.path = (x.dir / "data.safetensors").string();
    const char* gb = std::getenv("SAFESPEC_BENCH_DATA_GB");
    const double want = (gb && *gb ? std::atof(gb) : 1.0) * 1e9;
    // A cycle of 8 layers at N = K = 4096 is 106.5 MiB.
    const auto layers = static_cast<std::uint64_t>(want / (106.5 * 1048576.0) * 8.0 + 0.5);
    auto w = gen::write_data_checkpoint(x.path, {layers, 4096, 4096, 16});
    if (!w) std::abort();
    x.file_bytes = w.value();
    // Into the page cache, and parsed once.
    HeaderParser parser;
    auto m = load_model(x.path, parser);
    if (!m || !m.value()) std::abort();
    x.model = std::move(m.value()).value();
    auto file = ByteFile::open(x.path);
    if (!file) std::abort();
    std::vector<std::uint8_t> buf(std::size_t{1} << 20);
    for (std::uint64_t at = 0; at < x.file_bytes; at += buf.size()) {
      const auto n = std::min<std::uint64_t>(buf.size(), x.file_bytes - at);
      if (!file.value().read_at(at, std::span(buf.data(), static_cast<std::size_t>(n)))) std::abort();
    }
    auto markers = read_markers(file.value(), x.model);
    if (!markers) std::abort();
    x.files.push_back(quant::CheckpointFile{x.path, &x.model, std::move(markers).value()});
    FileTensorData data(x.files, {0, 1});
    Recorder rec;
    rec.inner = &data;
    rec.model = &x.model;
    (void)quant::analyze(x.files, &rec);
    x.ranges = std::move(rec.ranges);
    for (const auto& r : x.ranges) x.rule_bytes += r.second;
    return x;
  }();
  return f;
}

void counters(benchmark::State& state, double seconds_per_run) {
  const Fixture& f = fixture();
  state.counters["GB/s"] = static_cast<double>(f.rule_bytes) / seconds_per_run / 1e9;
  state.counters["file_GB/s"] = static_cast<double>(f.file_bytes) / seconds_per_run / 1e9;
  state.counters["rule_GB"] = static_cast<double>(f.rule_bytes) / 1e9;
  state.counters["file_GB"] = static_cast<double>(f.file_bytes) / 1e9;
  if (f.pread_seconds > 0) state.counters["vs_pread"] = f.pread_seconds / seconds_per_run;
}

void BM_pread_baseline(benchmark::State& state) {
  Fixture& f = fixture();
  const int fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) std::abort();
  std::vector<std::uint8_t> buf(kDataChunkBytes);
  double total = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    for (const auto& [start, size] : f.ranges) {
      for (std::uint64_t done = 0; done < size;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), size - done));
        if (::pread(fd, buf.data(), n, static_cast<off_t>(start + done)) != static_cast<ssize_t>(n)) std::abort();
        done += n;
      }
      benchmark::DoNotOptimize(buf.data());
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(s);
    total += s;
  }
  ::close(fd);
  f.pread_seconds = total / static_cast<double>(state.iterations());
  counters(state, f.pread_seconds);
}

void BM_rules(benchmark::State& state) {
  Fixture& f = fixture();
  double total = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    FileTensorData data(f.files, {0, static_cast<unsigned>(state.range(0))});
    auto a = quant::analyze(f.files, &data);
    benchmark::DoNotOptimize(a);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (data.bytes_read() != f.rule_bytes) state.SkipWithError("the rules read other bytes than recorded");
    state.SetIterationTime(s);
    total += s;
  }
  counters(state, total / static_cast<double>(state.iterations()));
}

std::string binary() {
  const char* env = std::getenv("SAFESPEC_BENCH_BIN");
  return env && *env ? env : SAFESPEC_BINARY;
}

void BM_process(benchmark::State& state) {
  Fixture& f = fixture();
  std::vector<std::string> all{binary(), "check", "--data", f.path};
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  double total = 0;
  for (auto _ : state) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid = 0;
    int status = 0;
    const bool ok = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) == 0 &&
                    waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) <= 1;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    posix_spawn_file_actions_destroy(&fa);
    if (!ok) {
      state.SkipWithError("`safespec check --data` failed");
      return;
    }
    state.SetIterationTime(s);
    total += s;
  }
  counters(state, total / static_cast<double>(state.iterations()));
}

}  // namespace

BENCHMARK(BM_pread_baseline)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_rules)->Arg(1)->Arg(2)->ArgName("threads")->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_process)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);

BENCHMARK_MAIN();
