// `safespec check` output that helps: every rule's fix hint (text,
// JSON, `safespec rules`), less noise (the reference's view only for
// container rules, one verdict line for a file no consumer can parse, a note
// on a strict-only FAIL), and the CI controls --ignore, --summary, --quiet and
// --format sarif.
#include <cctype>
#include <set>
#include <string>

#include "props/catch.hpp"
#include "props/json_support.hpp"
#include "props/unit_support.hpp"
#include "spec/rule_catalogue.hpp"

using namespace safespec;
using test::Json;
using test::parse_json;
using test::Run;

namespace {

std::string suite_file(const std::string& name) { return test::shell_word((test::suite_dir() / name).string()); }

Run cli(const std::string& args) { return test::run_cli(std::filesystem::temp_directory_path().string(), args); }

// A file every consumer loads that strict fails (a repeated tensor name).
const std::string kDuplicate = "strict-reject_ST-DUPLICATE-TENSOR_decorated_01.safetensors";
// A header that is not JSON: no consumer gets past the container.
const std::string kSyntax = "reject_ST-JSON-SYNTAX_X12_reference_writer_empty_metadata.safetensors";

}  // namespace

TEST_CASE("every rule has a one-line fix hint", "[rules]") {
  std::set<std::string_view> seen;
  for (const RuleInfo& r : rule_catalogue()) {
    INFO(r.name);
    CHECK(!r.fix.empty());
    CHECK(r.fix.size() <= 120);
    CHECK(r.fix.find('\n') == std::string_view::npos);
    CHECK(std::islower(static_cast<unsigned char>(r.fix.front())));
    CHECK(r.fix.back() != '.');
    seen.insert(r.fix);
  }
  // Hints are written for their rule, not pasted: only a file cut short has
  // one remedy for two rules.
  CHECK(seen.size() == rule_catalogue().size() - 1);
  const Run rules = cli("rules");
  CHECK(rules.out.find("ST-HEADER-UNALIGNED") != std::string::npos);
  CHECK(rules.out.find("fix: pad the header with spaces to a multiple of 8 bytes\n") != std::string::npos);
  const Run json = cli("rules --json");
  CHECK(json.out.find("\"id\":\"CQ-W4A8-CONVROT\",") != std::string::npos);
  CHECK(json.out.find(",\"fix\":\"set \\\"convrot\\\": true in the marker\"}") != std::string::npos);
}

TEST_CASE("check text: fixes once per rule, the reference only for container rules, a note on strict-only FAILs",
          "[cli][ST-DUPLICATE-TENSOR]") {
  const Run r = cli("check " + suite_file(kDuplicate));
  CHECK(r.code == 1);
  const std::string path = (test::suite_dir() / kDuplicate).string();
  CHECK(r.out ==
        path + ": FAIL (1 error, 4 warnings, profile strict)\n"
        "  error   ST-DUPLICATE-TENSOR at tensor '\xe0\xa0\x99': expected each tensor name once, found it again (the "
        "reference keeps the last entry)\n"
        "          fix: rename or drop one of the two tensors with this name (readers keep only one)\n"
        "  warning ST-HEADER-UNALIGNED at byte 0: expected a header length that is a multiple of 8, found 137\n"
        "          fix: pad the header with spaces to a multiple of 8 bytes\n"
        "  warning ST-METADATA-NULL at __metadata__: expected __metadata__ to be an object or absent, found null\n"
        "          fix: drop __metadata__ or make it an object\n"
        "  warning ST-TENSOR-UNKNOWN-FIELD at tensor '\xe0\xa0\x99': expected only dtype, shape and data_offsets, found "
        "the field 'b'\n"
        "          fix: remove the extra fields from the tensor entry; put such information in __metadata__\n"
        "  warning ST-TENSOR-UNALIGNED at tensor '\xe0\xa0\x99': expected the data to start at a file offset that is a "
        "multiple of 8 (U64), found data_offsets begin 0 after a 145-byte prefix\n"
        "          fix: order or pad the tensors so each one's data starts at a multiple of its element size\n"
        "  verdict safetensors: loads\n"
        "  verdict sglang: loads (config None)\n"
        "  verdict comfyui: loads\n"
        "  verdict kitchen: loads\n"
        "  note: every consumer loads this file as it is; strict fails it for rules no consumer enforces, which guard "
        "against: ST-DUPLICATE-TENSOR (no tensor name appears twice (the reference keeps the last))\n");
}

