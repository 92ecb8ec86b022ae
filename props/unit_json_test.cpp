// F6.1-F6.16: the JSON text and the header model (safetensors-format.md §3).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gen/file_bytes.hpp"
#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "spec/file_reader.hpp"
#include "spec/rule_catalogue.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {
const std::string kOk = R"("t":{"dtype":"U8","shape":[1],"data_offsets":[0,1]})";
std::string with_shape(std::string_view dims) {
  return std::string(R"({"t":{"dtype":"U8","shape":[)") + std::string(dims) + R"(],"data_offsets":[0,0]}})";
}
const std::string kShapeMsg = "expected shape[0] to be an integer in [0, 2^64-1], found ";
}  // namespace

TEST_CASE("F6.1: SP TAB LF CR accepted leading and trailing, in any mix") {
  const std::string ws = GENERATE(std::string(" "), std::string("\t"), std::string("\n"), std::string("\r"),
                                  std::string(" \t\n\r"), std::string("\r\n\t "));
  const auto m = require_model(gen::file_with_header(ws + "{" + kOk + "}" + ws, 1));
  CHECK(m.header.leading_whitespace == ws.size());
  CHECK(m.header.tensors.size() == 1);
}

TEST_CASE("ST-JSON-SYNTAX (F6.1): NUL FF VT U+00A0 BOM rejected before the object", "[ST-JSON-SYNTAX]") {
  struct Case { std::string lead; const char* found; };
  const auto c = GENERATE(Case{std::string(1, '\0'), "byte 0x00"}, Case{"\f", "byte 0x0c"},
                          Case{"\v", "byte 0x0b"}, Case{"\xC2\xA0", "byte 0xc2"},
                          Case{"\xEF\xBB\xBF", "byte 0xef"});
  INFO(c.found);
  require_error(gen::file_with_header(c.lead + "{}"), "ST-JSON-SYNTAX", "byte 8",
                std::string("expected a JSON value, found ") + c.found);
}

TEST_CASE("ST-JSON-SYNTAX (F6.1, X2): NUL FF VT U+00A0 BOM rejected as trailing padding", "[ST-JSON-SYNTAX]") {
  struct Case { std::string tail; const char* found; };
  const auto c = GENERATE(Case{std::string(1, '\0'), "byte 0x00"}, Case{"\f", "byte 0x0c"},
                          Case{"\v", "byte 0x0b"}, Case{"\xC2\xA0", "byte 0xc2"},
                          Case{"\xEF\xBB\xBF", "byte 0xef"}, Case{std::string("  ") + '\0' + '\0', "byte 0x00"});
  INFO(c.found);
  const std::string header = "{}" + c.tail;
  const std::size_t at = 8 + header.find_first_not_of(" ", 2);
  require_error(gen::file_with_header(header), "ST-JSON-SYNTAX", "byte " + std::to_string(at),
                std::string("expected only whitespace after the top-level value, found ") + c.found);
}

TEST_CASE("ST-JSON-SYNTAX (F6.2): exactly one JSON value", "[ST-JSON-SYNTAX]") {
  require_error(gen::file_with_header("{}{}"), "ST-JSON-SYNTAX", "byte 10",
                "expected only whitespace after the top-level value, found '{'");
  require_error(gen::file_with_header(R"({},"__metadata__":{}})"), "ST-JSON-SYNTAX", "byte 10",
                "expected only whitespace after the top-level value, found ','");
}

TEST_CASE("ST-JSON-NOT-OBJECT (F6.3): the top-level value must be an object", "[ST-JSON-NOT-OBJECT]") {
  struct Case { const char* text; const char* found; };
  const auto c = GENERATE(Case{"[]", "an array"}, Case{"null", "null"}, Case{"\"x\"", "a string"},
                          Case{"1", "a number"}, Case{"true", "a boolean"}, Case{"  []", "an array"});
  require_error(gen::file_with_header(c.text), "ST-JSON-NOT-OBJECT", "header",
                std::string("expected the header to be a JSON object, found ") + c.found);
  CHECK(rule_info(RuleId::JsonNotObject).reference == "InvalidHeaderDeserialization");
}

