// Every rule of the catalogue is covered three ways: a test case tagged with
// its id ([ST-OFFSET-GAP]), a mutation in the property generators' tables that
// produces it (gen/mutations.hpp, gen/quant_mutations.hpp), and a
// conformance file whose manifest line lists it. Every tag that looks like a
// rule id names a rule of the catalogue, and every rule id a test's name
// mentions is among its tags. A rule that cannot have a mutation or a file is
// in kExceptions, the one list of such rules, with why; an exception that is no
// longer needed fails too.
#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conformance/manifest.hpp"
#include "gen/mutations.hpp"
#include "gen/quant_mutations.hpp"
#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "spec/rule_catalogue.hpp"

using namespace safespec;

namespace {

const std::filesystem::path kSuite = test::suite_dir();

enum class Lacks : unsigned char { Mutation, ConformanceFile };

struct Exception {
  std::string_view rule;
  Lacks lacks;
  std::string_view why;
};

constexpr std::string_view kIndexOnly =
    "judges a shard index against its shards, and a mutation changes one file; the index fuzzer's oracle "
    "(src/oracles/oracles_index.cpp) plants these faults";
constexpr std::string_view kConfigOnly =
    "needs the config.json beside the checkpoint (a legacy INT8 declaration), and a mutation changes one file's "
    "header; the conformance suite has folder cases with their config.json (conformance/suite_legacy_int8.cpp)";
constexpr std::string_view kDataOnly =
    "reads tensor values (check --data), and the quantized mutations change headers only";

constexpr std::array kExceptions{
    Exception{"ST-TENSOR-NAME-RESERVED", Lacks::Mutation,
              "writer-only: a reader sees a tensor named __metadata__ as metadata (ST-METADATA-TYPE)"},
    Exception{"ST-INDEX-JSON", Lacks::Mutation, kIndexOnly},
    Exception{"ST-INDEX-SHARD-MISSING", Lacks::Mutation, kIndexOnly},
    Exception{"ST-INDEX-TENSOR-MISSING", Lacks::Mutation, kIndexOnly},
    Exception{"ST-INDEX-TENSOR-UNLISTED", Lacks::Mutation, kIndexOnly},
    Exception{"ST-INDEX-TENSOR-IN-TWO-SHARDS", Lacks::Mutation, kIndexOnly},
    Exception{"ST-INDEX-TOTAL-SIZE", Lacks::Mutation, kIndexOnly},
    Exception{"CQ-LEGACY-INT8", Lacks::Mutation, kConfigOnly},
    Exception{"CQ-LEGACY-INT8-CONFIG", Lacks::Mutation, kConfigOnly},
    Exception{"CQ-LEGACY-INT8-MARKERS", Lacks::Mutation, kConfigOnly},
    Exception{"CQ-LEGACY-INT8-SCALE-MISSING", Lacks::Mutation, kConfigOnly},
    Exception{"CQ-LEGACY-INT8-SCALE-META", Lacks::Mutation, kConfigOnly},
    Exception{"CQ-LEGACY-INT8-NO-WEIGHTS", Lacks::Mutation, kConfigOnly},
    Exception{"CQ-DATA-SCALE", Lacks::Mutation, kDataOnly},
    Exception{"CQ-DATA-E8M0", Lacks::Mutation, kDataOnly},
    Exception{"CQ-DATA-SWIZZLE-PADDING", Lacks::Mutation, kDataOnly},
    Exception{"CQ-DATA-S-REL", Lacks::Mutation, kDataOnly},
    Exception{"CQ-DATA-CODEBOOK", Lacks::Mutation, kDataOnly},
    Exception{"CQ-DATA-CODEBOOK-ORDER", Lacks::Mutation, kDataOnly},
    Exception{"CQ-DATA-W4A4-RANGE", Lacks::Mutation, kDataOnly},
    Exception{"CQ-DATA-INT8-RANGE", Lacks::Mutation, kDataOnly},
};

bool excepted(std::string_view rule, Lacks lacks) {
  return std::any_of(kExceptions.begin(), kExceptions.end(),
                     [&](const Exception& e) { return e.rule == rule && e.lacks == lacks; });
}

std::set<std::string> catalogue_names() {
  std::set<std::string> names;
  for (const RuleInfo& r : rule_catalogue()) names.emplace(r.name);
  return names;
}

// "ST", "CQ", "NUM": what a rule id starts with, before its first '-'.
std::set<std::string> catalogue_prefixes() {
  std::set<std::string> prefixes;
  for (const RuleInfo& r : rule_catalogue()) prefixes.emplace(r.name.substr(0, r.name.find('-')));
  return prefixes;
}

bool looks_like_rule_id(const std::string& tag, const std::set<std::string>& prefixes) {
  std::string upper = tag;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const auto dash = upper.find('-');
  return dash != std::string::npos && dash + 1 < upper.size() && prefixes.count(upper.substr(0, dash)) == 1;
}

// Rule id -> the test cases tagged with it.
std::map<std::string, std::vector<std::string>> tagged_tests() {
  std::map<std::string, std::vector<std::string>> tagged;
  for (const Catch::TestCase& t : Catch::getRegistryHub().getTestCaseRegistry().getAllTests())
    for (const std::string& tag : t.tags) tagged[tag].push_back(t.name);
  return tagged;
}

// The words of `text` that look like rule ids: a run of A-Z, 0-9 and '-'
// that starts a word, begins with a catalogue prefix and a dash, and ends
// without a dash ("CQ-W4A8", "ST-OFFSET-GAP"). A hand scanner, not
// std::regex: GCC 12's regex trips -Wmaybe-uninitialized under ASan.
std::vector<std::string> id_like_words(const std::string& text, const std::set<std::string>& prefixes) {
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  const auto id_char = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'; };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    if (!id_char(text[i]) || (i > 0 && word_char(text[i - 1]))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && id_char(text[j])) ++j;
    std::string word = text.substr(i, j - i);
    while (!word.empty() && word.back() == '-') word.pop_back();
    const auto dash = word.find('-');
    if (dash != std::string::npos && dash + 1 < word.size() && prefixes.count(word.substr(0, dash)) &&
        word.find("--") == std::string::npos)
      out.push_back(std::move(word));
    i = j;
  }
  return out;
}

}  // namespace

