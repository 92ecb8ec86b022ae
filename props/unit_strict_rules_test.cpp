// Strict-only rules (X1, X3, X8, X10, X11, X19, W5/W8 warnings), profiles,
// and the rule catalogue itself.
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gen/file_bytes.hpp"
#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "spec/file_reader.hpp"
#include "spec/format_rules.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/commands/check.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

const std::string kA = R"({"dtype":"U8","shape":[1],"data_offsets":[0,1]})";

std::vector<std::string> severity_lines(const Findings& fs) {
  std::vector<std::string> out;
  for (const Finding& f : fs)
    out.push_back(std::string(rule_name(f.rule)) + (f.severity == Severity::Error ? " E | " : " W | ") + f.where.text() +
                  " | " + f.message);
  return out;
}

std::vector<std::string> strict_of(const Bytes& file) { return severity_lines(check_model(require_model(file), Profile::Strict)); }
std::vector<std::string> reference_of(const Bytes& file) {
  return severity_lines(check_model(require_model(file), Profile::Safetensors));
}

bool report_ok(const Bytes& file, Profile p) {
  const Model m = require_model(file);
  return FileReport{"mem", check_model(m, p), std::nullopt, m, {}, false, std::nullopt, {}, {}}.ok();
}

}  // namespace

TEST_CASE("ST-DUPLICATE-TENSOR (X3, F6.16): strict rejects, the reference keeps the last", "[ST-DUPLICATE-TENSOR]") {
  const auto f = gen::file_with_header(pad8(R"({"a":)" + kA + R"(,"a":)" + kA + "}"), 1);
  CHECK(strict_of(f) == std::vector<std::string>{"ST-DUPLICATE-TENSOR E | tensor 'a' | expected each tensor name once, "
                                                 "found it again (the reference keeps the last entry)"});
  CHECK(reference_of(f).empty());
  CHECK_FALSE(report_ok(f, Profile::Strict));
  CHECK(report_ok(f, Profile::Safetensors));
  CHECK(rule_info(RuleId::DuplicateTensor).reference.empty());
}

TEST_CASE("ST-DUPLICATE-TENSOR-ESCAPED (X3, F6.5): two spellings of one name", "[ST-DUPLICATE-TENSOR-ESCAPED]") {
  const auto f = gen::file_with_header(pad8(R"({"a":)" + kA + R"(,"\u0061":)" + kA + "}"), 1);
  CHECK(strict_of(f) == std::vector<std::string>{"ST-DUPLICATE-TENSOR-ESCAPED E | tensor 'a' | expected distinct tensor "
                                                 "names, found two spellings that decode to the same name"});
  CHECK(reference_of(f).empty());
}

TEST_CASE("ST-DUPLICATE-METADATA-KEY (X3, F6.9): a metadata key twice", "[ST-DUPLICATE-METADATA-KEY]") {
  const auto f = gen::file_with_header(pad8(R"({"__metadata__":{"k":"1","k":"2"}})"));
  CHECK(strict_of(f) == std::vector<std::string>{"ST-DUPLICATE-METADATA-KEY E | __metadata__['k'] | expected each "
                                                 "metadata key once, found it again (the reference keeps the last value)"});
  CHECK(reference_of(f).empty());
  CHECK(require_model(f).header.metadata == std::vector<std::pair<std::string, std::string>>{{"k", "2"}});
}

TEST_CASE("ST-DUPLICATE-TENSOR (X3): each repetition is reported", "[ST-DUPLICATE-TENSOR]") {
  const auto f = gen::file_with_header(pad8(R"({"a":)" + kA + R"(,"a":)" + kA + R"(,"a":)" + kA + "}"), 1);
  CHECK(strict_of(f).size() == 2);
}

TEST_CASE("ST-HEADER-UNALIGNED (W5, §6): N = 60 is a warning only", "[ST-HEADER-UNALIGNED]") {
  const auto f = gen::file_with_header(R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}})", 16);
  CHECK(strict_of(f) == std::vector<std::string>{
                            "ST-HEADER-UNALIGNED W | byte 0 | expected a header length that is a multiple of 8, found 60"});
  CHECK(report_ok(f, Profile::Strict));
  CHECK(reference_of(f).empty());
}

TEST_CASE("ST-HEADER-LEADING-SPACE (X1): whitespace before '{' is a warning", "[ST-HEADER-LEADING-SPACE]") {
  const auto f = gen::file_with_header(pad8("\t\n{}"));
  CHECK(strict_of(f) == std::vector<std::string>{"ST-HEADER-LEADING-SPACE W | byte 8 | expected the header to begin "
                                                 "with '{', found 2 bytes of whitespace first"});
  CHECK(report_ok(f, Profile::Strict));
}

TEST_CASE("ST-TENSOR-UNALIGNED (W8, §6): an F32 at file offset 8+N+1", "[ST-TENSOR-UNALIGNED]") {
  const std::string h = pad8(R"({"a":)" + kA + R"(,"b":{"dtype":"F32","shape":[1],"data_offsets":[1,5]}})");
  const auto f = gen::file_with_header(h, 5);
  CHECK(strict_of(f) == std::vector<std::string>{
                            "ST-TENSOR-UNALIGNED W | tensor 'b' | expected the data to start at a file offset that is a "
                            "multiple of 4 (F32), found data_offsets begin 1 after a " +
                            std::to_string(8 + h.size()) + "-byte prefix"});
  CHECK(reference_of(f).empty());
}

