// What the command says about itself: --version, usage lines, and
// docs/RULES.md, which `safespec rules --markdown` writes.
#include <fstream>
#include <sstream>
#include <string_view>
#include <string>

#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "spec/rule_catalogue.hpp"
#include "spec/upstream_versions.hpp"

using namespace safespec;
using namespace safespec::test;

TEST_CASE("CLI: --version names safespec's version and every upstream state its rules follow") {
  CliScratch s("safespec_unit_cli_docs");
  const Run r = s.run("--version");
  CHECK(r.code == 0);
  CHECK(r.out.starts_with("safespec 0."));
  for (const UpstreamVersion& u : kUpstreamVersions)
    CHECK(r.out.find("  " + std::string(u.project) + ": " + std::string(u.version) + "\n") != std::string::npos);
}

TEST_CASE("CLI: usage lines say safespec, not the path of the binary") {
  CliScratch s("safespec_unit_cli_docs");
  const Run r = s.run("check --help");
  CHECK(r.out.find("Usage: safespec check [OPTIONS] paths...") != std::string::npos);
  CHECK(r.out.find(cli_path()) == std::string::npos);
}

TEST_CASE("docs/RULES.md is what `safespec rules --markdown` prints, one row per rule") {
  CliScratch s("safespec_unit_cli_docs");
  const Run r = s.run("rules --markdown");
  CHECK(r.code == 0);
  std::ifstream in("docs/RULES.md", std::ios::binary);  // ctest runs in the source tree
  REQUIRE(in);
  std::ostringstream committed;
  committed << in.rdbuf();
  // On a difference, regenerate: ./build/dev/safespec rules --markdown > docs/RULES.md
  CHECK(committed.str() == r.out);
  std::size_t rows = 0;
  for (const RuleInfo& info : rule_catalogue())
    rows += r.out.find("| `" + std::string(info.name) + "` | ") != std::string::npos;
  CHECK(rows == rule_catalogue().size());
}

TEST_CASE("Rule catalogue: scope and tier are typed columns that agree with the rest of the row") {
  for (const RuleInfo& r : rule_catalogue()) {
    INFO(r.name);
    // The reference rejects exactly the container rules.
    CHECK((r.scope == RuleScope::Container) == !r.reference.empty());
    CHECK((r.scope == RuleScope::Index) == std::string_view(r.name).starts_with("ST-INDEX-"));
    CHECK((r.scope == RuleScope::Quant) == (std::string_view(r.name).starts_with("CQ-") ||
                                            std::string_view(r.name).starts_with("NUM-")));
    // Only quantized layers have value rules, and their ids say so.
    CHECK((r.tier == RuleTier::Data) == std::string_view(r.name).starts_with("CQ-DATA-"));
  }
  CliScratch s("safespec_unit_cli_docs");
  const Run j = s.run("rules --json");
  CHECK(j.out.find(R"({"id":"ST-OFFSET-GAP","severity":"error","scope":"container","tier":"header","rule_number":"F8",)") !=
        std::string::npos);
  CHECK(j.out.find(R"({"id":"CQ-DATA-E8M0","severity":"error","scope":"quant","tier":"data",)") != std::string::npos);
}
