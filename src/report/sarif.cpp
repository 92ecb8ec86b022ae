// `safespec check --format sarif`: SARIF 2.1.0, the format code-scanning
// tools (GitHub code scanning, GitLab, VS Code's SARIF viewer) show. Every
// rule of the catalogue is a reportingDescriptor with its condition and fix;
// every finding a result, located in the file by its byte offset when it has
// one and by its place (tensor, field, layer) as a logical location.
#include <fmt/format.h>

#include "src/report/json_escape.hpp"
#include "src/report/report.hpp"

namespace safespec {

namespace {

std::string_view level(Severity s) { return s == Severity::Error ? "error" : "warning"; }

std::string rules_json() {
  std::string out = "[";
  for (const RuleInfo& r : rule_catalogue()) {
    out += fmt::format(
        "{}{{\"id\":{},\"shortDescription\":{{\"text\":{}}},\"help\":{{\"text\":{}}},"
        "\"defaultConfiguration\":{{\"level\":\"{}\"}},\"properties\":{{\"scope\":\"{}\",\"tier\":\"{}\","
        "\"rule_number\":{},\"reference\":{}}}}}",
        out.size() > 1 ? "," : "", json_string(r.name), json_string(r.description), json_string(r.fix),
        level(r.severity), scope_name(r.scope), tier_name(r.tier), json_string(r.rule_number),
        json_string(r.reference.empty() ? "accepts" : r.reference));
  }
  return out + "]";
}

std::string location_json(const FileReport& r, const Finding& f) {
  // A report made for a checkpoint without an index (a shard series, files
  // given together) is no file: its findings point at the first file, and
  // the logical location names the checkpoint.
  const std::string& file = r.files.empty() || is_index_path(r.path) ? r.path : r.files.front();
  std::string physical = "{\"artifactLocation\":{\"uri\":" + json_string(file) + "}";
  if (f.where.kind == PlaceKind::Byte) physical += fmt::format(",\"region\":{{\"byteOffset\":{}}}", f.where.byte);
  physical += "}";
  std::string out = "{\"physicalLocation\":" + physical;
  if (f.where.kind != PlaceKind::None && f.where.kind != PlaceKind::Byte)
    out += ",\"logicalLocations\":[{\"fullyQualifiedName\":" + json_string(f.where.text()) + ",\"kind\":\"" +
           std::string(place_kind_name(f.where.kind)) + "\"}]";
  return out + "}";
}

}  // namespace

std::string render_check_sarif(const std::vector<FileReport>& reports, Profile profile, std::string_view version) {
  std::string results = "[", notifications = "[";
  std::uint64_t ignored = 0;  // by --ignore, over all files: a run never hides that it hides something
  std::string versions = "{}";  // which version of each consumer the verdicts are for
  for (const FileReport& r : reports) {
    if (r.judged) versions = chosen_json(r);
    ignored += r.ignored;
    if (r.io_error) {
      notifications += fmt::format("{}{{\"level\":\"error\",\"message\":{{\"text\":{}}},\"locations\":[{{"
                                   "\"physicalLocation\":{{\"artifactLocation\":{{\"uri\":{}}}}}}}]}}",
                                   notifications.size() > 1 ? "," : "", json_string("cannot check: " + *r.io_error),
                                   json_string(r.path));
      continue;
    }
    for (const Finding& f : r.findings)
      results += fmt::format("{}{{\"ruleId\":{},\"ruleIndex\":{},\"level\":\"{}\",\"message\":{{\"text\":{}}},"
                             "\"locations\":[{}],\"properties\":{{\"consumers\":{}}}}}",
                             results.size() > 1 ? "," : "", json_string(rule_name(f.rule)),
                             static_cast<std::size_t>(f.rule), level(f.severity), json_string(f.message),
                             location_json(r, f), effects_json(f, r.chosen));
  }
  return fmt::format(
      "{{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\",\"runs\":[{{"
      "\"tool\":{{\"driver\":{{\"name\":\"safespec\",\"version\":{},\"rules\":{}}}}},"
      "\"invocations\":[{{\"executionSuccessful\":true,\"toolExecutionNotifications\":{}]}}],"
      "\"properties\":{{\"profile\":\"{}\",\"ignored\":{},\"consumer_versions\":{}}},\"results\":{}]}}]}}\n",
      json_string(version), rules_json(), notifications, profile_name(profile), ignored, versions, results);
}

}  // namespace safespec