TEST_CASE("ST-JSON-SYNTAX (F6.4): strict RFC 8259 only", "[ST-JSON-SYNTAX]") {
  struct Case { const char* text; const char* where; const char* message; };
  const auto c = GENERATE(
      Case{"{/*c*/}", "byte 9", "expected a string key, found '/'"},
      Case{R"({"a":1,})", "byte 15", "expected a string key, found '}'"},
      Case{"{'a':1}", "byte 9", "expected a string key, found '''"},
      Case{R"({"a":+1})", "byte 13", "expected a JSON value, found '+'"},
      Case{R"({"a":00})", "byte 14", "expected no leading zeros in a number, found '0'"},
      Case{"{\"a\x01\":1}", "byte 11", "expected control characters in strings to be escaped, found byte 0x01"},
      Case{R"({"\ud800":1})", "byte 16", "expected a low surrogate escape after a high surrogate, found '\"'"},
      Case{R"({"\udc00":1})", "byte 10",
           "expected a high surrogate before a low surrogate, found a lone \\u escape of a low surrogate"},
      Case{R"({"\x":1})", "byte 11", "expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u, found 'x'"},
      Case{R"({"a":tru})", "byte 13", "expected the literal true, found 't'"},
      Case{"{\"a\"", "byte 12", "expected ':' after an object key, found the end of the header"},
      Case{"{", "byte 9", "expected a string key, found the end of the header"});
  INFO(c.text);
  require_error(gen::file_with_header(c.text), "ST-JSON-SYNTAX", c.where, c.message);
}

TEST_CASE("ST-JSON-SYNTAX (F6.4): a number outside f64 range is rejected even in an ignored field",
          "[ST-JSON-SYNTAX]") {
  require_error(gen::file_with_header(R"({"t":{"x":1e400}})"), "ST-JSON-SYNTAX", "byte 18",
                "expected a number whose value fits an f64, found 1e400");
}

TEST_CASE("F6.4 (X22): a surrogate pair escape is valid and decodes to one code point") {
  const auto m = require_model(gen::file_with_header(R"({"\ud83d\ude00":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}})"));
  REQUIRE(m.header.tensors.size() == 1);
  CHECK(m.header.tensors[0].name == "\xF0\x9F\x98\x80");
}

TEST_CASE("F6.5: escapes are decoded before keys, field names and dtypes are matched") {
  const auto m = require_model(gen::file_with_header(
      R"({"\u005f_metadata__":{"k":"v"},"t":{"\u0064type":"F\u0033\u0032","shape":[1],"data_offsets":[0,4]}})", 4));
  CHECK(m.header.metadata_state == MetadataState::Present);
  REQUIRE(m.header.metadata.size() == 1);
  CHECK(m.header.metadata[0] == std::pair<std::string, std::string>{"k", "v"});
  REQUIRE(m.header.tensors.size() == 1);
  CHECK(m.header.tensors[0].dtype == Dtype::F32);
  CHECK(m.header.unknown_fields.empty());
}

TEST_CASE("F6.5 (F6.16): \"a\" and \"\\u0061\" are one tensor name, the last entry wins") {
  const auto m = require_model(gen::file_with_header(
      R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"\u0061":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})", 2));
  REQUIRE(m.header.tensors.size() == 1);
  CHECK(m.header.tensors[0].name == "a");
  CHECK(m.header.tensors[0].shape == std::vector<std::uint64_t>{2});
  REQUIRE(m.header.duplicates.size() == 1);
  CHECK(m.header.duplicates[0] == DuplicateKey{DuplicateKind::Tensor, "a", false});
}

