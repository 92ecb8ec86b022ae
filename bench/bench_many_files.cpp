// `safespec check` over many small files (issue 14, "Many files"): a
// directory of 1,000 checkpoints and an index of 1,000 shards, written once
// into a temporary folder (removed at exit). The goal: check_paths on all
// cores takes at most 1.5x (the sum of the per-file parse times / cores).
//
// - BM_PerFile/S: check_safetensors on every file of set S, one after
//   another on one thread, each timed alone with its report's freeing; the
//   iteration's time is the sum of those times (manual time), the "sum of
//   per-file parse times".
// - BM_Check/S/J: check_paths on set S with --jobs J (1, and one per
//   hardware thread), the whole library call `safespec check` makes: the
//   directory listing or the index, the parses, the checkpoint analysis, the
//   verdicts, and the reports freed (wall time). Both sides free what they
//   made inside their time: before, the per-file times left out their
//   report's freeing and BM_Check did not (0.75 ms of its 10).
// - BM_IndexFile: the index set's model.safetensors.index.json alone, read
//   and parsed (read_index_file), which check_paths does before any shard.
// main() prints, per set, total / (sum / cores), and the same on one
// thread, from the times measured in this run; for the index set also the
// ratio with the index file counted as one more file of the sum.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "src/check.hpp"
#include "src/check_files.hpp"
#include "src/shard_index.hpp"
#include "src/writer.hpp"