TEST_CASE("rule coverage: every tag that looks like a rule id names a rule of the catalogue", "[coverage]") {
  const auto names = catalogue_names();
  const auto prefixes = catalogue_prefixes();
  for (const auto& [tag, tests] : tagged_tests()) {
    if (!looks_like_rule_id(tag, prefixes)) continue;
    INFO("[" << tag << "] on \"" << tests.front() << "\" names no rule (safespec rules)");
    CHECK(names.count(tag) == 1);
  }
}

TEST_CASE("rule coverage: every rule id a test's name mentions is among its tags", "[coverage]") {
  const auto names = catalogue_names();
  const auto prefixes = catalogue_prefixes();
  for (const Catch::TestCase& t : Catch::getRegistryHub().getTestCaseRegistry().getAllTests()) {
    for (const std::string& mentioned : id_like_words(t.name, prefixes)) {
      if (names.count(mentioned) == 0) continue;  // a family, e.g. CQ-W4A8 or ST-INDEX-*
      INFO("\"" << t.name << "\" mentions " << mentioned << " but lacks the tag [" << mentioned << "]");
      CHECK(std::find(t.tags.begin(), t.tags.end(), mentioned) != t.tags.end());
    }
  }
}

TEST_CASE("rule coverage: every rule has a tagged test, a mutation and a conformance file", "[coverage]") {
  const auto tagged = tagged_tests();
  std::set<std::string> mutated;
  for (const gen::Mutation& m : gen::mutation_catalogue()) mutated.emplace(rule_name(m.rule));
  for (const gen::quant::QuantMutation& m : gen::quant::quant_mutation_catalogue()) mutated.emplace(rule_name(m.rule));
  const auto manifest = conformance::read_manifest(kSuite);
  if (!manifest) FAIL(manifest.error());
  std::set<std::string> in_files;
  for (const conformance::Case& c : manifest.value()) in_files.insert(c.rules.begin(), c.rules.end());

  for (const RuleInfo& r : rule_catalogue()) {
    const std::string name(r.name);
    INFO(name);
    {
      INFO("no test case is tagged [" << name << "]");
      CHECK(tagged.count(name) == 1);
    }
    const bool has_mutation = mutated.count(name) == 1;
    if (excepted(name, Lacks::Mutation)) {
      INFO("a mutation produces it now: drop its exception from kExceptions");
      CHECK_FALSE(has_mutation);
    } else {
      INFO("no mutation in gen/ produces it");
      CHECK(has_mutation);
    }
    const bool has_file = in_files.count(name) == 1;
    if (excepted(name, Lacks::ConformanceFile)) {
      INFO("a conformance file lists it now: drop its exception from kExceptions");
      CHECK_FALSE(has_file);
    } else {
      INFO("no conformance file lists it (corpus/conformance/manifest.jsonl)");
      CHECK(has_file);
    }
  }
}

TEST_CASE("rule coverage: each exception names a rule of the catalogue once", "[coverage]") {
  const auto names = catalogue_names();
  std::set<std::pair<std::string_view, Lacks>> seen;
  for (const Exception& e : kExceptions) {
    INFO(e.rule);
    CHECK(names.count(std::string(e.rule)) == 1);
    CHECK(!e.why.empty());
    CHECK(seen.emplace(e.rule, e.lacks).second);
  }
}
