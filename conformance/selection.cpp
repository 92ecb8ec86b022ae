#include "conformance/selection.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <variant>

#include "spec/limits.hpp"
#include "spec/python/python_json.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/rule_catalogue.hpp"

namespace safespec::conformance {

namespace {

const RuleInfo* find_rule(std::string_view name) {
  for (const RuleInfo& r : rule_catalogue())
    if (r.name == name) return &r;
  return nullptr;
}

bool is_group(std::string_view s) { return std::find(kGroups.begin(), kGroups.end(), s) != kGroups.end(); }

bool is_glob(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

bool glob_matches(const std::string& pattern, const std::string& text) {
  return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

void add_group(std::vector<std::string_view>& groups, std::string_view g) {
  if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
}

bool matches(const Case& c, const std::string& selector) {
  if (is_group(selector)) {
    const auto groups = case_groups(c);
    return std::find(groups.begin(), groups.end(), selector) != groups.end();
  }
  if (!is_glob(selector)) return std::find(c.rules.begin(), c.rules.end(), selector) != c.rules.end();
  if (glob_matches(selector, c.file)) return true;
  return std::any_of(c.rules.begin(), c.rules.end(), [&](const std::string& r) { return glob_matches(selector, r); });
}

}  // namespace

std::string_view impldef_mode_name(ImpldefMode m) {
  switch (m) {
    case ImpldefMode::Report: return "report";
    case ImpldefMode::Fail: return "fail";
    case ImpldefMode::Skip: return "skip";
  }
  return "";
}

std::vector<std::string_view> case_groups(const Case& c) {
  if (c.rules.empty()) return {kGroups.begin(), kGroups.end()};
  std::vector<std::string_view> groups;
  for (const std::string& name : c.rules) {
    const RuleInfo* r = find_rule(name);
    if (r == nullptr) continue;  // a rule of a newer suite: no group, still selectable by id
    switch (r->scope) {
      case RuleScope::Container:
      case RuleScope::Strict:
      case RuleScope::Writer: add_group(groups, "container"); break;
      case RuleScope::Index: add_group(groups, "index"); break;
      case RuleScope::Quant: add_group(groups, "quant"); break;
    }
    if (r->tier == RuleTier::Data) add_group(groups, "data");
  }
  if (c.data) add_group(groups, "data");
  return groups;
}

Result<Unit, std::string> check_selector(const std::string& selector) {
  if (is_group(selector) || find_rule(selector) != nullptr) return Unit{};
  if (is_glob(selector) && !selector.empty()) return Unit{};
  return "expected a group (container, index, quant, data), a rule id of `safespec rules` or a glob, found '" +
         selector + "'";
}

bool selected(const Case& c, const Selection& s) {
  if (s.rerun && s.failed.count(c.file) == 0) return false;
  const auto hit = [&](const std::string& sel) { return matches(c, sel); };
  if (!s.only.empty() && std::none_of(s.only.begin(), s.only.end(), hit)) return false;
  return std::none_of(s.exclude.begin(), s.exclude.end(), hit);
}

Result<std::set<std::string>, std::string> read_failed(const std::filesystem::path& json) {
  const std::string where = "--rerun-failed: " + json.string() + ": ";
  std::ifstream in(json, std::ios::binary);
  if (!in) return where + "cannot read it";
  std::ostringstream read;
  read << in.rdbuf();
  const std::string text = read.str();
  auto doc = py::loads(text, py::LoadLimits{text.size(), kPythonJsonDepth});
  if (!doc) return where + "expected the JSON document of `conformance run --json`, found: " + doc.error().what();
  const py::Value* files = quant::get(doc.value(), "files");
  if (!files || !std::holds_alternative<py::List>(files->data))
    return where + "expected an object with a \"files\" array, as `conformance run --json` writes";
  std::set<std::string> failed;
  for (const py::Value& f : std::get<py::List>(files->data).items) {
    const py::Value* file = quant::get(f, "file");
    const py::Value* cls = quant::get(f, "class");
    const auto* file_text = file ? std::get_if<std::string>(&file->data) : nullptr;
    const auto* cls_text = cls ? std::get_if<std::string>(&cls->data) : nullptr;
    if (!file_text || !cls_text)
      return where + "expected every file to have a string \"file\" and \"class\", found one without";
    if (*cls_text != "agrees") failed.insert(*file_text);
  }
  return failed;
}

}  // namespace safespec::conformance
