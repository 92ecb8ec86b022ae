// One sink for every producer of findings (spec/finding_sink.hpp): severity
// from the catalogue, each rule's first kMaxRecords findings listed and the
// rest counted, and every finding counted per rule.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gen/file_bytes.hpp"
#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "spec/finding_sink.hpp"
#include "spec/format_rules.hpp"
#include "spec/rule_catalogue.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

// n F32 tensors of one element each, the first starting at byte 1 of the
// buffer after a gap-free U8 tensor, so every F32 tensor is unaligned (W8).
std::string unaligned_header(int n) {
  std::string h = R"({"u":{"dtype":"U8","shape":[1],"data_offsets":[0,1]})";
  for (int i = 0; i < n; ++i)
    h += ",\"t" + std::to_string(i) + R"(":{"dtype":"F32","shape":[1],"data_offsets":[)" + std::to_string(1 + 4 * i) +
         "," + std::to_string(5 + 4 * i) + "]}";
  return pad8(h + "}");
}

}  // namespace

TEST_CASE("FindingSink: severity from the catalogue, 1000 listed per rule, every finding counted") {
  FindingSink sink;
  for (int i = 0; i < 1003; ++i) sink.add(RuleId::TensorUnaligned, Place::tensor("t"), "m");
  sink.add(Finding{RuleId::OffsetGap, Severity::Warning, Place::tensor("a"), "gap", {}});
  CHECK(sink.counts()[RuleId::TensorUnaligned] == 1003);
  CHECK(sink.counts()[RuleId::OffsetGap] == 1);
  CHECK_FALSE(sink.lists(RuleId::TensorUnaligned));
  CHECK(sink.lists(RuleId::OffsetGap));
  const Findings out = std::move(sink).finish(Place::header());
  REQUIRE(out.size() == 1002);
  CHECK(out[0].severity == rule_info(RuleId::TensorUnaligned).severity);
  CHECK(out[1000].rule == RuleId::OffsetGap);
  CHECK(out[1000].severity == rule_info(RuleId::OffsetGap).severity);  // the catalogue's, not the producer's
  CHECK(out[1001].where == Place::header());
  CHECK(out[1001].message == "found 3 more findings of this rule beyond the 1000 listed");
}

// count_lines scans the rules' counts only once some rule went past the
// bound (FindingSink::past_bound_); the lines are the same whichever way a
// finding past it came: add(rule, ...), add(Finding), or count_only.
TEST_CASE("FindingSink: a count line exactly for each rule past the bound, however it was counted", "[unit]") {
  FindingSink none;
  for (int i = 0; i < 1000; ++i) none.add(RuleId::TensorUnaligned, Place::tensor("t"), "m");
  for (int i = 0; i < 1000; ++i) none.count_only(RuleId::OffsetGap);  // counted, never past the bound
  CHECK(none.count_lines(Place::file()).empty());
  for (int way = 0; way < 3; ++way) {
    INFO("way " << way);
    FindingSink sink;
    for (int i = 0; i < 1000; ++i) sink.add(RuleId::OffsetGap, Place::tensor("g"), "m");
    for (int i = 0; i < 1002; ++i) {
      if (way == 0) sink.add(RuleId::TensorUnaligned, Place::tensor("t"), "m");
      else if (way == 1) sink.add(Finding{RuleId::TensorUnaligned, Severity::Warning, Place::tensor("t"), "m", {}});
      else if (sink.lists(RuleId::TensorUnaligned)) sink.add(RuleId::TensorUnaligned, Place::tensor("t"), "m");
      else sink.count_only(RuleId::TensorUnaligned);
    }
    const Findings lines = sink.count_lines(Place::file());
    REQUIRE(lines.size() == 1);  // OffsetGap at exactly 1000 has none
    CHECK(lines[0].rule == RuleId::TensorUnaligned);
    CHECK(lines[0].where == Place::file());
    CHECK(lines[0].message == "found 2 more findings of this rule beyond the 1000 listed");
  }
}

