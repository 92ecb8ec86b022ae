// The consumer table (spec/consumers.hpp) and what iterates it: complete
// rows, the --consumer pick, every version judged and shown where it
// differs, ComfyUI's own parser per era (spec/comfyui_parser.hpp), sglang's
// read of a marker stored in a dtype torch cannot hand to numpy, and an
// unusable shard index.
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/json_support.hpp"
#include "props/unit_support.hpp"
#include "spec/comfyui_parser.hpp"
#include "spec/consumers.hpp"
#include "spec/profile_choice.hpp"
#include "src/oracles/oracles.hpp"

namespace safespec {
namespace {

using test::Bytes;
using test::Json;
using test::parse_json;
using test::Run;

Bytes consumer_test_file(const std::string& header, const std::string& data) {
  Bytes out(8);
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>((header.size() >> (8 * i)) & 0xff);
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Json consumer_json_of(const std::string& json, const char* name) {
  return parse_json(json)["files"].at(0)["consumers"][name];
}

}  // namespace

TEST_CASE("consumer table: every row is complete, and an incomplete row is refused", "[consumers]") {
  STATIC_REQUIRE(detail::table_complete());
  for (std::size_t i = 0; i < kConsumerTable.size(); ++i) CHECK(detail::row_complete(kConsumerTable[i], i));
  ConsumerInfo row = kConsumerTable[2];
  CHECK(detail::row_complete(row, 2));
  CHECK_FALSE(detail::row_complete(row, 1));  // its key out of order
  ConsumerInfo no_reason = row;
  no_reason.why_default = "";
  CHECK_FALSE(detail::row_complete(no_reason, 2));
  ConsumerInfo past = row;
  past.default_version = row.versions.size();
  CHECK_FALSE(detail::row_complete(past, 2));
  static constexpr std::array<ConsumerVersion, 2> kTwins{{{"a", "x", ContainerReader::SafeOpen, "w"},
                                                          {"a", "y", ContainerReader::SafeOpen, "w"}}};
  ConsumerInfo twins = row;
  twins.versions = kTwins;
  CHECK_FALSE(detail::row_complete(twins, 2));
  static constexpr std::array<ConsumerVersion, 1> kBlank{{{"a", "", ContainerReader::SafeOpen, "w"}}};
  ConsumerInfo blank = row;
  blank.versions = kBlank;
  blank.default_version = 0;
  CHECK_FALSE(detail::row_complete(blank, 2));
  // A profile is strict or a row, by the row's name.
  CHECK(kProfiles.size() == kConsumerTable.size() + 1);
  for (const ConsumerInfo& c : kConsumerTable) {
    CHECK(profile_name(Profile::of(c.id)) == c.name);
    CHECK(consumer_by_name(c.name) == c.id);
  }
}

TEST_CASE("consumer table: --consumer NAME=VERSION is read once, with errors that name what is accepted",
          "[consumers]") {
  auto p = pick_version("comfyui=dynamic-vram");
  REQUIRE(p);
  CHECK(p.value().consumer == Consumer::Comfyui);
  CHECK(consumer_info(Consumer::Comfyui).versions[p.value().version].id == "dynamic-vram");
  CHECK(pick_version("comfyui").error() ==
        "expected NAME=VERSION with NAME one of safetensors, sglang, comfyui, kitchen, found 'comfyui'");
  CHECK(pick_version("vllm=1").error() ==
        "expected a consumer name, one of safetensors, sglang, comfyui, kitchen, found 'vllm'");
  CHECK(pick_version("kitchen=0.2.99").error() == "expected a version of kitchen, one of 0.2.27, 0.2.31, 2a6f4ef, found '0.2.99'");
}

TEST_CASE("ComfyUI's own parser: each era's answer on the container cases", "[consumers][comfyui]") {
  using comfyui::Era;
  // Trailing bytes, a gap: neither era looks.
  const std::string header = R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})";
  Model m{8 + header.size() + 5, header.size(), {}};
  m.header.tensors.push_back(TensorEntry{"a", Dtype::U8, {2}, 1, 3});
  CHECK(comfyui::read_model(m, Era::Checked) == comfyui::Answer{});
  CHECK(comfyui::read_model(m, Era::Pin) == comfyui::Answer{});
  // Truncated: past the end of the data.
  m.header.tensors[0] = TensorEntry{"a", Dtype::F32, {2}, 0, 8};
  m.file_size = 8 + header.size() + 6;
  const comfyui::Answer cut = comfyui::read_model(m, Era::Checked);
  REQUIRE(cut.failure);
  CHECK(cut.failure->message("x.safetensors") ==
        "Tensor 'a' extends past the end of the file.\n\nFile path: x.safetensors\n\nThe safetensors file is "
        "corrupt/incomplete. Check the file size and make sure you have copied/downloaded it correctly.");
  const comfyui::Answer cut_pin = comfyui::read_model(m, Era::Pin);
  REQUIRE(cut_pin.failure);
  CHECK(cut_pin.failure->error == "ValueError");
  CHECK(cut_pin.failure->message("x") == "buffer length (6 bytes) after offset (0 bytes) must be a multiple of element size (4)");
  // A size that does not match its shape: ComfyUI's check, or torch's view.
  m.header.tensors[0] = TensorEntry{"a", Dtype::U8, {2, 2}, 0, 3};
  m.file_size = 8 + header.size() + 3;
  CHECK(comfyui::read_model(m, Era::Checked).failure->text == "Tensor 'a' does not match its declared shape and dtype.");
  CHECK(comfyui::read_model(m, Era::Pin).failure->message("x") == "shape '[2, 2]' is invalid for input of size 3");
  // A zero-sized slice with a shape of 4 elements: torch.empty before the checks.
  m.header.tensors[0] = TensorEntry{"a", Dtype::U8, {2, 2}, 0, 0};
  CHECK(comfyui::read_model(m, Era::Pin) == comfyui::Answer{});
  CHECK(comfyui::read_model(m, Era::Checked).failure);
  // A dtype missing from ComfyUI's _TYPES.
  m.header.tensors[0] = TensorEntry{"a", Dtype::F8_E8M0, {3}, 0, 3};
  for (Era era : {Era::Checked, Era::Pin}) {
    const comfyui::Answer e8 = comfyui::read_model(m, era);
    REQUIRE(e8.failure);
    CHECK(e8.failure->error == "KeyError");
    CHECK(e8.failure->message("x") == "'F8_E8M0'");
  }
  // The header as Python reads it.
  const std::string bad = R"({"a":1,})";
  const comfyui::Answer json = comfyui::read_text(bad.size(), bad, 8 + bad.size(), Era::Checked);
  REQUIRE(json.failure);
  CHECK(json.failure->error == "ValueError");
  CHECK(json.failure->text == "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)");
  CHECK(comfyui::read_text(bad.size(), bad, 8 + bad.size(), Era::Pin).failure->error == "JSONDecodeError");
  const std::string list = R"([1])";
  CHECK(comfyui::read_text(list.size(), list, 8 + list.size(), Era::Checked).failure->text ==
        "The safetensors header is invalid.");
  CHECK(comfyui::read_text(list.size(), list, 8 + list.size(), Era::Pin).failure->message("x") ==
        "'list' object has no attribute 'items'");
  const std::string array_entry = R"({"a":["U8",[1],[0,1]]})";
  CHECK(comfyui::read_text(array_entry.size(), array_entry, 9 + array_entry.size(), Era::Checked).failure->message("x") ==
        "list indices must be integers or slices, not str");
  // The prefix: the checked era's own messages; the pinned one's is not modelled.
  CHECK(comfyui::read_prefix(5, std::nullopt, Era::Checked).failure->text == "The safetensors header is incomplete.");
  CHECK(comfyui::read_prefix(100, 200'000'000, Era::Checked).failure->text == "The safetensors header is too large.");
  CHECK(comfyui::read_prefix(100, 500, Era::Checked).failure->text == "The safetensors header is incomplete.");
  CHECK(!comfyui::read_prefix(100, 500, Era::Pin).unknown.empty());
}

