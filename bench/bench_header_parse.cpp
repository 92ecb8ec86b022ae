// Parse + validate synthetic headers with the fast parser and with the
// reference reader, in the same process, and report the fast path's
// throughput and its speedup over the reference as a ratio.
//
// The yardstick: the Rust reference reader takes 76-138 ms for a
// 100,000-tensor (~9 MB) header on this kind of machine; the target is >= 10x
// faster than that and >= 1 GB/s of header bytes.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>

#include "props/gen/synthetic.hpp"
#include "spec/format_rules.hpp"
#include "spec/header_reader.hpp"
#include "src/fast_header.hpp"

namespace {

using namespace safespec;

struct Synthetic {
  std::string text;  // header text followed by the parser's padding
  std::size_t size;
  std::uint64_t buffer_end;
};

// Built once per size; the text is followed by the parser's padding.
const Synthetic& synthetic(std::size_t tensors) {
  static std::map<std::size_t, Synthetic> cache;
  auto it = cache.find(tensors);
  if (it != cache.end()) return it->second;
  gen::SyntheticText made = gen::synthetic_checkpoint_text(tensors, 16);
  Synthetic s{std::move(made.text), 0, made.data_size};
  s.size = s.text.size();
  s.text.resize(s.size + fast_parser_padding(), ' ');
  return cache.emplace(tensors, std::move(s)).first->second;
}

Model model_of(const Synthetic& s, Header h) {
  return Model{8 + s.size + s.buffer_end, s.size, std::move(h)};
}

void BM_Fast(benchmark::State& state) {
  const Synthetic& s = synthetic(static_cast<std::size_t>(state.range(0)));
  FastHeaderParser parser;
  for (auto _ : state) {
    auto h = parser.parse(std::string_view(s.text).substr(0, s.size));
    if (!h || !parser.last_was_fast()) state.SkipWithError("fast path not taken");
    const Findings f = check_model(model_of(s, std::move(h).value()), Profile::Strict);
    if (!f.empty()) state.SkipWithError("synthetic header has findings");
    benchmark::DoNotOptimize(f);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * s.size));
  state.counters["header_MB"] = static_cast<double>(s.size) / 1e6;
}

void BM_Reference(benchmark::State& state) {
  const Synthetic& s = synthetic(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    auto h = read_header_reference(std::string_view(s.text).substr(0, s.size));
    if (!h) state.SkipWithError("reference rejects");
    const Findings f = check_model(model_of(s, std::move(h).value()), Profile::Strict);
    benchmark::DoNotOptimize(f);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * s.size));
}

BENCHMARK(BM_Fast)->Arg(100)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reference)->Arg(100)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

// Remembers each run's time so main() can print fast/reference ratios.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Iteration && !r.error_occurred) times[r.benchmark_name()] = r.GetAdjustedRealTime();
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> times;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  for (const char* arg : {"100", "10000", "100000"}) {
    const auto fast = reporter.times.find(std::string("BM_Fast/") + arg);
    const auto ref = reporter.times.find(std::string("BM_Reference/") + arg);
    if (fast != reporter.times.end() && ref != reporter.times.end() && fast->second > 0)
      std::printf("%s tensors: fast parser is %.1fx the reference header reader\n", arg, ref->second / fast->second);
  }
  benchmark::Shutdown();
  return 0;
}
