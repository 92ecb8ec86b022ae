// `safespec check --ignore PATTERN`: findings of the rules a CI pipeline has
// decided to accept, taken out of the reports before they are printed and
// judged. The consumers' verdicts stay as they are: a consumer profile still
// fails a file its consumer rejects.
#pragma once

#include <string>
#include <vector>

#include "spec/report.hpp"
#include "spec/result.hpp"
#include "spec/rule_catalogue.hpp"

namespace safespec {

// The rules a pattern names: a rule id, or a glob (*, ?, [..]) over rule ids.
// A pattern that names no rule of the catalogue is an error that says so, so
// a typo never ignores nothing silently.
Result<std::vector<RuleId>, std::string> rules_matching(const std::vector<std::string>& patterns);

// Drops the findings of `rules` from every report, and their counts, and
// records in each report how many it dropped (FileReport::ignored): those
// past the findings bound too, from the counts.
void ignore_rules(std::vector<FileReport>& reports, const std::vector<RuleId>& rules);

}  // namespace safespec