TEST_CASE("ST-JSON-DEPTH (F6.6): 127 nested containers accepted, 128 rejected", "[ST-JSON-DEPTH]") {
  // Top-level object (1) + tensor object (2) + k arrays in an ignored field.
  const auto file = [](int arrays) {
    const std::string head = R"({"t":{"dtype":"U8","shape":[0],"data_offsets":[0,0],"x":)";
    return gen::file_with_header(head + std::string(static_cast<std::size_t>(arrays), '[') +
                                 std::string(static_cast<std::size_t>(arrays), ']') + "}}");
  };
  const auto m = require_model(file(125));  // 127 containers
  REQUIRE(m.header.tensors.size() == 1);
  CHECK(m.header.unknown_fields == std::vector<UnknownField>{{"t", "x"}});
  // The 128th container is the 126th '[': header offset 56 + 125.
  require_error(file(126), "ST-JSON-DEPTH", "byte " + std::to_string(8 + 56 + 125),
                "expected arrays and objects nested at most 127 deep, found deeper nesting");
  CHECK(rule_info(RuleId::JsonDepth).reference == "InvalidHeaderDeserialization");
}

TEST_CASE("ST-JSON-DEPTH (F6.6): the limit counts the top-level value, for arrays and objects alike",
          "[ST-JSON-DEPTH]") {
  // 127 top-level arrays: syntax passes, the model rejects it as not an object.
  require_error(gen::file_with_header(std::string(127, '[') + std::string(127, ']')), "ST-JSON-NOT-OBJECT",
                "header", "expected the header to be a JSON object, found an array");
  require_error(gen::file_with_header(std::string(128, '[') + std::string(128, ']')), "ST-JSON-DEPTH",
                "byte 135", "expected arrays and objects nested at most 127 deep, found deeper nesting");
  std::string objs;
  for (int i = 0; i < 127; ++i) objs += R"({"a":)";
  objs += "1" + std::string(127, '}');
  // 127 objects: syntax passes; tensor 'a' holds only an ignored field "a".
  require_error(gen::file_with_header(objs), "ST-TENSOR-FIELD-MISSING", "tensor 'a'",
                "expected the field dtype, found no such field");
  std::string deeper = R"({"a":)" + objs.substr(0, objs.size() - 127) + std::string(128, '}');
  require_error(gen::file_with_header(deeper), "ST-JSON-DEPTH", "byte " + std::to_string(8 + 5 * 127),
                "expected arrays and objects nested at most 127 deep, found deeper nesting");
}

TEST_CASE("ST-JSON-DEPTH (F6.6): depth is checked with syntax, before an earlier model error", "[ST-JSON-DEPTH]") {
  require_error(gen::file_with_header(R"({"a":1,"b":)" + std::string(200, '[') + std::string(200, ']') + "}"),
                "ST-JSON-DEPTH", "byte " + std::to_string(8 + 11 + 126),
                "expected arrays and objects nested at most 127 deep, found deeper nesting");
}

TEST_CASE("ST-METADATA-TYPE (F6.7, X9): metadata values must be strings", "[ST-METADATA-TYPE]") {
  struct Case { const char* value; const char* found; };
  const auto c = GENERATE(Case{"1", "a number"}, Case{"null", "null"}, Case{"{}", "an object"},
                          Case{"[]", "an array"}, Case{"true", "a boolean"});
  require_error(gen::file_with_header(std::string(R"({"__metadata__":{"ok":"1","k":)") + c.value + "}}"),
                "ST-METADATA-TYPE", "__metadata__['k']", std::string("expected a string value, found ") + c.found);
}

TEST_CASE("ST-METADATA-TYPE (F6.7): __metadata__ itself must be an object or null", "[ST-METADATA-TYPE]") {
  struct Case { const char* value; const char* found; };
  const auto c = GENERATE(Case{"[]", "an array"}, Case{"\"x\"", "a string"}, Case{"1", "a number"},
                          Case{"false", "a boolean"});
  require_error(gen::file_with_header(std::string(R"({"__metadata__":)") + c.value + "}"), "ST-METADATA-TYPE",
                "__metadata__",
                std::string("expected __metadata__ to be an object of strings or null, found ") + c.found);
  CHECK(rule_info(RuleId::MetadataType).rule_number == "F6.7");
}

TEST_CASE("F6.7 (X8): __metadata__ null means absent, {} is present and empty") {
  CHECK(require_model(gen::file_with_header(R"({"__metadata__":null})")).header.metadata_state == MetadataState::Null);
  const auto m = require_model(gen::file_with_header(R"({"__metadata__":{}})"));
  CHECK(m.header.metadata_state == MetadataState::Present);
  CHECK(m.header.metadata.empty());
}

