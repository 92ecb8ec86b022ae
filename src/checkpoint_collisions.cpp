#include "src/checkpoint_collisions.hpp"

#include <algorithm>
#include <map>

#include "spec/finding_sink.hpp"
#include "spec/quote.hpp"
#include "src/name_repeats.hpp"

namespace safespec {

namespace {

// The files of a group with a model, as find_repeats and RepeatWalk number
// their tensors: a file's tensors after the previous file's.
struct GroupTensors {
  std::vector<NamedTensors> files;
  std::vector<std::size_t> report_of, first_of;  // per file: its report, its first tensor's number
};
GroupTensors group_tensors(const std::vector<FileReport>& reports, const std::vector<std::size_t>& group) {
  GroupTensors g;
  for (std::size_t i : group)
    if (reports[i].model) {
      g.first_of.push_back(g.first_of.empty() ? 0 : g.first_of.back() + g.files.back().tensors.size());
      const Header& h = reports[i].model->header;
      g.files.push_back(NamedTensors{h.tensors, h.name_hashes.values});
      g.report_of.push_back(i);
    }
  return g;
}

}  // namespace

// Every tensor of every file of the group, in group order (views into the
// models, which outlive this, with the hashes their parse kept), through
// find_repeats: a directory of 1,000 files of 64 tensors is 64,000 names,
// and a map that copied each one was an eighth of `check` on it, a lookup at
// a time a seventh, one thread gathering and hashing them all a quarter
// (issue 14). A directory's own files are walked while they are read
// instead (check_paths).
Repeats group_repeats(const std::vector<FileReport>& reports, const std::vector<std::size_t>& group, unsigned threads) {
  return find_repeats(group_tensors(reports, group).files, threads);
}

void flag_collisions(std::vector<FileReport>& reports, const std::vector<std::size_t>& group, const Repeats& repeats) {
  constexpr RuleId kRule = RuleId::IndexTensorInTwoShards;
  if (repeats.empty()) return;  // most checkpoints: nothing to map back
  const GroupTensors g = group_tensors(reports, group);
  const auto tensor = [&](std::size_t k) {  // number -> (report, tensor)
    const std::size_t f =
        static_cast<std::size_t>(std::upper_bound(g.first_of.begin(), g.first_of.end(), k) - g.first_of.begin()) - 1;
    return std::pair{g.report_of[f], &g.files[f].tensors[k - g.first_of[f]]};
  };
  std::map<std::size_t, FindingSink> sinks;  // per report with a collision: most have none
  for (const auto& [k, first] : repeats) {
    const auto [report, entry] = tensor(k);
    FindingSink& sink = sinks[report];
    if (!sink.lists(kRule)) {
      sink.count_only(kRule);
      continue;
    }
    sink.add(kRule, Place::tensor(entry->name),
             "expected the tensor in one file of the checkpoint, found it in " +
                 quote_name(reports[tensor(first).first].path) + " and " + quote_name(reports[report].path));
  }
  for (auto& [i, sink] : sinks)
    for (Finding& f : std::move(sink).finish(Place::file())) reports[i].findings.push_back(std::move(f));
}

}  // namespace safespec