TEST_CASE("ST-TENSOR-UNALIGNED (W8): strict findings are bounded where they are produced", "[ST-TENSOR-UNALIGNED]") {
  const Model m = require_model(gen::file_with_header(unaligned_header(1500), 1 + 4 * 1500));
  const Findings s = strict_findings(m);
  REQUIRE(s.size() == 1001);
  CHECK(s[999].where == Place::tensor("t999"));
  CHECK(s[1000].rule == RuleId::TensorUnaligned);
  CHECK(s[1000].where == Place::header());
  CHECK(s[1000].message == "found 500 more findings of this rule beyond the 1000 listed");
}

TEST_CASE("CLI: --json counts every finding per rule, listed or not") {
  CliScratch s("safespec_unit_finding_sink");
  const auto f = s.file("unaligned.safetensors", gen::file_with_header(unaligned_header(1200), 1 + 4 * 1200));
  const Run r = s.run("check --json " + shell_word(f));
  CHECK(r.code == 0);  // warnings only
  CHECK(r.out.find(R"("counts":{"ST-TENSOR-UNALIGNED":1200},)") != std::string::npos);
}

TEST_CASE("ST-INDEX-TENSOR-IN-TWO-SHARDS: tensors in two files of one checkpoint are bounded per file",
          "[ST-INDEX-TENSOR-IN-TWO-SHARDS]") {
  CliScratch s("safespec_unit_finding_sink");
  const auto bytes = gen::file_with_header(unaligned_header(1100), 1 + 4 * 1100);
  const auto a = s.file("a.safetensors", bytes);
  const auto b = s.file("b.safetensors", bytes);
  const Run r = s.run("check --json --checkpoint " + shell_word(a) + " " + shell_word(b));
  CHECK(r.code == 1);
  CHECK(r.out.find(R"("counts":{"ST-TENSOR-UNALIGNED":1100,"ST-INDEX-TENSOR-IN-TWO-SHARDS":1101},)") != std::string::npos);
  CHECK(r.out.find(R"("message":"found 101 more findings of this rule beyond the 1000 listed")") != std::string::npos);
}

TEST_CASE("bound_findings: no findings gives none, and every rule's count is zero", "[unit]") {
  RuleCounts counts;
  counts.add(RuleId::TensorUnaligned, 7);  // what the caller's counts held before
  CHECK(bound_findings({}, &counts).empty());
  CHECK(counts == RuleCounts{});
  CHECK(bound_findings({}).empty());
  // One finding: the same answer with or without the early path.
  const Findings one{Finding{RuleId::OffsetGap, Severity::Error, Place::tensor("a"), "gap", {}}};
  counts.add(RuleId::TensorUnaligned, 7);
  CHECK(bound_findings(one, &counts) == one);
  RuleCounts expected;
  expected.add(RuleId::OffsetGap);
  CHECK(counts == expected);
}

// RuleCounts keeps only the rules with a count: the law is that it reads
// exactly as an array of every rule's count would, whatever adds and takes
// came before, and that equal counts compare equal however they were made.
TEST_CASE("RuleCounts: reads as an array of every rule's count after any adds and takes", "[unit]") {
  rc::prop("adds and takes", [] {
    const auto ops = *rc::gen::container<std::vector<std::tuple<bool, std::uint16_t, std::uint8_t>>>(
        rc::gen::tuple(rc::gen::arbitrary<bool>(), rc::gen::inRange<std::uint16_t>(0, kRuleCount),
                       rc::gen::arbitrary<std::uint8_t>()));
    RuleCounts counts;
    std::array<std::uint64_t, kRuleCount> model{};
    for (const auto& [take, rule, n] : ops) {
      const auto id = static_cast<RuleId>(rule);
      if (take) {
        RC_ASSERT(counts.take(id) == model[rule]);
        model[rule] = 0;
      } else {
        counts.add(id, n);
        model[rule] += n;
      }
    }
    RuleCounts rebuilt;
    for (std::size_t r = kRuleCount; r-- > 0;) rebuilt.add(static_cast<RuleId>(r), model[r]);
    RC_ASSERT(counts == rebuilt);
    std::size_t nonzero = 0;
    for (std::size_t r = 0; r < kRuleCount; ++r) {
      RC_ASSERT(counts[static_cast<RuleId>(r)] == model[r]);
      nonzero += model[r] != 0;
    }
    RC_ASSERT(counts.entries().size() == nonzero);
    for (std::size_t i = 1; i < counts.entries().size(); ++i)
      RC_ASSERT(counts.entries()[i - 1].first < counts.entries()[i].first);
  });
}