TEST_CASE("ST-TENSOR-UNALIGNED (W8): alignment is of the file offset, not the data offset", "[ST-TENSOR-UNALIGNED]") {
  // N = 60: data starts at 68, a multiple of 4 but not of 8.
  const std::string i32 = R"({"t":{"dtype":"I32","shape":[2],"data_offsets":[0,8]}})";
  const std::string f64 = R"({"t":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})";
  const auto pad_to = [](std::string h, std::size_t n) { h.resize(n, ' '); return h; };
  const auto a = strict_of(gen::file_with_header(pad_to(i32, 60), 8));
  CHECK(a == std::vector<std::string>{"ST-HEADER-UNALIGNED W | byte 0 | expected a header length that is a multiple of 8, found 60"});
  const auto b = strict_of(gen::file_with_header(pad_to(f64, 60), 8));
  REQUIRE(b.size() == 2);
  CHECK(b[1] == "ST-TENSOR-UNALIGNED W | tensor 't' | expected the data to start at a file offset that is a multiple "
                "of 8 (F64), found data_offsets begin 0 after a 68-byte prefix");
  // Sub-byte, one-byte and zero-sized tensors are never unaligned.
  CHECK(strict_of(gen::file_with_header(
            pad8(R"({"a":)" + kA + R"(,"f":{"dtype":"F4","shape":[2],"data_offsets":[1,2]},"z":{"dtype":"F64","shape":[0],"data_offsets":[2,2]}})"),
            2)).empty());
}

TEST_CASE("ST-METADATA-NULL (X8): __metadata__ null is accepted, strict warns", "[ST-METADATA-NULL]") {
  const auto f = gen::file_with_header(pad8(R"({"__metadata__":null})"));
  CHECK(strict_of(f) == std::vector<std::string>{
                            "ST-METADATA-NULL W | __metadata__ | expected __metadata__ to be an object or absent, found null"});
  CHECK(reference_of(f).empty());
  CHECK(report_ok(f, Profile::Strict));
}

TEST_CASE("ST-TENSOR-UNKNOWN-FIELD (X19, F6.11): an ignored field is a strict warning", "[ST-TENSOR-UNKNOWN-FIELD]") {
  const auto f = gen::file_with_header(pad8(R"({"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x\"y":1}})"), 1);
  CHECK(strict_of(f) == std::vector<std::string>{"ST-TENSOR-UNKNOWN-FIELD W | tensor 't' | expected only dtype, shape "
                                                 "and data_offsets, found the field 'x\"y'"});
  CHECK(reference_of(f).empty());
}

TEST_CASE("ST-DUPLICATE-NESTED-KEY (X3, F6.11): a key repeated among unknown fields or inside their values",
          "[ST-DUPLICATE-NESTED-KEY]") {
  const auto twice = gen::file_with_header(
      pad8(R"({"t":{"dtype":"U8","x":1,"shape":[1],"\u0078":2,"data_offsets":[0,1]}})"), 1);
  const auto s = strict_of(twice);
  REQUIRE(s.size() == 3);
  CHECK(s[0] == "ST-DUPLICATE-NESTED-KEY E | tensor 't' field 'x' | expected each key of an object once, found it "
                "again spelled differently (the reference ignores this value)");
  CHECK(reference_of(twice).empty());
  CHECK_FALSE(report_ok(twice, Profile::Strict));
  CHECK(report_ok(twice, Profile::Safetensors));

  const auto nested = gen::file_with_header(
      pad8(R"({"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":[0,{"k":1,"k":{"a":[],"a":0}}]}})"), 1);
  const auto n = strict_of(nested);
  REQUIRE(n.size() == 3);
  CHECK(n[0] == "ST-DUPLICATE-NESTED-KEY E | tensor 't' field 'x'[1] key 'k' | expected each key of an object once, "
                "found it again (the reference ignores this value)");
  CHECK(n[1] == "ST-DUPLICATE-NESTED-KEY E | tensor 't' field 'x'[1] key 'k' key 'a' | expected each key of an "
                "object once, found it again (the reference ignores this value)");
}

TEST_CASE("ST-DUPLICATE-METADATA-KEY (X3): the model lists 1000 repeats and counts the rest",
          "[ST-DUPLICATE-METADATA-KEY]") {
  std::string h = R"({"__metadata__":{)";
  for (int i = 0; i < 1003; ++i) h += R"("k":"v",)";
  h += R"("k":"v"}})";
  const auto s = strict_of(gen::file_with_header(pad8(h)));
  REQUIRE(s.size() == 1001);
  CHECK(s[999].starts_with("ST-DUPLICATE-METADATA-KEY E | __metadata__['k']"));
  CHECK(s[1000] == "ST-DUPLICATE-NESTED-KEY E | header | expected each key once, found 3 more repeated keys beyond "
                   "the 1000 listed");
}