TEST_CASE("check text: a file no consumer can parse gets one error and one verdict line", "[cli][ST-JSON-SYNTAX]") {
  const Run r = cli("check " + suite_file(kSyntax));
  CHECK(r.code == 1);
  const std::string message = "invalid JSON in header: trailing characters at line 1 column 3";
  CHECK(r.out == (test::suite_dir() / kSyntax).string() +
                     ": FAIL (1 error, 0 warnings, profile strict)\n"
                     "  error   ST-JSON-SYNTAX at byte 10: expected only whitespace after the top-level value, found "
                     "',' [reference: InvalidHeaderDeserialization] [sglang: rejects, comfyui: rejects, kitchen: "
                     "rejects]\n"
                     "          fix: write the header with a JSON serializer: no comments, trailing commas, NaN or "
                     "single quotes\n"
                     "  verdict all consumers: reject (safetensors: InvalidHeaderDeserialization: " + message +
                     "; sglang, comfyui, kitchen: SafetensorError: Error while deserializing header: " + message + ")\n"
                     // ComfyUI's own parser (DynamicVRAM) reads the header with Python's json.loads.
                     "  verdict comfyui (dynamic-vram): rejects (ValueError: Extra data: line 1 column 3 (char 2)\n\n"
                     "File path: " + (test::suite_dir() / kSyntax).string() + "\n\nThe safetensors file is corrupt or invalid. Make sure "
                     "this is actually a safetensors file and not a ckpt or pt or other filetype.)\n"
                     "  verdict comfyui (dynamic-vram-6db4fa2): rejects (JSONDecodeError: Extra data: line 1 column 3 "
                     "(char 2))\n");
  // The JSON keeps all four, and each finding its fix.
  const Run json = cli("check --json " + suite_file(kSyntax));
  CHECK(json.out.find(",\"fix\":\"write the header with a JSON serializer: no comments, trailing commas, NaN or single "
                      "quotes\"}") != std::string::npos);
  CHECK(json.out.find("\"kitchen\":{\"loads\":false,\"error\":\"SafetensorError\"") != std::string::npos);
}

TEST_CASE("check --summary, --quiet and --ignore", "[cli][ST-DUPLICATE-TENSOR]") {
  const std::string both = suite_file(kDuplicate) + " " + suite_file(kSyntax) + " --separate";
  Run r = cli("check --summary " + both);
  CHECK(r.code == 1);
  CHECK(r.out == (test::suite_dir() / kDuplicate).string() +
                     ": FAIL (1 error, 4 warnings, profile strict): safetensors loads, sglang loads, comfyui loads, "
                     "kitchen loads\n" +
                     (test::suite_dir() / kSyntax).string() +
                     ": FAIL (1 error, 0 warnings, profile strict): safetensors rejects, sglang rejects, comfyui "
                     "rejects, kitchen rejects\n");
  r = cli("check --quiet " + both);
  CHECK(r.code == 1);
  CHECK(r.out.empty());
  CHECK(r.err.empty());
  // Ignoring the one error makes the strict-only file pass; warnings stay.
  r = cli("check --summary --ignore ST-DUPLICATE-TENSOR " + suite_file(kDuplicate));
  CHECK(r.code == 0);
  CHECK(r.out.find(": OK (0 errors, 4 warnings, 1 ignored, profile strict)") != std::string::npos);
  r = cli("check -q --ignore 'ST-*' " + suite_file(kDuplicate));
  CHECK(r.code == 0);
  r = cli("check --json --ignore 'ST-TENSOR-*' --ignore ST-DUPLICATE-TENSOR " + suite_file(kDuplicate));
  CHECK(r.code == 0);
  CHECK(r.out.find("ST-TENSOR-UNALIGNED") == std::string::npos);
  CHECK(r.out.find("\"counts\":{\"ST-HEADER-UNALIGNED\":1,\"ST-METADATA-NULL\":1},\"ignored\":3,") != std::string::npos);
  // Without --ignore nothing is dropped, and the report says 0.
  CHECK(cli("check --json " + suite_file(kDuplicate)).out.find("},\"ignored\":0,\"complete\":") != std::string::npos);
  // A consumer profile still fails a file its consumer rejects.
  CHECK(cli("check --profile sglang --ignore 'ST-*' " + suite_file(kSyntax)).code == 1);
  // A verdict the full report qualifies is qualified in the summary too.
  const std::string embedding = test::shell_word(
      (test::suite_dir().parent_path() / "examples/quant/w4a8_int8_embedding_valid.safetensors").string());
  CHECK(cli("check --summary " + embedding).out.find(", sglang loads (if the assumed layer kinds hold), ") !=
        std::string::npos);
  r = cli("check --ignore ST-NO-SUCH " + suite_file(kDuplicate));
  CHECK(r.code == 2);
  CHECK(r.err == "safespec: --ignore: expected a rule id of `safespec rules` or a glob over them, found 'ST-NO-SUCH'\n");
}

