// The reference reader's answers on hand-made headers: one per class of
// difference found between safespec and the reference (minimal/ of the
// reference answers), pinned by variant and exact Display text, and the
// pieces of Rust's formatting the texts are made of.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "spec/reference/reference_reader.hpp"
#include "spec/reference/rust_text.hpp"
#include "src/commands/check.hpp"

using namespace safespec;
using namespace safespec::reference;

namespace {

std::vector<std::uint8_t> file_of(const std::string& header, std::uint64_t data = 0) {
  // Sized once and filled in place: g++-12 -O3 reports the same bytes
  // appended by vector::insert as a memcpy out of bounds (-Warray-bounds, a
  // false positive inside libstdc++), which broke Release builds of the tests.
  std::vector<std::uint8_t> b(8 + header.size() + static_cast<std::size_t>(data), 0);
  for (std::size_t i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(header.size() >> (8 * i));
  std::copy(header.begin(), header.end(), b.begin() + 8);
  return b;
}

std::string answer_text(const std::string& header, std::uint64_t data = 0) {
  const auto bytes = file_of(header, data);
  const Answer a = read_metadata(bytes, bytes.size());
  if (!a.failure) return "OK";
  return std::string(variant_name(a.failure->variant)) + ": " + a.failure->display;
}

const std::string kMinimal = std::string(SAFESPEC_REFERENCE_ANSWERS_DIR) + "/minimal/";

}  // namespace

TEST_CASE("reference: an array-form tensor entry and a map-form dtype load (serde flatten, A and B)", "[reference][F6.10][F6.12]") {
  CHECK(answer_text(R"({"a":["U8",[1],[0,1]]})", 1) == "OK");
  CHECK(answer_text(R"({"a":{"dtype":{"U8":null},"shape":[1],"data_offsets":[0,1]}})", 1) == "OK");
  CHECK(answer_text(R"({"a":["U8",[1]]})", 1) ==
        "InvalidHeaderDeserialization: invalid JSON in header: invalid length 2, expected struct TensorInfo with 3 elements at line 1 column 16");
  CHECK(answer_text(R"({"a":["U8",[1],[0,1],0]})", 1) ==
        "InvalidHeaderDeserialization: invalid JSON in header: invalid length 4, expected 3 elements in sequence at line 1 column 24");
  CHECK(answer_text(R"({"a":{"dtype":{"U8":1},"shape":[1],"data_offsets":[0,1]}})", 1) ==
        "InvalidHeaderDeserialization: invalid JSON in header: invalid type: integer `1`, expected unit at line 1 column 57");
  CHECK(answer_text(R"({"a":{"dtype":{},"shape":[1],"data_offsets":[0,1]}})", 1) ==
        "InvalidHeaderDeserialization: invalid JSON in header: invalid value: map, expected map with a single key at line 1 column 51");
  CHECK(answer_text(R"({"a":["U8",[2],[0,1]]})", 1) == "TensorInvalidInfo: invalid shape, data type, or offset for tensor");
}

TEST_CASE("reference: a serde error inside a tensor entry is placed at the closing brace, after later syntax", "[reference][F6.11]") {
  CHECK(answer_text(R"({"a":{"dtype":"U8","shape":[-0.0],"data_offsets":[0,1]}   })", 1) ==
        "InvalidHeaderDeserialization: invalid JSON in header: invalid type: floating point `-0.0`, expected usize at line 1 column 59");
  // A later syntax error wins over an earlier entry's type error: entries are
  // buffered and typed only when the object has closed.
  CHECK(answer_text(R"({"a":{"dtype":"X"},"b":1,})", 0) ==
        "InvalidHeaderDeserialization: invalid JSON in header: trailing comma at line 1 column 26");
  CHECK(answer_text(R"({"__metadata__":{},"__metadata__":{}})") ==
        "InvalidHeaderDeserialization: invalid JSON in header: duplicate field `__metadata__` at line 1 column 33");
  CHECK(answer_text(R"({"__metadata__":{"k":1}})") ==
        "InvalidHeaderDeserialization: invalid JSON in header: invalid type: integer `1`, expected a string at line 1 column 22");
  CHECK(answer_text("\"x\"") ==
        "InvalidHeaderDeserialization: invalid JSON in header: invalid type: string \"x\", expected struct HashMetadata at line 1 column 3");
}

TEST_CASE("reference: offset ties make the answer depend on HashMap order (X13)", "[reference][F8][X13]") {
  const auto bytes = file_of(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,1]},"b":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1);
  const Answer a = read_metadata(bytes, bytes.size());
  REQUIRE(a.failure);
  std::vector<std::string> all{std::string(variant_name(a.failure->variant)) + ": " + a.failure->display};
  for (const Failure& f : a.alternatives) all.push_back(std::string(variant_name(f.variant)) + ": " + f.display);
  std::sort(all.begin(), all.end());
  CHECK(all == std::vector<std::string>{"InvalidOffset: invalid offset for tensor `a`", "TensorInvalidInfo: invalid shape, data type, or offset for tensor"});
}

