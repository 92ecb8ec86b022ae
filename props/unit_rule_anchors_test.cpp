// Every upstream rule number the catalogue cites (spec/rule_catalogue.cpp,
// `safespec rules`) is written down in docs/spec/: a reader who looks up "F3"
// or "S9.3 A2" finds the rule there. docs/spec/README.md says how the docs
// mark a number: a heading that starts with it ("### F3 — ...",
// "#### F6.1, F6.2, F6.4 — ...") or a bold entry ("**S9.3 A2**").
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "props/catch.hpp"
#include "spec/rule_catalogue.hpp"

using namespace safespec;

namespace {

std::vector<std::string_view> rule_number_list(std::string_view list) {
  std::vector<std::string_view> out;
  while (!list.empty()) {
    const auto comma = list.find(", ");
    out.push_back(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 2);
  }
  return out;
}

// The numbers one markdown text anchors. A heading's numbers are what comes
// before its " — ", unless that is prose (code or a parenthesis in it).
void add_doc_anchors(std::string_view text, std::set<std::string, std::less<>>& anchors) {
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.starts_with('#')) {
      const auto start = line.find_first_not_of("# ");
      const auto dash = line.find(" — ");
      const std::string_view numbers = dash == std::string_view::npos ? "" : line.substr(start, dash - start);
      if (!numbers.empty() && numbers.find_first_of("`(") == std::string_view::npos)
        for (std::string_view n : rule_number_list(numbers)) anchors.emplace(n);
    }
    for (auto open = line.find("**"); open != std::string_view::npos; open = line.find("**")) {
      const auto close = line.find("**", open + 2);
      if (close == std::string_view::npos) break;
      anchors.emplace(line.substr(open + 2, close - open - 2));
      line = line.substr(close + 2);
    }
  }
}

std::set<std::string, std::less<>> spec_doc_anchors() {
  std::set<std::string, std::less<>> anchors;
  for (const auto& entry : std::filesystem::directory_iterator("docs/spec")) {  // ctest runs in the source tree
    if (entry.path().extension() != ".md") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    add_doc_anchors(text.str(), anchors);
  }
  return anchors;
}

// The numbers of a catalogue row's rule_number that no doc anchors. A range
// ("L10-L16") is anchored when both of its ends are.
std::vector<std::string> unanchored_numbers(std::string_view rule_number, const std::set<std::string, std::less<>>& anchors) {
  std::vector<std::string> out;
  for (std::string_view n : rule_number_list(rule_number)) {
    if (anchors.contains(n)) continue;
    const auto dash = n.find('-');
    if (dash != std::string_view::npos && anchors.contains(n.substr(0, dash)) && anchors.contains(n.substr(dash + 1)))
      continue;
    out.emplace_back(n);
  }
  return out;
}

}  // namespace

TEST_CASE("docs/spec anchors every rule number the rule catalogue cites") {
  const auto anchors = spec_doc_anchors();
  REQUIRE(anchors.contains("F1"));  // the docs were found and read
  for (const RuleInfo& r : rule_catalogue()) {
    INFO(r.name << " cites " << r.rule_number);
    CHECK(!r.rule_number.empty());
    CHECK(unanchored_numbers(r.rule_number, anchors).empty());
  }
}

TEST_CASE("rule anchors: headings and bold entries anchor, a made-up number does not") {
  std::set<std::string, std::less<>> anchors;
  add_doc_anchors("### F3 — `ST-HEADER-TOO-LARGE` (error)\n#### F6.1, F6.2 — syntax\n"
              "## 8. `NUM-K` (error) — bound\n- **S9.3 A2** (`CQ-W4A8-DTYPES`)\n| **G1** | x |\n",
              anchors);
  CHECK(anchors == std::set<std::string, std::less<>>{"F3", "F6.1", "F6.2", "S9.3 A2", "G1"});
  CHECK(unanchored_numbers("F3, F6.1-F6.2, S9.3 A2", anchors).empty());
  CHECK(unanchored_numbers("F3, F99, S9.3 A9, F6.1-F7", anchors) == std::vector<std::string>{"F99", "S9.3 A9", "F6.1-F7"});
}
