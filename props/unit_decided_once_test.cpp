// What a profile shows and how many threads check files are each decided in
// one place (profile_applies, CheckJobs); these pin that every path honours
// the one decision.
#include <filesystem>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/commands/check.hpp"
#include "src/io/check_jobs.hpp"

using namespace safespec;

TEST_CASE("CheckJobs: any count converts once into 1..kMaxCheckJobs", "[jobs]") {
  static_assert(CheckJobs(0).count() == 1);
  static_assert(CheckJobs(1).count() == 1);
  static_assert(CheckJobs(kMaxCheckJobs).count() == kMaxCheckJobs);
  static_assert(CheckJobs(kMaxCheckJobs + 1).count() == kMaxCheckJobs);
  static_assert(CheckJobs(~0u).count() == kMaxCheckJobs);
  CHECK(CheckJobs(CheckJobs(0).count()) == CheckJobs(1));
}

TEST_CASE("profiles: a report never shows a finding of a rule its profile does not apply", "[profile]") {
  std::vector<std::string> paths;
  const auto examples = test::vectors_dir().parent_path() / "examples";
  for (const auto& e : std::filesystem::recursive_directory_iterator(examples))
    if (e.path().extension() == ".safetensors" || e.path().string().ends_with(".index.json"))
      paths.push_back(e.path().string());
  REQUIRE(paths.size() > 20);
  for (const Profile p : kProfiles) {
    INFO(profile_name(p));
    HeaderParser parser;
    std::size_t findings = 0;
    for (const FileReport& r : check_paths(paths, CheckOptions{.profile = p, .separate = true}, parser))
      for (const Finding& f : r.findings) {
        INFO(r.path << ": " << rule_name(f.rule));
        CHECK(profile_applies(p, f.rule));
        ++findings;
      }
    CHECK(findings > 0);
  }
  // The families, as the catalogue's table of scopes reads.
  CHECK_FALSE(profile_applies(Profile::Sglang, RuleScope::Strict));
  CHECK(profile_applies(Profile::Sglang, RuleScope::Quant));
  CHECK_FALSE(profile_applies(Profile::Safetensors, RuleScope::Quant));
  CHECK(profile_applies(Profile::Safetensors, RuleScope::Index));
  for (const RuleScope s : {RuleScope::Container, RuleScope::Strict, RuleScope::Writer, RuleScope::Index, RuleScope::Quant})
    CHECK(profile_applies(Profile::Strict, s));
}