TEST_CASE("consumer versions: trailing bytes load in ComfyUI's DynamicVRAM mode and not through safe_open",
          "[consumers][ST-BUFFER-TRAILING]") {
  test::CliScratch s("consumer_versions");
  const std::string header = R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})";
  const std::string p = s.file("trail.safetensors", consumer_test_file(header, std::string("ab") + "zz"));
  const Run json = s.run("check --json " + test::shell_word(p));
  const Json doc = parse_json(json.out);
  const Json file = doc["files"].at(0);
  CHECK(std::string_view(file["consumer_versions"]["comfyui"]) == "safe-open");
  const Json comfy = file["versions"]["comfyui"];
  REQUIRE(comfy.size() == 3);
  CHECK(std::string_view(comfy.at(0)["version"]) == "safe-open");
  CHECK(bool(comfy.at(0)["loads"]) == false);
  CHECK(std::string_view(comfy.at(0)["message"]) ==
        "Error while deserializing header: incomplete metadata, file not fully covered");
  CHECK(std::string_view(comfy.at(1)["version"]) == "dynamic-vram");
  CHECK(bool(comfy.at(1)["loads"]) == true);
  CHECK(bool(comfy.at(2)["loads"]) == true);
  CHECK(bool(file["consumers"]["comfyui"]["loads"]) == false);
  // Picked: the default verdict, the profile and the exit status follow it.
  const Run picked = s.run("check --json --profile comfyui --consumer comfyui=dynamic-vram " + test::shell_word(p));
  CHECK(picked.code == 0);
  CHECK(bool(consumer_json_of(picked.out, "comfyui")["loads"]) == true);
  CHECK(s.run("check --profile comfyui " + test::shell_word(p)).code == 1);
  // The table: a column per version where they disagree, and which agree.
  const Run table = s.run("table --versions " + test::shell_word(p));
  CHECK(table.out.find("  comfyui (safe-open)  ") != std::string::npos);
  CHECK(table.out.find("  comfyui (dynamic-vram)  ") != std::string::npos);
  CHECK(table.out.find("comfyui (dynamic-vram-6db4fa2)") == std::string::npos);  // agrees with dynamic-vram here
  CHECK(table.out.find("comfyui dynamic-vram and dynamic-vram-6db4fa2 agree on every file") != std::string::npos);
  CHECK(table.out.find("kitchen 0.2.27, 0.2.31 and 2a6f4ef agree on every file") != std::string::npos);
  CHECK(s.run("table " + test::shell_word(p)).out.find("(dynamic-vram)") == std::string::npos);
}

