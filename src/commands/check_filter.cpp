#include "src/commands/check_filter.hpp"

#include <fnmatch.h>

#include <algorithm>

namespace safespec {

Result<std::vector<RuleId>, std::string> rules_matching(const std::vector<std::string>& patterns) {
  std::vector<RuleId> out;
  for (const std::string& p : patterns) {
    bool any = false;
    for (const RuleInfo& r : rule_catalogue()) {
      if (::fnmatch(p.c_str(), std::string(r.name).c_str(), 0) != 0) continue;
      any = true;
      if (std::find(out.begin(), out.end(), r.id) == out.end()) out.push_back(r.id);
    }
    if (!any) return "--ignore: expected a rule id of `safespec rules` or a glob over them, found '" + p + "'";
  }
  return out;
}

void ignore_rules(std::vector<FileReport>& reports, const std::vector<RuleId>& rules) {
  const auto ignored = [&](RuleId id) { return std::find(rules.begin(), rules.end(), id) != rules.end(); };
  for (FileReport& r : reports) {
    std::erase_if(r.findings, [&](const Finding& f) { return ignored(f.rule); });
    for (RuleId id : rules) r.ignored += r.counts.take(id);
  }
}

}  // namespace safespec
