#include "src/parse/checkpoint_collisions.hpp"

#include <map>

#include "spec/finding_sink.hpp"
#include "spec/quote.hpp"

namespace safespec {

namespace {

// The reports of the group's files with a model, in group order: the files a
// walk over the group numbers.
std::vector<std::size_t> with_models(const std::vector<FileReport>& reports, const std::vector<std::size_t>& group) {
  std::vector<std::size_t> out;
  for (std::size_t i : group)
    if (reports[i].model) out.push_back(i);
  return out;
}

}  // namespace

// Every tensor of every file of the group (views into the models, which
// outlive this, with the hashes their parse kept), through find_repeats: a
// directory of 1,000 files of 64 tensors is 64,000 names, and a map that
// copied each one was an eighth of `check` on it, a lookup at a time a
// seventh, one thread gathering and hashing them all a quarter.
RepeatWalk group_repeats(const std::vector<FileReport>& reports, const std::vector<std::size_t>& group, CheckJobs threads) {
  std::vector<NamedTensors> files;
  for (std::size_t i : with_models(reports, group)) {
    const Header& h = reports[i].model->header;
    files.push_back(NamedTensors{h.tensors, h.name_hashes.values});
  }
  return find_repeats(files, threads);
}

void flag_collisions(std::vector<FileReport>& reports, const std::vector<std::size_t>& group, const RepeatWalk& walk) {
  constexpr RuleId kRule = RuleId::IndexTensorInTwoShards;
  if (walk.repeats().empty()) return;  // most checkpoints: nothing to map back
  const std::vector<std::size_t> report_of = with_models(reports, group);  // the walk's file -> its report
  std::map<std::size_t, FindingSink> sinks;  // per report with a collision: most have none
  for (const auto& [k, first] : walk.repeats()) {
    const auto [file, entry] = walk.tensor(k);
    const std::size_t report = report_of[file];
    FindingSink& sink = sinks[report];
    if (!sink.lists(kRule)) {
      sink.count_only(kRule);
      continue;
    }
    sink.add(kRule, Place::tensor(entry->name),
             "expected the tensor in one file of the checkpoint, found it in " +
                 quote_name(reports[report_of[walk.tensor(first).first]].path) + " and " + quote_name(reports[report].path));
  }
  for (auto& [i, sink] : sinks)
    for (Finding& f : std::move(sink).finish(Place::file())) reports[i].findings.push_back(std::move(f));
}

}  // namespace safespec