TEST_CASE("consumer versions: a marker stored as BF16 or F8 stops sglang's scan with torch's TypeError",
          "[consumers][CQ-MARKER-DTYPE]") {
  test::CliScratch s("marker_dtype");
  const std::string marker = R"({"format": "float8_e4m3fn"})";  // 27 bytes
  for (const auto& [dtype, scalar] : std::vector<std::pair<std::string, std::string>>{
           {"BF16", "BFloat16"}, {"F8_E4M3", "Float8_e4m3fn"}, {"F8_E8M0", "Float8_e8m0fnu"}}) {
    INFO(dtype);
    const std::string shape = dtype == "BF16" ? "[13]" : "[26]";
    const std::string header = R"({"p.comfy_quant":{"dtype":")" + dtype + R"(","shape":)" + shape +
                               R"(,"data_offsets":[0,26]}})";
    const std::string p = s.file(dtype + ".safetensors", consumer_test_file(header, marker.substr(0, 26)));
    const Run r = s.run("check --json " + test::shell_word(p));
    const Json sg = consumer_json_of(r.out, "sglang");
    CHECK(bool(sg["loads"]) == false);
    CHECK(std::string_view(sg["error"]) == "TypeError");
    CHECK(std::string_view(sg["message"]) == "Got unsupported ScalarType " + scalar);
  }
}

TEST_CASE("consumer versions: an unusable shard index gets a verdict or an explicit unknown", "[consumers][ST-INDEX-JSON]") {
  test::CliScratch s("unusable_index");
  const std::string p = s.text("model.safetensors.index.json", "{\"weight_map\": nope}\n");
  const Run r = s.run("check --json " + test::shell_word(p));
  CHECK(r.code == 1);
  const Json doc = parse_json(r.out);
  const Json consumers = doc["files"].at(0)["consumers"];
  CHECK(std::string_view(consumers["sglang"]["error"]) == "JSONDecodeError");
  CHECK(std::string_view(consumers["sglang"]["message"]) == "Expecting value: line 1 column 16 (char 15)");
  for (const char* c : {"safetensors", "comfyui", "kitchen"}) {
    INFO(c);
    CHECK(consumers[c]["loads"].is_null());
    CHECK(std::string_view(consumers[c]["unknown"]).find("never") != std::string_view::npos);
  }
  const std::string q = s.text("other.safetensors.index.json", "{\"metadata\": {}}\n");
  const Json sg =
      parse_json(s.run("check --json " + test::shell_word(q)).out)["files"].at(0)["consumers"]["sglang"];
  CHECK(sg["loads"].is_null());
  CHECK(std::string_view(sg["unknown"]).starts_with("sglang's loaders read an index by rules"));
}

}  // namespace safespec

namespace safespec {

// A finding may carry one verdict per version of a consumer (safe_open's and
// ComfyUI's own parser's on a file too short to hold its length); the
// checkpoint fuzzer's laws allow that and nothing more.
TEST_CASE("consumer versions: the fuzz oracle takes one verdict per consumer version", "[consumers][fuzz]") {
  HeaderParser parser;
  const std::vector<std::uint8_t> empty;
  CHECK(profiles_disagree(empty, parser) == std::nullopt);
  const std::vector<std::uint8_t> seven(7, 0);
  CHECK(profiles_disagree(seven, parser) == std::nullopt);
  const std::string header = R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})";
  const std::vector<std::uint8_t> trailing = consumer_test_file(header, "abzz");
  CHECK(profiles_disagree(trailing, parser) == std::nullopt);
}

}  // namespace safespec