TEST_CASE("check --format sarif: SARIF 2.1.0 with every rule and every finding", "[cli][ST-JSON-SYNTAX]") {
  const Run r = cli("check --format sarif " + suite_file(kSyntax) + " " + suite_file(kDuplicate) + " --separate");
  CHECK(r.code == 1);
  const Json doc = parse_json(r.out);
  CHECK(std::string_view(doc["version"]) == "2.1.0");
  const Json run = doc["runs"].at(0);
  CHECK(std::string_view(run["tool"]["driver"]["name"]) == "safespec");
  const Json rules = run["tool"]["driver"]["rules"];
  CHECK(rules.size() == rule_catalogue().size());
  const Json results = run["results"];
  REQUIRE(results.size() == 6);  // 1 + 5 findings
  const Json first = results.at(0);
  CHECK(std::string_view(first["ruleId"]) == "ST-JSON-SYNTAX");
  CHECK(std::string_view(first["level"]) == "error");
  // ruleIndex points at the rule's descriptor, whose help is its fix.
  const Json rule = rules.at(std::uint64_t(first["ruleIndex"]));
  CHECK(std::string_view(rule["id"]) == "ST-JSON-SYNTAX");
  CHECK(std::string_view(rule["help"]["text"]) == rule_info(RuleId::JsonSyntax).fix);
  const Json where = first["locations"].at(0)["physicalLocation"];
  CHECK(std::string_view(where["artifactLocation"]["uri"]) == (test::suite_dir() / kSyntax).string());
  CHECK(std::uint64_t(where["region"]["byteOffset"]) == 10);
  const Json named = results.at(1)["locations"].at(0);
  CHECK(std::string_view(named["logicalLocations"].at(0)["kind"]) == "tensor");
  CHECK(std::uint64_t(run["properties"]["ignored"]) == 0);
  // --ignore says in the run's properties how many findings it took out.
  const Run fewer = cli("check --format sarif --ignore 'ST-*' " + suite_file(kDuplicate));
  const Json fewer_doc = parse_json(fewer.out);
  CHECK(std::uint64_t(fewer_doc["runs"].at(0)["properties"]["ignored"]) == 5);
  CHECK(fewer_doc["runs"].at(0)["results"].size() == 0);
  // An unreadable path is a tool notification, not a result.
  const Run missing = cli("check --format sarif /nonexistent/safespec.safetensors");
  CHECK(missing.code == 2);
  CHECK(missing.out.find("\"toolExecutionNotifications\":[{\"level\":\"error\",\"message\":{\"text\":\"cannot check: ") !=
        std::string::npos);
}
