#include "src/check.hpp"

#include <algorithm>

#include "spec/format_rules.hpp"
#include "src/load.hpp"
#include "src/shard_index.hpp"

namespace safespec {

bool FileReport::ok() const {
  return !io_error && std::none_of(findings.begin(), findings.end(),
                                   [](const Finding& f) { return f.severity == Severity::Error; });
}

const Finding* FileReport::reference_failure() const {
  for (const Finding& f : findings) {
    const RuleInfo& info = rule_info(f.rule);
    if (f.severity == Severity::Error && !info.reference.empty() && info.rule_number != "index") return &f;
  }
  return nullptr;
}

std::string_view FileReport::reference_verdict() const {
  const Finding* f = reference_failure();
  return f ? rule_info(f->rule).reference : std::string_view();
}

FileReport check_safetensors(const std::string& path, Profile profile, FastHeaderParser& parser) {
  FileReport report{path, {}, std::nullopt, std::nullopt};
  auto loaded = load_model(path, parser);
  if (!loaded) {
    report.io_error = loaded.error().message;
    return report;
  }
  auto& parsed = loaded.value();
  if (!parsed) {
    report.findings.push_back(to_finding(parsed.error()));
    return report;
  }
  report.findings = check_model(parsed.value(), profile);
  report.model = std::move(parsed).value();
  return report;
}

bool is_index_path(const std::string& path) {
  constexpr std::string_view suffix = ".index.json";
  return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<FileReport> check_path(const std::string& path, Profile profile, FastHeaderParser& parser) {
  if (is_index_path(path)) return check_shard_index(path, profile, parser);
  std::vector<FileReport> out;
  out.push_back(check_safetensors(path, profile, parser));
  return out;
}

}  // namespace safespec