TEST_CASE("X11: __METADATA__ is a tensor name, not the metadata key", "[ST-TENSOR-FIELD-MISSING]") {
  require_error(gen::file_with_header(R"({"__METADATA__":{"k":"v"}})"), "ST-TENSOR-FIELD-MISSING",
                "tensor '__METADATA__'", "expected the field dtype, found no such field");
  const auto m = require_model(gen::file_with_header(pad8(R"({"__METADATA__":)" + kA + "}"), 1));
  REQUIRE(m.header.tensors.size() == 1);
  CHECK(m.header.tensors[0].name == "__METADATA__");
  CHECK(m.header.metadata_state == MetadataState::Absent);
}

TEST_CASE("X10: a tensor written as __metadata__ is read as metadata and rejected", "[ST-METADATA-TYPE]") {
  require_error(gen::file_with_header(R"({"__metadata__":)" + kA + "}", 1), "ST-METADATA-TYPE", "__metadata__['shape']",
                "expected a string value, found an array");
}

TEST_CASE("X1-X19: strict findings follow reference findings, errors before warnings") {
  // Leading space, N unaligned, null metadata, duplicate tensor, unknown field, trailing byte.
  const std::string h = R"( {"__metadata__":null,"a":)" + kA +
                        R"(,"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"q":0}})";
  const auto f = gen::file_with_header(h.size() % 8 ? h : h + " ", 2);
  const auto got = strict_of(f);
  REQUIRE(got.size() == 6);
  CHECK(got[0].starts_with("ST-BUFFER-TRAILING E |"));
  CHECK(got[1].starts_with("ST-DUPLICATE-TENSOR E | tensor 'a'"));
  CHECK(got[2].starts_with("ST-HEADER-LEADING-SPACE W |"));
  CHECK(got[3].starts_with("ST-HEADER-UNALIGNED W |"));
  CHECK(got[4].starts_with("ST-METADATA-NULL W |"));
  CHECK(got[5].starts_with("ST-TENSOR-UNKNOWN-FIELD W | tensor 'a'"));
  CHECK(reference_of(f) == std::vector<std::string>{got[0]});
  CHECK(severity_lines(reference_findings(require_model(f))) == std::vector<std::string>{got[0]});
  CHECK(severity_lines(strict_findings(require_model(f))).size() == 5);
}

TEST_CASE("ST-* catalogue: 40 ST- rules, then the CQ-/NUM- rules, in RuleId order with unique names") {
  const auto cat = rule_catalogue();
  REQUIRE(cat.size() == kRuleCount);
  std::set<std::string_view> names;
  std::size_t st = 0;
  for (std::size_t i = 0; i < cat.size(); ++i) {
    INFO(cat[i].name);
    CHECK(static_cast<std::size_t>(cat[i].id) == i);
    const bool quant = is_quant_rule(cat[i].id);
    st += quant ? 0 : 1;
    CHECK(cat[i].name.starts_with(quant ? (cat[i].name.starts_with("NUM-") ? "NUM-" : "CQ-") : "ST-"));
    CHECK_FALSE(cat[i].rule_number.empty());
    CHECK_FALSE(cat[i].description.empty());
    CHECK(names.insert(cat[i].name).second);
    CHECK(&rule_info(cat[i].id) == &cat[i]);
    CHECK(rule_name(cat[i].id) == cat[i].name);
  }
  CHECK(st == 40);
}

TEST_CASE("ST-* catalogue (§5): reference variants, severities and profiles") {
  const std::set<std::string_view> variants{"HeaderTooSmall", "HeaderTooLarge", "InvalidHeaderLength", "InvalidHeader",
                                            "InvalidHeaderDeserialization", "InvalidOffset", "ValidationOverflow",
                                            "MisalignedSlice", "TensorInvalidInfo", "MetadataIncompleteBuffer"};
  const std::set<std::string_view> warnings{"ST-HEADER-UNALIGNED", "ST-HEADER-LEADING-SPACE", "ST-TENSOR-UNALIGNED",
                                            "ST-METADATA-NULL", "ST-TENSOR-UNKNOWN-FIELD"};
  for (const RuleInfo& r : rule_catalogue()) {
    INFO(r.name);
    if (is_quant_rule(r.id)) {
      CHECK(r.reference.empty());  // the reference reader never looks inside a layer
      CHECK_FALSE(profile_applies(Profile::Safetensors, r.id));
      continue;
    }
    if (!r.reference.empty()) CHECK(variants.count(r.reference) == 1);
    CHECK((r.severity == Severity::Warning) == (warnings.count(r.name) == 1));
    if (r.severity == Severity::Warning) CHECK(r.reference.empty());
    CHECK(profile_applies(Profile::Strict, r.id));
    const bool index = r.scope == RuleScope::Index;
    CHECK(index == r.name.starts_with("ST-INDEX-"));
    CHECK(profile_applies(Profile::Safetensors, r.id) == (!r.reference.empty() || index));
  }
  CHECK(profile_name(Profile::Strict) == "strict");
  CHECK(profile_name(Profile::Safetensors) == "safetensors");
}
