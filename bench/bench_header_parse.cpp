// Parse + validate synthetic headers with the fast parser and with the
// reference reader, in the same process, and report the fast path's
// throughput and its speedup over the reference as a ratio.
//
// The yardstick: the Rust reference reader takes 76-138 ms for a
// 100,000-tensor (~9 MB) header on this kind of machine; the target is >= 10x
// faster than that and >= 1 GB/s of header bytes.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "bench/header_bench_support.hpp"
#include "spec/format_rules.hpp"
#include "spec/header_reader.hpp"
#include "src/parse/header_parser.hpp"

namespace {

using namespace safespec;
using bench::model_of;
using bench::Synthetic;
using bench::synthetic;

void BM_Fast(benchmark::State& state) {
  const Synthetic& s = synthetic(static_cast<std::size_t>(state.range(0)));
  HeaderParser parser;
  for (auto _ : state) {
    auto h = parser.parse(s.text);
    if (!h || !parser.last_was_fast()) state.SkipWithError("fast path not taken");
    const Findings f = check_model(model_of(s, std::move(h).value()), Profile::Strict);
    if (!f.empty()) state.SkipWithError("synthetic header has findings");
    benchmark::DoNotOptimize(f);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * s.text.size()));
  state.counters["header_MB"] = static_cast<double>(s.text.size()) / 1e6;
}

void BM_Reference(benchmark::State& state) {
  const Synthetic& s = synthetic(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    auto h = read_header_reference(s.text);
    if (!h) state.SkipWithError("reference rejects");
    const Findings f = check_model(model_of(s, std::move(h).value()), Profile::Strict);
    benchmark::DoNotOptimize(f);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * s.text.size()));
}

BENCHMARK(BM_Fast)->Arg(100)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reference)->Arg(100)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  bench::TimeReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  for (const char* arg : {"100", "10000", "100000"}) {
    const auto fast = reporter.real.find(std::string("BM_Fast/") + arg);
    const auto ref = reporter.real.find(std::string("BM_Reference/") + arg);
    if (fast != reporter.real.end() && ref != reporter.real.end() && fast->second > 0)
      std::printf("%s tensors: fast parser is %.1fx the reference header reader\n", arg, ref->second / fast->second);
  }
  benchmark::Shutdown();
  return 0;
}
