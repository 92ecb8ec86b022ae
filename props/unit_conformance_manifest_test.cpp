// The conformance manifest's line format (conformance/manifest.hpp): what is
// written reads back equal, and a malformed line says what it expected.
#include "conformance/manifest.hpp"
#include "props/catch.hpp"

using namespace safespec;
using namespace safespec::conformance;

namespace {

Case sample() {
  Case c;
  c.file = "loader-reject_CQ-W4A8-DTYPES_bf16_weight.safetensors";
  c.description = "weight \"BF16\"\tnot I8";
  c.rules = {"CQ-W4A8-DTYPES"};
  c.expect = {Expect::Accept, Expect::Reject, Expect::Reject, Expect::Reject, Expect::Reject};
  c.sglang_message = "Comfy W4A8 layer 'blk.0' needs I8 weights";
  c.data = false;
  return c;
}

}  // namespace

TEST_CASE("conformance manifest: a line renders as documented and parses back equal", "[conformance]") {
  const Case c = sample();
  const std::string line = render_case(c);
  CHECK(line ==
        "{\"file\": \"loader-reject_CQ-W4A8-DTYPES_bf16_weight.safetensors\", \"description\": \"weight \\\"BF16\\\"\\tnot "
        "I8\", \"rules\": [\"CQ-W4A8-DTYPES\"], \"expect\": {\"safetensors\": \"accept\", \"sglang\": \"reject\", "
        "\"comfyui\": \"reject\", \"kitchen\": \"reject\", \"strict\": \"reject\"}, \"sglang_message\": \"Comfy W4A8 "
        "layer 'blk.0' needs I8 weights\", \"data\": false, \"named_for\": \"loaders\"}");
  auto back = parse_case(line);
  REQUIRE(back.ok());
  CHECK(back.value() == c);
  CHECK(back.value().expected(Profile::Safetensors) == Expect::Accept);
  CHECK(back.value().expected(Profile::Strict) == Expect::Reject);
}

// A name never claims a verdict its expectations do not give. Every
// one of the 32 expectation rows gets exactly one prefix, from the first
// consumer in the order reference, loaders, strict that rejects it.
TEST_CASE("conformance manifest: the name's prefix says whose verdict it is, for every expectation row", "[conformance]") {
  for (unsigned bits = 0; bits < 32; ++bits) {
    Case c = sample();
    for (std::size_t i = 0; i < c.expect.size(); ++i) c.expect[i] = (bits >> i) & 1 ? Expect::Reject : Expect::Accept;
    c.file = "x.safetensors";
    INFO(bits);
    const bool reference = c.expected(Profile::Safetensors) == Expect::Reject;
    const bool loader = c.expected(Profile::Sglang) == Expect::Reject || c.expected(Profile::Comfyui) == Expect::Reject ||
                        c.expected(Profile::Kitchen) == Expect::Reject;
    const bool strict = c.expected(Profile::Strict) == Expect::Reject;
    const NamePrefix want = reference ? NamePrefix{"reject_", "reference"}
                            : loader  ? NamePrefix{"loader-reject_", "loaders"}
                            : strict  ? NamePrefix{"strict-reject_", "strict"}
                                      : NamePrefix{"accept_", "everyone"};
    CHECK(name_prefix(c) == want);
    c.file = "impldef_x.safetensors";
    CHECK(name_prefix(c) == NamePrefix{"impldef_", "impldef"});
  }
  CHECK(name_stem("loader-reject_CQ-W4A8-DTYPES_bf16_weight.safetensors") == "CQ-W4A8-DTYPES_bf16_weight.safetensors");
  CHECK(name_stem("strict-reject_a/model.safetensors.index.json") == "a/model.safetensors.index.json");
  CHECK(name_stem("x.safetensors") == "x.safetensors");
}

TEST_CASE("conformance manifest: a name that claims another verdict than its expectations is refused", "[conformance]") {
  Case c = sample();
  c.file = "reject_CQ-W4A8-DTYPES_bf16_weight.safetensors";  // the reference reads this file
  std::string line = render_case(c);
  CHECK(parse_case(line).error() ==
        "manifest line: expected a name starting \"loader-reject_\" and \"named_for\": \"loaders\" for these "
        "expectations, found reject_CQ-W4A8-DTYPES_bf16_weight.safetensors and \"named_for\": \"loaders\"");
  line = render_case(sample());
  line.replace(line.find("\"loaders\""), 9, "\"strict\"");
  CHECK(parse_case(line).error() ==
        "manifest line: expected a name starting \"loader-reject_\" and \"named_for\": \"loaders\" for these "
        "expectations, found loader-reject_CQ-W4A8-DTYPES_bf16_weight.safetensors and \"named_for\": \"strict\"");
  line = render_case(sample());
  line.erase(line.find(", \"named_for\""));
  line += "}";
  CHECK(parse_case(line).error() ==
        "manifest line: expected \"named_for\": a string in loader-reject_CQ-W4A8-DTYPES_bf16_weight.safetensors");
}

TEST_CASE("conformance manifest: malformed lines are refused with what was expected", "[conformance]") {
  CHECK(parse_case("[]").error() == "manifest line: expected a JSON object, found: list");
  CHECK(parse_case("{\"file\": ").error() ==
        "manifest line: expected a JSON object, found: JSONDecodeError: Expecting value: line 1 column 10 (char 9)");
  CHECK(parse_case("{\"file\": \"\"}").error() == "manifest line: expected \"file\": a non-empty string");
  Case c = sample();
  c.sglang_message.clear();
  CHECK(parse_case(render_case(c)).error() ==
        "manifest line: expected \"sglang_message\" exactly when sglang rejects, in " + c.file);
  std::string line = render_case(sample());
  line.replace(line.find("\"kitchen\": \"reject\""), 19, "\"kitchen\": \"maybe\"");
  CHECK(parse_case(line).error() ==
        "manifest line: expected \"expect\".\"kitchen\": \"accept\" or \"reject\" in " + sample().file);
}
