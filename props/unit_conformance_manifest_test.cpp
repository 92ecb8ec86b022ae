// The conformance manifest's line format (conformance/manifest.hpp): what is
// written reads back equal, and a malformed line says what it expected.
#include "conformance/manifest.hpp"
#include "props/catch.hpp"

using namespace safespec;
using namespace safespec::conformance;

namespace {

Case sample() {
  Case c;
  c.file = "reject_CQ-W4A8-DTYPES_bf16_weight.safetensors";
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
        "{\"file\": \"reject_CQ-W4A8-DTYPES_bf16_weight.safetensors\", \"description\": \"weight \\\"BF16\\\"\\tnot "
        "I8\", \"rules\": [\"CQ-W4A8-DTYPES\"], \"expect\": {\"safetensors\": \"accept\", \"sglang\": \"reject\", "
        "\"comfyui\": \"reject\", \"kitchen\": \"reject\", \"strict\": \"reject\"}, \"sglang_message\": \"Comfy W4A8 "
        "layer 'blk.0' needs I8 weights\", \"data\": false}");
  auto back = parse_case(line);
  REQUIRE(back.ok());
  CHECK(back.value() == c);
  CHECK(back.value().expected(Profile::Safetensors) == Expect::Accept);
  CHECK(back.value().expected(Profile::Strict) == Expect::Reject);
}

TEST_CASE("conformance manifest: malformed lines are refused with what was expected", "[conformance]") {
  CHECK(parse_case("[]").error() == "manifest line: expected a JSON object, found: The JSON element does not have the requested type.");
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