TEST_CASE("reference: the minimal files give the reference's answers", "[reference]") {
  const auto answer_of = [](const std::string& name) {
    std::ifstream in(kMinimal + name + ".safetensors", std::ios::binary);
    const std::vector<std::uint8_t> b{std::istreambuf_iterator<char>(in), {}};
    const Answer a = read_metadata(b, b.size());
    return a.failure ? std::string(variant_name(a.failure->variant)) + ": " + a.failure->display : std::string("OK");
  };
  CHECK(answer_of("A_array_form_entry") == "OK");
  CHECK(answer_of("B_dtype_one_key_map") == "OK");
  CHECK(answer_of("C1_f64_serde_rejects_strtod_finite") ==
        "InvalidHeaderDeserialization: invalid JSON in header: number out of range at line 1 column 78");
  CHECK(answer_of("C3_f64_serde_accepts_strtod_inf") == "OK");
  CHECK(answer_of("E_trailing_dot_long_int") ==
        "InvalidHeaderDeserialization: invalid JSON in header: invalid number at line 1 column 79");
}

TEST_CASE("reference: check reads what the reference reads, strict still flags the spelling", "[reference][F6.10]") {
  const std::string path = std::string(SAFESPEC_REFERENCE_ANSWERS_DIR) + "/minimal/A_array_form_entry.safetensors";
  HeaderParser parser;
  const auto loose = check_paths({path}, CheckOptions{.profile = Profile::Safetensors, .separate = true}, parser);
  CHECK(loose[0].ok());
  CHECK(loose[0].consumers[Consumer::Safetensors].loads);
  CHECK(loose[0].consumers[Consumer::Sglang].loads);
  const auto strict = check_paths({path}, CheckOptions{.separate = true}, parser);
  CHECK_FALSE(strict[0].ok());
  REQUIRE_FALSE(strict[0].findings.empty());
  CHECK(strict[0].findings[0].rule == RuleId::TensorNotObject);
  // No reader built on the crate is stopped by it; ComfyUI's own parser
  // (DynamicVRAM) is: info["data_offsets"] on a list.
  for (const Verdict& v : strict[0].findings[0].verdicts) {
    CHECK(v.consumer == Consumer::Comfyui);
    CHECK(v.versions != 0);
    CHECK(v.message == "list indices must be integers or slices, not str");
  }
  CHECK(strict[0].findings[0].verdict(Consumer::Comfyui) == nullptr);  // not in the default mode, safe_open
  // The per-finding "reference" field says what the reference did with this file.
  const test::Run json = test::run_cli(std::filesystem::temp_directory_path().string(), "check --json " + test::shell_word(path));
  CHECK(json.out.find(R"("rule":"ST-TENSOR-NOT-OBJECT")") != std::string::npos);
  CHECK(json.out.find(R"("reference":"InvalidHeaderDeserialization")") == std::string::npos);
  CHECK(json.out.find(R"("reference":"accepts")") != std::string::npos);
  const auto c1 = check_paths({kMinimal + "C1_f64_serde_rejects_strtod_finite.safetensors"},
                              CheckOptions{.profile = Profile::Safetensors, .separate = true}, parser);
  CHECK_FALSE(c1[0].ok());
  CHECK(c1[0].consumers[Consumer::Sglang].message ==
        "Error while deserializing header: invalid JSON in header: number out of range at line 1 column 78");
}

TEST_CASE("reference: Rust's texts (zmij floats, str Debug, Utf8Error)", "[reference]") {
  CHECK(zmij_format(1.0) == "1.0");
  CHECK(zmij_format(-0.0) == "-0.0");
  CHECK(zmij_format(1.5) == "1.5");
  CHECK(zmij_format(18446744073709551616.0) == "1.8446744073709552e+19");
  CHECK(zmij_format(1e15) == "1000000000000000.0");
  CHECK(zmij_format(1e16) == "1e+16");
  CHECK(zmij_format(0.00001) == "0.00001");
  CHECK(zmij_format(0.000001) == "1e-6");
  CHECK(zmij_format(1.7976931348623157e308) == "1.7976931348623157e+308");
  CHECK(zmij_format(5e-324) == "5e-324");
  CHECK(rust_str_debug("a\"b\\c\n\x01'") == "\"a\\\"b\\\\c\\n\\u{1}'\"");
  CHECK(rust_str_debug("x\xcc\x80y") == "\"x\\u{300}y\"");          // grapheme-extending: escaped
  CHECK(rust_str_debug("x\xe2\x83\x81y") == "\"x\xe2\x83\x81y\"");   // U+20C1 (Unicode 17): printable to rustc 1.95
  CHECK(rust_str_debug("\xc2\xa0\xc2\xa1") == "\"\\u{a0}\xc2\xa1\"");
  CHECK(answer_text(R"({"a":"x\u0300y"})") ==
        "InvalidHeaderDeserialization: invalid JSON in header: invalid type: string \"x\\u{300}y\", expected struct TensorInfo at line 1 column 16");
  CHECK(utf8_failure_text(*rust_utf8_check("ab\xff")) == "invalid utf-8 sequence of 1 bytes from index 2");
  CHECK(utf8_failure_text(*rust_utf8_check("a\xe2\x82")) == "incomplete utf-8 byte sequence from index 1");
  CHECK(utf8_failure_text(*rust_utf8_check("a\xe2\x82x")) == "invalid utf-8 sequence of 2 bytes from index 1");
}

TEST_CASE("reference: a Python consumer's container message carries the tensor name byte for byte", "[reference][F8]") {
  // Quote, apostrophe, backslash and a control character in the name: the
  // message is the reference's Display of the decoded name, not safespec's
  // escaped place.
  const auto bytes = file_of("{\"a'b\\\\c\\u0001\\\"q\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}", 2);
  const Answer a = read_metadata(bytes, bytes.size());
  REQUIRE(a.failure);
  CHECK(a.failure->python_message() == std::string("Error while deserializing header: invalid offset for tensor `a'b\\c\x01\"q`"));
}
