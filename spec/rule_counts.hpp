// Findings per rule, listed or only counted: the rules that have any, each
// once, in RuleId order. Most files have no finding at all; as an array of
// every rule (113 counters) it was 904 bytes in each report of a
// 1,000-file check and in every finding sink, each zeroed and mostly left at
// zero (a third of checking an 8-tensor header was fixed cost).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "spec/rule_id.hpp"

namespace safespec {

class RuleCounts {
 public:
  using Entry = std::pair<RuleId, std::uint64_t>;

  // The rule's count; 0 for a rule with none.
  std::uint64_t operator[](RuleId rule) const {
    const auto it = find(rule);
    return it != entries_.end() && it->first == rule ? it->second : 0;
  }
  void add(RuleId rule, std::uint64_t n = 1) {
    if (n == 0) return;
    const auto it = find(rule);
    if (it != entries_.end() && it->first == rule) it->second += n;
    else entries_.insert(it, Entry{rule, n});
  }
  // Takes the rule's count out (0 when it had none).
  std::uint64_t take(RuleId rule) {
    const auto it = find(rule);
    if (it == entries_.end() || it->first != rule) return 0;
    const std::uint64_t n = it->second;
    entries_.erase(it);
    return n;
  }
  bool empty() const { return entries_.empty(); }
  void clear() { entries_.clear(); }
  // Every rule with a count, in RuleId order; no count is 0.
  std::span<const Entry> entries() const { return entries_; }

  friend bool operator==(const RuleCounts&, const RuleCounts&) = default;

 private:
  std::vector<Entry>::iterator find(RuleId rule) {
    return std::lower_bound(entries_.begin(), entries_.end(), rule,
                            [](const Entry& e, RuleId r) { return e.first < r; });
  }
  std::vector<Entry>::const_iterator find(RuleId rule) const {
    return std::lower_bound(entries_.begin(), entries_.end(), rule,
                            [](const Entry& e, RuleId r) { return e.first < r; });
  }
  std::vector<Entry> entries_;
};

}  // namespace safespec