TEST_CASE("ST-METADATA-DUPLICATE (F6.8): a second __metadata__ key, however spelled", "[ST-METADATA-DUPLICATE]") {
  const auto second = GENERATE(std::string(R"("__metadata__")"), std::string(R"("\u005f_metadata__")"));
  const auto first = GENERATE(std::string("{}"), std::string("null"));
  require_error(gen::file_with_header(R"({"__metadata__":)" + first + "," + second + ":{}}"),
                "ST-METADATA-DUPLICATE", "__metadata__",
                "expected the key __metadata__ at most once, found it a second time");
  CHECK(rule_info(RuleId::MetadataDuplicate).reference == "InvalidHeaderDeserialization");
}

TEST_CASE("F6.9: duplicate keys inside __metadata__ are accepted, the last value wins") {
  const auto m = require_model(gen::file_with_header(R"({"__metadata__":{"k":"1","j":"x","k":"2"}})"));
  REQUIRE(m.header.metadata.size() == 2);
  CHECK(m.header.metadata[0] == std::pair<std::string, std::string>{"k", "2"});
  CHECK(m.header.metadata[1] == std::pair<std::string, std::string>{"j", "x"});
  REQUIRE(m.header.duplicates.size() == 1);
  CHECK(m.header.duplicates[0] == DuplicateKey{DuplicateKind::MetadataKey, "k", true});
}

TEST_CASE("ST-TENSOR-NOT-OBJECT (F6.10): every other key is a tensor entry object", "[ST-TENSOR-NOT-OBJECT]") {
  struct Case { const char* value; const char* found; };
  const auto c = GENERATE(Case{"1", "a number"}, Case{"[]", "an array"}, Case{"null", "null"},
                          Case{"\"x\"", "a string"});
  require_error(gen::file_with_header(std::string(R"({"t":)") + c.value + "}"), "ST-TENSOR-NOT-OBJECT",
                "tensor 't'",
                std::string("expected a tensor entry object with dtype, shape and data_offsets, found ") + c.found);
}

TEST_CASE("F6.10 (X22): empty names and names with \\u0000 are tensor names", "[ST-TENSOR-NOT-OBJECT]") {
  const auto m = require_model(gen::file_with_header(
      R"({"":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},"a\u0000b":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}})"));
  REQUIRE(m.header.tensors.size() == 2);
  CHECK(m.header.tensors[0].name.empty());
  CHECK(m.header.tensors[1].name == std::string("a\0b", 3));
  require_error(gen::file_with_header(R"({"a\u0000b":1})"), "ST-TENSOR-NOT-OBJECT", "tensor 'a\\x00b'",
                "expected a tensor entry object with dtype, shape and data_offsets, found a number");
}

TEST_CASE("ST-TENSOR-FIELD-MISSING (F6.11): missing fields reported as dtype, shape, data_offsets",
          "[ST-TENSOR-FIELD-MISSING]") {
  struct Case { const char* body; const char* field; };
  const auto c = GENERATE(Case{"", "dtype"}, Case{R"("shape":[],"data_offsets":[0,0])", "dtype"},
                          Case{R"("data_offsets":[0,0])", "dtype"}, Case{R"("dtype":"U8","data_offsets":[0,0])", "shape"},
                          Case{R"("dtype":"U8","shape":[])", "data_offsets"},
                          Case{R"("Dtype":"U8","shape":[],"data_offsets":[0,0])", "dtype"});
  require_error(gen::file_with_header(std::string(R"({"t":{)") + c.body + "}}"), "ST-TENSOR-FIELD-MISSING",
                "tensor 't'", std::string("expected the field ") + c.field + ", found no such field");
}