namespace {

namespace fs = std::filesystem;
using namespace safespec;

constexpr std::size_t kFiles = 1000;
// Tensors a file: a small transformer block's worth (about 6 KB of header).
constexpr std::size_t kTensorsPerFile = 64;
constexpr const char* kSetNames[] = {"directory", "index"};

struct WorkDir {
  fs::path dir;
  WorkDir() {
    std::string tmpl = (fs::temp_directory_path() / "safespec-bench-many-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    dir = tmpl;
  }
  ~WorkDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

const fs::path& work_dir() {
  static const WorkDir w;
  return w.dir;
}

// File `i` of a set: kTensorsPerFile BF16 [2, 2] tensors, named as layer i's.
void write_checkpoint(const fs::path& path, std::size_t i, std::vector<std::string>* names) {
  static const std::vector<std::uint8_t> data(8, 0);
  std::vector<TensorView> views;
  for (std::size_t t = 0; t < kTensorsPerFile; ++t) {
    std::string name = "model.layers." + std::to_string(i) + ".block." + std::to_string(t) + ".weight";
    if (names) names->push_back(name);
    views.push_back(TensorView{std::move(name), Dtype::BF16, {2, 2}, data});
  }
  auto bytes = serialize(views, std::nullopt);
  if (!bytes || !write_file(path.string(), bytes.value())) std::abort();
}

struct Set {
  std::string path;                // what `safespec check` is given
  std::vector<std::string> files;  // the .safetensors files it reads
};

const Set& set(std::size_t which) {
  static const std::vector<Set> sets = [] {
    std::vector<Set> out(2);
    const fs::path many = work_dir() / "many";
    fs::create_directories(many);
    out[0].path = many.string();
    for (std::size_t i = 0; i < kFiles; ++i) {
      char name[32];
      std::snprintf(name, sizeof name, "f%04zu.safetensors", i);
      write_checkpoint(many / name, i, nullptr);
      out[0].files.push_back((many / name).string());
    }
    const fs::path sharded = work_dir() / "sharded";
    fs::create_directories(sharded);
    std::string map;
    for (std::size_t i = 0; i < kFiles; ++i) {
      char name[64];
      std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", i + 1, kFiles);
      std::vector<std::string> names;
      write_checkpoint(sharded / name, i, &names);
      out[1].files.push_back((sharded / name).string());
      for (const std::string& n : names) map += (map.empty() ? "\"" : ",\"") + n + "\":\"" + name + "\"";
    }
    out[1].path = (sharded / "model.safetensors.index.json").string();
    std::ofstream(out[1].path) << "{\"metadata\":{},\"weight_map\":{" << map << "}}";
    return out;
  }();
  return sets[which];
}

void BM_PerFile(benchmark::State& state) {
  const Set& s = set(static_cast<std::size_t>(state.range(0)));
  FastHeaderParser parser;
  for (auto _ : state) {
    double sum = 0;
    for (const std::string& f : s.files) {
      const auto start = std::chrono::steady_clock::now();
      {
        FileReport r = check_safetensors(f, Profile::Strict, parser);
        if (!r.model || !r.findings.empty()) state.SkipWithError("a generated file has findings");
        benchmark::DoNotOptimize(r);
      }  // freed inside the time, as BM_Check's reports are
      sum += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    state.SetIterationTime(sum);
  }
  state.SetLabel(kSetNames[state.range(0)]);
}

// The index set's own index file, read and parsed (read_index_file): a
// file `check` parses too, before it knows which shards to read.
void BM_IndexFile(benchmark::State& state) {
  const Set& s = set(1);
  for (auto _ : state) {
    auto read = read_index_file(s.path);
    if (!read || read.value().shards.size() != kFiles) state.SkipWithError("the index does not read");
    benchmark::DoNotOptimize(read);
  }
}

void BM_Check(benchmark::State& state) {
  const Set& s = set(static_cast<std::size_t>(state.range(0)));
  const unsigned jobs = static_cast<unsigned>(state.range(1));
  FastHeaderParser parser;
  for (auto _ : state) {
    std::vector<FileReport> reports = check_paths({s.path}, CheckOptions{.jobs = jobs}, parser);
    if (reports.size() < kFiles) state.SkipWithError("files missing from the report");
    benchmark::DoNotOptimize(reports);
  }
  state.SetLabel(kSetNames[state.range(0)]);
}

BENCHMARK(BM_PerFile)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_IndexFile)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Check)
    ->ArgsProduct({{0, 1}, {1, static_cast<std::int64_t>(default_check_jobs())}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// Seconds an iteration by benchmark name, wall (or manual) time: with
// --benchmark_repetitions, the repetitions' median (on a shared VM one slow
// repetition is common; with --benchmark_enable_random_interleaving the
// sets' repetitions also take turns).
class WallReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median")
        medians[r.run_name.str()] = r.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(r.time_unit);
      else if (r.run_type == Run::RT_Iteration)
        seconds[r.benchmark_name()] = r.real_accumulated_time / static_cast<double>(r.iterations);
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void Finalize() override {
    for (const auto& [name, s] : medians) seconds[name] = s;
    ConsoleReporter::Finalize();
  }
  std::map<std::string, double> medians;
  std::map<std::string, double> seconds;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  WallReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const unsigned cores = default_check_jobs();
  std::printf("\n%u files a set, %zu tensors a file, %u cores (std::thread::hardware_concurrency)\n", unsigned{kFiles},
              kTensorsPerFile, cores);
  std::printf("%-10s %12s %12s %12s %22s %22s\n", "set", "sum ms", "jobs 1 ms", "jobs N ms", "jobs 1 / sum",
              "jobs N / (sum / cores)");
  for (std::size_t s = 0; s < 2; ++s) {
    const auto per_file = reporter.seconds.find("BM_PerFile/" + std::to_string(s) + "/manual_time");
    const auto one = reporter.seconds.find("BM_Check/" + std::to_string(s) + "/1/real_time");
    const auto all = reporter.seconds.find("BM_Check/" + std::to_string(s) + "/" + std::to_string(cores) + "/real_time");
    if (per_file == reporter.seconds.end() || one == reporter.seconds.end() || all == reporter.seconds.end()) continue;
    const double sum = per_file->second;
    std::printf("%-10s %12.1f %12.1f %12.1f %21.2fx %21.2fx%s\n", kSetNames[s], sum * 1e3, one->second * 1e3,
                all->second * 1e3, one->second / sum, all->second / (sum / cores),
                all->second / (sum / cores) <= 1.5 ? "" : "  (goal: at most 1.5x)");
  }
  // The index file is read before any shard, on one thread: counted as one
  // more file of the sum, the index set's ratio is this (context; the goal's
  // ratio is the one above).
  const auto index_file = reporter.seconds.find("BM_IndexFile/real_time");
  const auto per_shard = reporter.seconds.find("BM_PerFile/1/manual_time");
  const auto index_all = reporter.seconds.find("BM_Check/1/" + std::to_string(cores) + "/real_time");
  if (index_file != reporter.seconds.end() && per_shard != reporter.seconds.end() && index_all != reporter.seconds.end()) {
    const double sum = per_shard->second + index_file->second;
    std::printf("index file %.1f ms; with it in the sum (%.1f ms): jobs N / (sum / cores) %.2fx\n", index_file->second * 1e3,
                sum * 1e3, index_all->second / (sum / cores));
  }
  benchmark::Shutdown();
  return 0;
}
