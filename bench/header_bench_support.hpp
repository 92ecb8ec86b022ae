// What the header benchmarks share: synthetic checkpoint headers built once
// per size, the model they describe, and a reporter that remembers each
// run's time so main() can print ratios against a baseline run in the same
// process.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gen/synthetic.hpp"
#include "spec/model.hpp"
#include "src/parse/header_parser.hpp"

namespace safespec::bench {

struct Synthetic {
  std::string text;  // the header text
  std::uint64_t buffer_end;
};

// About 128 header bytes a tensor, names like a large checkpoint's.
inline const Synthetic& synthetic(std::size_t tensors) {
  static std::map<std::size_t, Synthetic> cache;
  auto it = cache.find(tensors);
  if (it != cache.end()) return it->second;
  gen::SyntheticText made = gen::synthetic_checkpoint_text(tensors, 16);
  Synthetic s{std::move(made.text), made.data_size};
  return cache.emplace(tensors, std::move(s)).first->second;
}

inline Model model_of(const Synthetic& s, Header h) { return Model{8 + s.text.size() + s.buffer_end, s.text.size(), std::move(h)}; }

// Seconds an iteration, by benchmark name and arguments ("BM_Fast/100"):
// wall time, and CPU time (one thread's work; on a shared machine wall time
// also counts other processes' turns). With repetitions, the repetitions'
// median: on a shared VM one slow repetition is common.
class TimeReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      const std::string name = r.run_name.function_name + (r.run_name.args.empty() ? "" : "/" + r.run_name.args);
      if (r.run_type == Run::RT_Iteration && !repeated_.count(name)) {
        real[name] = r.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(r.time_unit);
        cpu[name] = r.cpu_accumulated_time / static_cast<double>(r.iterations);
      } else if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") {
        const double unit = benchmark::GetTimeUnitMultiplier(r.time_unit);
        real[name] = r.GetAdjustedRealTime() / unit;
        cpu[name] = r.GetAdjustedCPUTime() / unit;
        repeated_.insert(name);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> real, cpu;

 private:
  std::set<std::string> repeated_;  // a median was seen: single runs no longer count
};

}  // namespace safespec::bench
