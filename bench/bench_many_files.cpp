// `safespec check` over many small files: a
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
//   and parsed (read_index_file): one more file that `check` parses.
// main() prints, per set, total / (sum / cores), and the same on one
// thread, from the times measured in this run. The index set's files are
// its 1,001: the shards and the index, whose parse time (BM_IndexFile) is
// in its sum. Its shards alone are printed too: against them, the index's
// own parse (3.7 ms) is more than half of the 6.4 ms the goal divides them
// into, before any overhead.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/commands/check.hpp"
#include "src/commands/check_files.hpp"
#include "src/parse/shard_index.hpp"
#include "src/io/writer.hpp"

namespace {

namespace fs = std::filesystem;
using namespace safespec;

constexpr std::size_t kFiles = 1000;
// Tensors a file: a small transformer block's worth (about 6 KB of header).
constexpr std::size_t kTensorsPerFile = 64;
constexpr std::size_t kBytesPerTensor = 8;  // BF16 [2, 2]
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
  static const std::vector<std::uint8_t> data(kBytesPerTensor, 0);
  std::vector<TensorView> views;
  for (std::size_t t = 0; t < kTensorsPerFile; ++t) {
    std::string name = "model.layers." + std::to_string(i) + ".block." + std::to_string(t) + ".weight";
    if (names) names->push_back(name);
    views.push_back(TensorView{std::move(name), Dtype::BF16, {2, 2}, data});
  }
  auto bytes = serialize(views, std::nullopt);
  if (!bytes || !write_file(path.string(), bytes.value())) std::abort();
}

// The index as transformers' save_pretrained writes it (and diffusers', and
// huggingface_hub's save_torch_state_dict): json.dumps(index, indent=2,
// sort_keys=True) + "\n", so weight_map is sorted by tensor name and
// metadata holds total_size. A shard's header lists its tensors sorted by
// name too (within a dtype), the order locate_tensors guesses from; an index
// in generation order made half of those guesses miss.
std::string transformers_index(std::vector<std::pair<std::string, std::string>> entries, std::size_t total_size) {
  std::sort(entries.begin(), entries.end());
  std::string out = "{\n  \"metadata\": {\n    \"total_size\": " + std::to_string(total_size) + "\n  },\n  \"weight_map\": {\n";
  for (std::size_t i = 0; i < entries.size(); ++i)
    out += "    \"" + entries[i].first + "\": \"" + entries[i].second + (i + 1 < entries.size() ? "\",\n" : "\"\n");
  return out + "  }\n}\n";
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
    std::vector<std::pair<std::string, std::string>> entries;  // tensor -> shard
    for (std::size_t i = 0; i < kFiles; ++i) {
      char name[64];
      std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", i + 1, kFiles);
      std::vector<std::string> names;
      write_checkpoint(sharded / name, i, &names);
      out[1].files.push_back((sharded / name).string());
      for (std::string& n : names) entries.emplace_back(std::move(n), name);
    }
    out[1].path = (sharded / "model.safetensors.index.json").string();
    std::ofstream(out[1].path) << transformers_index(std::move(entries), kFiles * kTensorsPerFile * kBytesPerTensor);
    return out;
  }();
  return sets[which];
}

void BM_PerFile(benchmark::State& state) {
  const Set& s = set(static_cast<std::size_t>(state.range(0)));
  HeaderParser parser;
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
  HeaderParser parser;
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
    ->ArgsProduct({{0, 1}, {1, static_cast<std::int64_t>(default_check_jobs().count())}})
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
  const unsigned cores = default_check_jobs().count();
  std::printf("\n%u files a set, %zu tensors a file, %u cores (std::thread::hardware_concurrency)\n", unsigned{kFiles},
              kTensorsPerFile, cores);
  std::printf("%-14s %8s %12s %12s %22s %22s\n", "set", "sum ms", "jobs 1 ms", "jobs N ms", "jobs 1 / sum",
              "jobs N / (sum / cores)");
  const auto time_of = [&](const std::string& name) {
    const auto it = reporter.seconds.find(name);
    return it == reporter.seconds.end() ? std::optional<double>() : std::optional<double>(it->second);
  };
  const auto print = [&](const char* label, double sum, double one, double all, bool goal) {
    const double ratio = all / (sum / cores);
    std::printf("%-14s %8.1f %12.1f %12.1f %21.2fx %21.2fx%s\n", label, sum * 1e3, one * 1e3, all * 1e3, one / sum,
                ratio, !goal ? "  (shards alone, for context)" : ratio <= 1.5 ? "" : "  (goal: at most 1.5x)");
  };
  const auto index_file = time_of("BM_IndexFile/real_time");
  for (std::size_t s = 0; s < 2; ++s) {
    const auto per_file = time_of("BM_PerFile/" + std::to_string(s) + "/manual_time");
    const auto one = time_of("BM_Check/" + std::to_string(s) + "/1/real_time");
    const auto all = time_of("BM_Check/" + std::to_string(s) + "/" + std::to_string(cores) + "/real_time");
    if (!per_file || !one || !all) continue;
    if (s == 0) {
      print(kSetNames[s], *per_file, *one, *all, true);
    } else if (index_file) {
      print("index", *per_file + *index_file, *one, *all, true);
      print("index shards", *per_file, *one, *all, false);
    }
  }
  if (index_file) std::printf("the index file alone: %.1f ms\n", *index_file * 1e3);
  benchmark::Shutdown();
  return 0;
}
