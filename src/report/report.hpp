// Rendering reports for humans (text) and machines (one JSON document).
#pragma once

#include <string>
#include <vector>

#include "spec/model.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/commands/check.hpp"

namespace safespec {

// The text report (src/report/check_text.cpp): per file a line, each finding with
// its rule's fix once, what was not checked, and the consumers' verdicts.
// Errors first; a rule that repeats in a file is folded after its first
// findings into one line with the count, unless `verbose`.
std::string render_check_text(const std::vector<FileReport>& reports, Profile profile, bool verbose = false);
// One line per file: OK or FAIL, the counts, and each consumer's verdict.
std::string render_check_summary(const std::vector<FileReport>& reports, Profile profile);
std::string render_check_json(const std::vector<FileReport>& reports, Profile profile);
// SARIF 2.1.0 (src/report/sarif.cpp); `version` is safespec's, for the tool driver.
std::string render_check_sarif(const std::vector<FileReport>& reports, Profile profile, std::string_view version);

// One row per judged file, one column per consumer, then the exact message of
// every rejection (src/report/report_table.cpp).
// `versions`: a column per version wherever the versions of a consumer
// disagree, and a line under the table naming the versions that agree.
std::string render_table(const std::vector<FileReport>& reports, bool versions = false);
// The same as one JSON document: per file its path and consumers (as in
// check --json), or its read error.
std::string render_table_json(const std::vector<FileReport>& reports);

// One consumer's outcome (with "version" first when given), a report's
// outcome per consumer, and every version's of the consumers that have more
// than one (spec/consumers.hpp), as check --json writes them.
std::string outcome_json(const Outcome& o, Consumer c, std::string_view version = {});
std::string consumers_json(const FileReport& r);
std::string versions_json(const FileReport& r);
// {"comfyui":"safe-open",...}: the version each consumer's verdict is for.
std::string chosen_json(const FileReport& r);
// The finding's "reference": the reference reader's error variant when it is
// what stopped the reference on this file, "accepts" when the reference read
// the file, else the variant the rule's catalogue row names (or "accepts").
std::string_view finding_reference(const Finding& f, const FileReport& r);
// {"sglang":"rejects",...}: every consumer the finding affects, each in the
// version `chosen` names.
std::string effects_json(const Finding& f, const VersionChoice& chosen);
// [{"what":…,"why":…}, …]: a report's unchecked items.
std::string unchecked_json(const std::vector<Unchecked>& items);

std::string render_inspect_text(const Model& m);
// `extra`: more keys (",\"summary\":{…}"), placed after "metadata".
std::string render_inspect_json(const std::string& path, const Model& m, const std::string& extra = "");
// The same object without "schema" and the newline (a shard of an index).
std::string inspect_object_json(const std::string& path, const Model& m, const std::string& extra = "");
// inspect --json on a file it cannot list: {"schema":1,"path":…,"error":…}
// (with "rule" and "where" when the header does not parse).
std::string render_inspect_error_json(const std::string& path, const std::string& message, const Error* parse_error);

std::string render_rules_text();
std::string render_rules_json();
// docs/RULES.md: the catalogue as one Markdown table (a test keeps the file current).
std::string render_rules_markdown();

}  // namespace safespec
