// The plain header reader (src/plain_header.hpp): which texts it decides, and
// that what it decides is what the reference reader and the emulated Rust
// reader say. The differential properties cover the general case; these pin
// the spellings real checkpoints use and the edges of "plain".
#include <string>
#include <vector>

#include "gen/file_bytes.hpp"
#include "gen/synthetic.hpp"
#include "props/catch.hpp"
#include "spec/header_reader.hpp"
#include "spec/reference/reference_reader.hpp"
#include "src/fast_header.hpp"
#include "src/load.hpp"
#include "src/oracles.hpp"

using namespace safespec;

namespace {

// Whether the fast path decided `header`, after checking that the answer is
// the reference reader's (Header or Error) and that check's reference answer
// is the emulated Rust reader's.
bool decided_fast(const std::string& header, std::size_t data = 0) {
  FastHeaderParser parser;
  const Result<Header> fast = parser.parse(header);
  const bool was_fast = parser.last_was_fast();
  CHECK(fast == read_header_reference(header));
  const std::vector<std::uint8_t> bytes = gen::file_with_header(header, data);
  CHECK_FALSE(parsers_disagree(bytes, parser).has_value());
  return was_fast;
}

}  // namespace

TEST_CASE("plain reader decides the spellings real checkpoints use", "[unit][plain]") {
  CHECK(decided_fast("{}"));
  CHECK(decided_fast(" \t\r\n{ } \n"));
  CHECK(decided_fast(R"({"__metadata__":null})"));
  CHECK(decided_fast(R"({"__metadata__":{}})"));
  CHECK(decided_fast(R"({"a":{"dtype":"U8","shape":[],"data_offsets":[0,1]}})", 1));
  CHECK(decided_fast(R"({ "a" : { "shape" : [ 2 , 3 ] , "data_offsets" : [ 0 , 6 ] , "dtype" : "I8" } })", 6));
  // A config stored as JSON text in the metadata: escapes everywhere.
  CHECK(decided_fast(R"({"__metadata__":{"config":"{\"a\": [1, -0.5], \"b\": \"\\u00e9\\t\\/\"}"}})"));
  // A date with -0 in a string is no number.
  CHECK(decided_fast(R"({"__metadata__":{"date":"2024-01-02"}})"));
  // UTF-8 raw and escaped, a surrogate pair, an escaped key.
  CHECK(decided_fast("{\"caf\xC3\xA9\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1));
  CHECK(decided_fast(R"({"\ud83d\ude00.w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1));
  CHECK(decided_fast(R"({"a\u0000b":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1));
  CHECK(decided_fast(R"({"a":{"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,1]}})", 1));
  // Valid in form, wrong in content: the fast path still decides.
  CHECK(decided_fast(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,1]}})", 1));
  CHECK(decided_fast(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[5,1]}})", 1));
}

TEST_CASE("plain reader hands every other text to the reference reader", "[unit][plain]") {
  for (const std::string& header : {
           std::string(""), std::string("[]"), std::string("{"), std::string("{}x"), std::string("{},"),
           std::string(R"({"a":{"dtype":"U8","shape":[-0],"data_offsets":[0,0]}})"),
           std::string(R"({"a":{"dtype":"U8","shape":[1.0],"data_offsets":[0,1]}})"),
           std::string(R"({"a":{"dtype":"U8","shape":[1e0],"data_offsets":[0,1]}})"),
           std::string(R"({"a":{"dtype":"U8","shape":[01],"data_offsets":[0,1]}})"),
           std::string(R"({"a":{"dtype":"U8","shape":[18446744073709551616],"data_offsets":[0,1]}})"),
           std::string(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]}})"),
           std::string(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":1}})"),
           std::string(R"({"a":{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}})"),
           std::string(R"({"a":{"dtype":"u8","shape":[1],"data_offsets":[0,1]}})"),
           std::string(R"({"a":["U8",[1],[0,1]]})"),
           std::string(R"({"a":{}})"),
           std::string(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})"),
           std::string(R"({"__metadata__":{"k":"v","k":"w"}})"),
           std::string(R"({"__metadata__":{"k":1}})"),
           std::string(R"({"__metadata__":null,"__metadata__":null})"),
           std::string(R"({"__metadata__":{"k":"\ud800"}})"),
           std::string(R"({"__metadata__":{"k":"\udc00"}})"),
           std::string(R"({"__metadata__":{"k":"\x"}})"),
           std::string("{\"__metadata__\":{\"k\":\"\xC3\"}}"),
           std::string("{\"__metadata__\":{\"k\":\"\xED\xA0\x80\"}}"),
           std::string("{\"__metadata__\":{\"k\":\"a\tb\"}}"),
       }) {
    INFO(header);
    CHECK_FALSE(decided_fast(header, 2));
  }
}

TEST_CASE("plain reader keeps one path above 16 MiB", "[unit][plain]") {
  // 150,000 tensors: about 19 MB of header, past where the simdjson DOM
  // used to hand over to the streaming reader.
  const gen::SyntheticText s = gen::synthetic_checkpoint_text(150'000, 16);
  REQUIRE(s.text.size() > (std::size_t{16} << 20));
  FastHeaderParser parser;
  const Result<Header> h = parser.parse(s.text);
  CHECK(parser.last_was_fast());
  REQUIRE(h.ok());
  CHECK(h.value().tensors.size() == 150'000);
  const reference::Answer a = reference::read_plain_header(h.value(), s.text.size(), 8 + s.text.size() + s.data_size);
  CHECK_FALSE(a.failure.has_value());
}
