#include "spec/finding_sink.hpp"

#include <array>
#include <charconv>
#include <string_view>

#include "spec/quote.hpp"
#include "spec/rule_catalogue.hpp"

namespace safespec {

namespace {
constexpr std::string_view kFound = "found ";
const std::string kTail = " of this rule beyond the " + std::to_string(kMaxRecords) + " listed";
}  // namespace

bool only_other_versions(const std::vector<Verdict>& verdicts) {
  if (verdicts.empty()) return false;
  for (const Verdict& v : verdicts)
    if (v.holds_for(consumer_info(v.consumer).default_version)) return false;
  return true;
}

Severity severity_of(RuleId rule, const std::vector<Verdict>& verdicts) {
  if (only_other_versions(verdicts)) return Severity::Warning;
  for (const Verdict& v : verdicts)
    if (v.effect == Effect::Rejects && v.holds_for(consumer_info(v.consumer).default_version)) return Severity::Error;
  return rule_info(rule).severity;
}

void FindingSink::add(RuleId rule, Place where, std::string message, std::vector<Verdict> verdicts) {
  if (lists(rule)) {
    const Severity severity = severity_of(rule, verdicts);
    listed_.push_back(Finding{rule, severity, std::move(where), std::move(message), std::move(verdicts)});
  }
  else
    past_bound_ = true;
  counts_.add(rule);
}

void FindingSink::add(Finding f) {
  const RuleId rule = f.rule;
  if (lists(rule)) {
    f.severity = severity_of(rule, f.verdicts);
    listed_.push_back(std::move(f));
  } else {
    past_bound_ = true;
  }
  counts_.add(rule);
}

Findings FindingSink::count_lines(const Place& where) const {
  Findings out;
  if (!past_bound_) return out;
  for (const auto& [id, n] : counts_.entries())
    if (n > kMaxRecords) out.push_back(count_line(id, rule_info(id).severity, where, n - kMaxRecords));
  return out;
}

Findings FindingSink::finish(const Place& where) && {
  Findings out = std::move(listed_);
  for (Finding& f : count_lines(where)) out.push_back(std::move(f));
  return out;
}

Finding count_line(RuleId id, Severity severity, Place where, std::uint64_t unlisted) {
  return Finding{id, severity, std::move(where), std::string(kFound) + count_of(unlisted, "more finding") + kTail, {}};
}

std::optional<std::uint64_t> unlisted_in(const Finding& f) {
  const std::string_view m = f.message;
  if (!f.verdicts.empty() || !m.starts_with(kFound) || !m.ends_with(kTail)) return std::nullopt;
  std::uint64_t n = 0;
  const char* begin = m.data() + kFound.size();
  const auto [end, ec] = std::from_chars(begin, m.data() + m.size(), n);
  if (ec != std::errc() || end == begin) return std::nullopt;
  const std::string_view rest(end, static_cast<std::size_t>(m.data() + m.size() - end));
  if (rest != " more finding" + kTail && rest != " more findings" + kTail) return std::nullopt;
  return n;
}

Findings bound_findings(Findings all, RuleCounts* counts) {
  // Most files have no finding: their answer needs none of the tables
  // below (4 KB to clear, and every report of a 1,000-file directory did).
  if (all.empty()) {
    if (counts) counts->clear();
    return all;
  }
  std::array<std::uint64_t, kRuleCount> listed{}, dropped{};
  std::array<std::optional<std::size_t>, kRuleCount> counted{};  // a producer's count line, in `out`
  std::array<Severity, kRuleCount> severity{};
  Findings out;
  for (Finding& f : all) {
    const auto r = static_cast<std::size_t>(f.rule);
    if (const auto n = unlisted_in(f)) {
      if (counted[r]) dropped[r] += *n;  // a second count line of the rule: merged into the first
      else {
        counted[r] = out.size();
        out.push_back(std::move(f));
      }
      continue;
    }
    if (listed[r] < kMaxRecords) {
      ++listed[r];
      out.push_back(std::move(f));
    } else {
      ++dropped[r];
      severity[r] = f.severity;
    }
  }
  if (counts) counts->clear();
  for (std::size_t r = 0; r < kRuleCount; ++r) {
    std::uint64_t unlisted = dropped[r];
    if (counted[r]) unlisted += *unlisted_in(out[*counted[r]]);
    if (counts) counts->add(static_cast<RuleId>(r), listed[r] + unlisted);
    if (dropped[r] == 0) continue;
    const auto id = static_cast<RuleId>(r);
    if (counted[r]) {
      Finding& line = out[*counted[r]];
      line = count_line(id, line.severity, line.where, unlisted);
    } else {
      out.push_back(count_line(id, severity[r], Place::file(), dropped[r]));
    }
  }
  return out;
}

}  // namespace safespec