TEST_CASE("ST-TENSOR-FIELD-DUPLICATE (F6.11): a field repeated inside one entry", "[ST-TENSOR-FIELD-DUPLICATE]") {
  const auto field = GENERATE(std::string(R"("dtype":"U8")"), std::string(R"("shape":[])"),
                              std::string(R"("data_offsets":[0,0])"), std::string(R"("\u0064type":"U8")"));
  const std::string header =
      R"({"t":{"dtype":"U8","shape":[],"data_offsets":[0,0],)" + field + "}}";
  const std::string name = field.find("shape") != std::string::npos ? "shape"
                           : field.find("offsets") != std::string::npos ? "data_offsets" : "dtype";
  require_error(gen::file_with_header(header), "ST-TENSOR-FIELD-DUPLICATE", "tensor 't'",
                "expected the field " + name + " once, found it a second time");
}

TEST_CASE("F6.11: fields are checked in document order, before missing fields", "[ST-SHAPE-TYPE]") {
  require_error(gen::file_with_header(R"({"t":{"shape":"x","dtype":"bad"}})"), "ST-SHAPE-TYPE", "tensor 't'",
                "expected shape to be an array of integers, found a string");
}

TEST_CASE("ST-DTYPE-UNKNOWN (F6.12): exact, case-sensitive dtype names", "[ST-DTYPE-UNKNOWN]") {
  const std::string list = "expected dtype to be one of " + std::string(dtype_name_list()) + ", found ";
  // Also names that match one past 8 bytes (dtype_from_name compares names
  // as two 8-byte words and a length) and one past 16.
  const auto bad = GENERATE(std::string("f32"), std::string("bool"), std::string(""), std::string("F32 "),
                            std::string("F128"), std::string("F8_E4M3FNUY"), std::string("F8_E5M2FNU"),
                            std::string("F8_E4M3FNUZZZZZZZZZZZ"));
  require_error(gen::file_with_header(R"({"t":{"dtype":")" + bad + R"(","shape":[],"data_offsets":[0,0]}})"),
                "ST-DTYPE-UNKNOWN", "tensor 't'", list + "'" + bad + "'");
  require_error(gen::file_with_header(R"({"t":{"dtype":32,"shape":[],"data_offsets":[0,0]}})"), "ST-DTYPE-UNKNOWN",
                "tensor 't'", list + "a number");
}

TEST_CASE("F6.12 (§4): all 22 dtype names are accepted") {
  for (const DtypeInfo& d : dtype_table()) {
    INFO(d.name);
    const auto m = require_model(gen::file_with_header(
        R"({"t":{"dtype":")" + std::string(d.name) + R"(","shape":[0],"data_offsets":[0,0]}})"));
    REQUIRE(m.header.tensors.size() == 1);
    CHECK(m.header.tensors[0].dtype == d.dtype);
  }
  CHECK(dtype_table().size() == 22);
}

TEST_CASE("ST-SHAPE-TYPE (F6.13, F6.15): integer grammar of shape elements", "[ST-SHAPE-TYPE]") {
  struct Case { const char* dims; const char* found; };
  const auto c = GENERATE(Case{"1.0", "a number with a fraction or exponent"},
                          Case{"1e0", "a number with a fraction or exponent"},
                          Case{"-0", "-0 (a float to serde_json)"}, Case{"-1", "a negative integer"},
                          Case{"18446744073709551616", "an integer above 2^64-1"},
                          Case{"99999999999999999999999", "an integer above 2^64-1"}, Case{"\"1\"", "a string"},
                          Case{"null", "null"}, Case{"[1]", "an array"});
  INFO(c.dims);
  require_error(gen::file_with_header(with_shape(c.dims)), "ST-SHAPE-TYPE", "tensor 't'", kShapeMsg + c.found);
}

TEST_CASE("ST-SHAPE-TYPE (F6.13): shape must be an array, later elements carry their index", "[ST-SHAPE-TYPE]") {
  require_error(gen::file_with_header(R"({"t":{"dtype":"U8","shape":{},"data_offsets":[0,0]}})"), "ST-SHAPE-TYPE",
                "tensor 't'", "expected shape to be an array of integers, found an object");
  require_error(gen::file_with_header(with_shape("1,2,1.5")), "ST-SHAPE-TYPE", "tensor 't'",
                "expected shape[2] to be an integer in [0, 2^64-1], found a number with a fraction or exponent");
}

