// One bound on findings, for every rule family (issue 11): each rule lists
// its first kMaxRecords findings, then one finding says how many more there
// are, so two million broken tensors (or layers, or values) give a readable
// report. Producers that could build unbounded lists (the format and index
// rules) bound while they go with FindingBound; bound_findings applies the
// same bound to a file's finished list, merging the producers' count lines.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "spec/finding.hpp"
#include "spec/model.hpp"
#include "spec/rule_id.hpp"

namespace safespec {

class FindingBound {
 public:
  // Counts a finding of rule `id`; true while it is to be listed.
  bool admit(RuleId id) { return count_[static_cast<std::size_t>(id)]++ < kMaxRecords; }
  // One count line per rule past the bound, each at `where`.
  void append_counts(Findings& out, const Place& where) const;

 private:
  std::array<std::uint64_t, kRuleCount> count_{};
};

// "found N more findings of this rule beyond the 1000 listed", at `where`.
Finding count_line(RuleId id, Severity severity, Place where, std::uint64_t unlisted);
// The N of a count line, or nullopt for any other finding.
std::optional<std::uint64_t> unlisted_in(const Finding& f);

// Each rule's first kMaxRecords findings in order, then one count line per
// rule with more (a producer's count line is kept where it was, its number
// raised by what is dropped here).
Findings bound_findings(Findings all);

}  // namespace safespec
