// Where every producer of findings writes (the format, strict, index, quant
// and data rules): one sink, so the bound on findings is decided in one place.
// A finding's severity comes from the rule catalogue; each rule lists its
// first kMaxRecords findings, and the rest are only counted, so two million
// broken tensors (or layers, or values) give a readable report in bounded
// memory; every finding is counted per rule, listed or not.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spec/finding.hpp"
#include "spec/limits.hpp"
#include "spec/rule_counts.hpp"
#include "spec/rule_id.hpp"

namespace safespec {

// A finding's severity: its rule's, except that one only versions other
// than their consumers' defaults act on (an older sglang, ComfyUI's other
// mode) is a warning: the file is what the format allows, and the versions
// most users run take it; and one a default version refuses is an error
// whatever its rule's usual severity (a warning rule such as a marker's dtype
// is harmless for most dtypes and fatal to sglang for a few).
Severity severity_of(RuleId rule, const std::vector<Verdict>& verdicts);
// Whether `verdicts` are all for versions other than their consumers'
// defaults (and there is one): what makes severity_of a warning.
bool only_other_versions(const std::vector<Verdict>& verdicts);

class FindingSink {
 public:
  // A finding of `rule`, its severity from the catalogue.
  void add(RuleId rule, Place where, std::string message, std::vector<Verdict> verdicts = {});
  // A finding a rule function built; its severity is the catalogue's.
  void add(Finding f);
  void add(std::optional<Finding> f) {
    if (f) add(std::move(*f));
  }
  // Whether the next finding of `rule` would be listed: a producer can skip
  // building a message that would only be counted.
  bool lists(RuleId rule) const { return counts_[rule] < kMaxRecords; }
  // Counts a finding of `rule` that is not listed (its message never built).
  void count_only(RuleId rule) {
    past_bound_ |= !lists(rule);
    counts_.add(rule);
  }

  const RuleCounts& counts() const { return counts_; }
  // The listed findings, in the order added.
  const Findings& listed() const { return listed_; }
  // One count line per rule past the bound ("found N more findings of this
  // rule beyond the 1000 listed"), at `where`.
  Findings count_lines(const Place& where) const;
  // The listed findings, then the count lines.
  Findings finish(const Place& where) &&;

 private:
  Findings listed_;
  RuleCounts counts_;
  // Some rule was counted past kMaxRecords: without it count_lines has
  // nothing to scan for.
  bool past_bound_ = false;
};

// "found N more findings of this rule beyond the 1000 listed", at `where`.
Finding count_line(RuleId id, Severity severity, Place where, std::uint64_t unlisted);
// The N of a count line, or nullopt for any other finding.
std::optional<std::uint64_t> unlisted_in(const Finding& f);

// A file's finished list after its profile picked and reordered findings:
// each rule's first kMaxRecords findings in order, then one count line per
// rule with more (a producer's count line is kept where it was, its number
// raised by what is dropped here). `counts`, when given, gets every rule's
// total, listed or counted.
Findings bound_findings(Findings all, RuleCounts* counts = nullptr);

}  // namespace safespec