TEST_CASE("ST-JSON-SYNTAX (F6.4, F6.15): 01 in a shape is a syntax error", "[ST-JSON-SYNTAX]") {
  require_error(gen::file_with_header(with_shape("01")), "ST-JSON-SYNTAX", "byte 37",
                "expected no leading zeros in a number, found '1'");
}

TEST_CASE("F6.15: 2^64-1 is a valid shape element and data offset") {
  const auto m = require_model(gen::file_with_header(
      R"({"t":{"dtype":"U8","shape":[18446744073709551615,0],"data_offsets":[0,18446744073709551615]}})"));
  REQUIRE(m.header.tensors.size() == 1);
  CHECK(m.header.tensors[0].shape == std::vector<std::uint64_t>{UINT64_MAX, 0});
  CHECK(m.header.tensors[0].end == UINT64_MAX);
}

TEST_CASE("ST-OFFSETS-TYPE (F6.14): exactly two integers", "[ST-OFFSETS-TYPE]") {
  const std::string expected = "expected data_offsets to be an array of exactly two integers [begin, end], found ";
  struct Case { const char* offsets; std::string tail; };
  const auto c = GENERATE_REF(Case{"[0,1,2]", "an array of 3 elements"}, Case{"[0]", "an array of 1 element"},
                              Case{"[]", "an array of 0 elements"}, Case{"[0,1,\"x\"]", "an array of 3 elements"},
                              Case{"{}", "an object"}, Case{"\"0,1\"", "a string"});
  require_error(gen::file_with_header(std::string(R"({"t":{"dtype":"U8","shape":[],"data_offsets":)") + c.offsets + "}}"),
                "ST-OFFSETS-TYPE", "tensor 't'", expected + c.tail);
}

TEST_CASE("ST-OFFSETS-TYPE (F6.15): integer grammar of data_offsets elements", "[ST-OFFSETS-TYPE]") {
  struct Case { const char* offsets; const char* msg; };
  const auto c = GENERATE(
      Case{"[\"0\",1]", "expected data_offsets[0] to be an integer in [0, 2^64-1], found a string"},
      Case{"[0,1.0]", "expected data_offsets[1] to be an integer in [0, 2^64-1], found a number with a fraction or exponent"},
      Case{"[-0,0]", "expected data_offsets[0] to be an integer in [0, 2^64-1], found -0 (a float to serde_json)"},
      Case{"[0,18446744073709551616]", "expected data_offsets[1] to be an integer in [0, 2^64-1], found an integer above 2^64-1"});
  require_error(gen::file_with_header(std::string(R"({"t":{"dtype":"U8","shape":[],"data_offsets":)") + c.offsets + "}}"),
                "ST-OFFSETS-TYPE", "tensor 't'", c.msg);
}

TEST_CASE("F6.16: an entry a later duplicate replaces is still validated", "[ST-DTYPE-UNKNOWN]") {
  require_error(gen::file_with_header(
                    R"({"a":{"dtype":"bad","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1),
                "ST-DTYPE-UNKNOWN", "tensor 'a'",
                "expected dtype to be one of " + std::string(dtype_name_list()) + ", found 'bad'");
}

TEST_CASE("F6.16 (X3): the surviving duplicate keeps the first position and the last value") {
  const auto m = require_model(gen::file_with_header(
      R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"U8","shape":[0],"data_offsets":[2,2]},"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})", 2));
  REQUIRE(m.header.tensors.size() == 2);
  CHECK(m.header.tensors[0].name == "a");
  CHECK(m.header.tensors[0].end == 2);
  CHECK(m.header.tensors[1].name == "b");
  REQUIRE(m.header.duplicates.size() == 1);
  CHECK(m.header.duplicates[0] == DuplicateKey{DuplicateKind::Tensor, "a", true});
}

TEST_CASE("F6.11 (X19): unknown tensor fields are ignored and recorded") {
  const auto m = require_model(gen::file_with_header(
      R"({"t":{"x":{"y":[1,2]},"dtype":"U8","shape":[1],"data_offsets":[0,1],"z":null}})", 1));
  REQUIRE(m.header.tensors.size() == 1);
  CHECK(m.header.unknown_fields == std::vector<UnknownField>{{"t", "x"}, {"t", "z"}});
}
