// F1-F5: the length prefix and the UTF-8 check, and the precedence of the
// parse-level rules (safetensors-format.md §2, §3.1, §5 guidance).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gen/file_bytes.hpp"
#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "spec/file_prefix.hpp"
#include "spec/file_reader.hpp"
#include "spec/rule_catalogue.hpp"

using namespace safespec;
using namespace safespec::test;

TEST_CASE("ST-FILE-TOO-SMALL (F1): fewer than 8 bytes, exact where and message", "[ST-FILE-TOO-SMALL]") {
  require_error({}, "ST-FILE-TOO-SMALL", "byte 0",
                "expected at least 8 bytes (the header length), found a file of 0 bytes");
  require_error(Bytes(7, 0), "ST-FILE-TOO-SMALL", "byte 0",
                "expected at least 8 bytes (the header length), found a file of 7 bytes");
  CHECK(rule_info(RuleId::FileTooSmall).reference == "HeaderTooSmall");
}

TEST_CASE("ST-HEADER-TOO-LARGE (F3): N above 100,000,000", "[ST-HEADER-TOO-LARGE]") {
  require_error(gen::file_with_length(100'000'001, ""), "ST-HEADER-TOO-LARGE", "byte 0",
                "expected a header length of at most 100000000 bytes, found 100000001");
  CHECK(rule_info(RuleId::HeaderTooLarge).reference == "HeaderTooLarge");
}

TEST_CASE("ST-HEADER-TOO-LARGE (F3): N = 2^64-1 is rejected by F3, not F4", "[ST-HEADER-TOO-LARGE]") {
  require_error(gen::file_with_length(UINT64_MAX, "{}"), "ST-HEADER-TOO-LARGE", "byte 0",
                "expected a header length of at most 100000000 bytes, found 18446744073709551615");
}

TEST_CASE("ST-HEADER-TOO-LARGE (F3, §1): a big-endian length prefix is a huge little-endian one",
          "[ST-HEADER-TOO-LARGE]") {
  Bytes file = {0, 0, 0, 0, 0, 0, 0, 2, '{', '}'};
  require_error(file, "ST-HEADER-TOO-LARGE", "byte 0",
                "expected a header length of at most 100000000 bytes, found 144115188075855872");
}

TEST_CASE("ST-HEADER-TOO-LARGE (F3): N = 100,000,000 allowed, 100,000,001 rejected (check_prefix)",
          "[ST-HEADER-TOO-LARGE]") {
  const auto prefix = [](std::uint64_t n) {
    std::array<std::uint8_t, 8> b{};
    for (std::size_t i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(n >> (8 * i));
    return b;
  };
  const auto at_limit = prefix(100'000'000);
  const auto r = check_prefix(at_limit, 8 + 100'000'000);
  REQUIRE(r.ok());
  CHECK(r.value() == 100'000'000);

  const auto short_file = check_prefix(at_limit, 8 + 100'000'000 - 1);
  REQUIRE_FALSE(short_file.ok());
  CHECK(short_file.error().rule == RuleId::HeaderLength);
  CHECK(short_file.error().message ==
        "expected a file of at least 8 + 100000000 = 100000008 bytes for the header, found 100000007 bytes");

  const auto over = prefix(100'000'001);
  const auto r2 = check_prefix(over, UINT64_MAX);
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().rule == RuleId::HeaderTooLarge);
  CHECK(r2.error().where.text() == "byte 0");
}

TEST_CASE("F1 (checklist 1): the length prefix is read little-endian byte by byte") {
  const std::array<std::uint8_t, 8> b{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  CHECK(read_u64_le(b) == 0x0807060504030201ull);
}

TEST_CASE("ST-HEADER-LENGTH (F4): 8 + N beyond the file (upstream test_invalid_header_length)", "[ST-HEADER-LENGTH]") {
  const Bytes file = {0x3C, 0, 0, 0, 0, 0, 0, 0};
  require_error(file, "ST-HEADER-LENGTH", "byte 0",
                "expected a file of at least 8 + 60 = 68 bytes for the header, found 8 bytes");
  CHECK(rule_info(RuleId::HeaderLength).reference == "InvalidHeaderLength");
}

TEST_CASE("ST-HEADER-LENGTH (F4): one byte short of the header", "[ST-HEADER-LENGTH]") {
  require_error(gen::file_with_length(3, "{}"), "ST-HEADER-LENGTH", "byte 0",
                "expected a file of at least 8 + 3 = 11 bytes for the header, found 10 bytes");
}

TEST_CASE("F1-F5 (§1): the smallest valid file is 10 bytes, N = 2, header {}") {
  const auto m = require_model(gen::file_with_header("{}"));
  CHECK(m.file_size == 10);
  CHECK(m.header_length == 2);
  CHECK(m.header.tensors.empty());
  CHECK(m.header.metadata_state == MetadataState::Absent);
}

TEST_CASE("F6 (§2.3): N = 0 passes F1-F5 and fails F6", "[ST-JSON-SYNTAX]") {
  require_error(gen::file_with_header(""), "ST-JSON-SYNTAX", "byte 8",
                "expected a JSON value, found the end of the header");
}

TEST_CASE("ST-HEADER-UTF8 (F5): N = 1, header byte FF (upstream test_invalid_header_non_utf8)", "[ST-HEADER-UTF8]") {
  require_error(gen::file_with_header("\xFF"), "ST-HEADER-UTF8", "byte 8",
                "expected UTF-8 header text, found an invalid sequence starting with byte 0xff");
  CHECK(rule_info(RuleId::HeaderUtf8).reference == "InvalidHeader");
}

TEST_CASE("ST-HEADER-UTF8 (F5): each invalid UTF-8 class at its exact byte offset", "[ST-HEADER-UTF8]") {
  struct Case { const char* what; std::string seq; const char* lead; };
  const auto c = GENERATE(
      Case{"overlong 2-byte C0 80", "\xC0\x80", "0xc0"},
      Case{"overlong 2-byte C1 BF", "\xC1\xBF", "0xc1"},
      Case{"overlong 3-byte E0 80 80", "\xE0\x80\x80", "0xe0"},
      Case{"overlong 4-byte F0 80 80 80", "\xF0\x80\x80\x80", "0xf0"},
      Case{"surrogate U+D800 ED A0 80", "\xED\xA0\x80", "0xed"},
      Case{"surrogate U+DFFF ED BF BF", "\xED\xBF\xBF", "0xed"},
      Case{"above U+10FFFF F4 90 80 80", "\xF4\x90\x80\x80", "0xf4"},
      Case{"lead byte F5", "\xF5\x80\x80\x80", "0xf5"},
      Case{"lead byte FF", "\xFF", "0xff"},
      Case{"truncated 3-byte E2 82", "\xE2\x82", "0xe2"},
      Case{"truncated 4-byte F0 9F 98", "\xF0\x9F\x98", "0xf0"},
      Case{"lone continuation 80", "\x80", "0x80"},
      Case{"lone continuation BF", "\xBF", "0xbf"});
  INFO(c.what);
  // The bad sequence starts at header offset 22, file byte 30.
  const std::string header = std::string(R"({"__metadata__":{"k":")") + c.seq + "\"}}";
  require_error(gen::file_with_header(header), "ST-HEADER-UTF8", "byte 30",
                std::string("expected UTF-8 header text, found an invalid sequence starting with byte ") + c.lead);
}

TEST_CASE("ST-HEADER-UTF8 (F5): truncated sequence at the very end of the header", "[ST-HEADER-UTF8]") {
  require_error(gen::file_with_header("{}  \xE2\x82"), "ST-HEADER-UTF8", "byte 12",
                "expected UTF-8 header text, found an invalid sequence starting with byte 0xe2");
}

TEST_CASE("F5: boundary code points are valid UTF-8 and decode unchanged") {
  const std::string seq = GENERATE(std::string("\xC2\x80"), std::string("\xDF\xBF"), std::string("\xE0\xA0\x80"),
                                   std::string("\xED\x9F\xBF"), std::string("\xEE\x80\x80"),
                                   std::string("\xEF\xBF\xBF"), std::string("\xF0\x90\x80\x80"),
                                   std::string("\xF4\x8F\xBF\xBF"));
  const auto m = require_model(gen::file_with_header(std::string(R"({"__metadata__":{"k":")") + seq + "\"}}"));
  REQUIRE(m.header.metadata.size() == 1);
  CHECK(m.header.metadata[0].second == seq);
}

TEST_CASE("F5 before F6: invalid UTF-8 in padding after a valid object is ST-HEADER-UTF8", "[ST-HEADER-UTF8]") {
  require_error(gen::file_with_header("{}  \xC0\x80"), "ST-HEADER-UTF8", "byte 12",
                "expected UTF-8 header text, found an invalid sequence starting with byte 0xc0");
}

TEST_CASE("F5 before F6: broken JSON with a bad byte reports UTF-8, not syntax", "[ST-HEADER-UTF8]") {
  require_error(gen::file_with_header("{\xFF"), "ST-HEADER-UTF8", "byte 9",
                "expected UTF-8 header text, found an invalid sequence starting with byte 0xff");
}

TEST_CASE("F3 before F4 before F5: precedence of the prefix rules",
          "[ST-HEADER-TOO-LARGE][ST-HEADER-LENGTH][ST-FILE-TOO-SMALL]") {
  // Too large and too short: F3 wins.
  require_error(gen::file_with_length(100'000'001, "\xFF"), "ST-HEADER-TOO-LARGE", "byte 0",
                "expected a header length of at most 100000000 bytes, found 100000001");
  // Too short and not UTF-8: F4 wins.
  require_error(gen::file_with_length(5, "\xFF"), "ST-HEADER-LENGTH", "byte 0",
                "expected a file of at least 8 + 5 = 13 bytes for the header, found 9 bytes");
  // F1 before everything.
  require_error(Bytes{0xFF, 0xFF, 0xFF}, "ST-FILE-TOO-SMALL", "byte 0",
                "expected at least 8 bytes (the header length), found a file of 3 bytes");
}

TEST_CASE("F6 before F8-F13: syntax is decided before any model rule") {
  // "a" maps to a number (a model error) before the syntax error at '}'.
  require_error(gen::file_with_header(R"({"a":1,})"), "ST-JSON-SYNTAX", "byte 15",
                "expected a string key, found '}'");
}

TEST_CASE("F4: the header is read from the prefix only, the data buffer does not matter") {
  const auto m = require_model(gen::file_with_header("{}", 0));
  CHECK(m.buffer_size() == 0);
  const auto with_data = parse_both(gen::file_with_header("{}", 5));
  REQUIRE(with_data.ok());  // F13 is a model rule, not a parse error
  CHECK(with_data.value().buffer_size() == 5);
}

TEST_CASE("F6.1: whitespace between every token is accepted and means nothing") {
  const std::string spaced =
      " { \"__metadata__\" :\t{ \"k\" : \"v\" } ,\n\"t\" : { \"dtype\" : \"U8\" , \"shape\" : [ 1 , 2 ] ,\r"
      " \"data_offsets\" : [ 0 , 2 ] , \"x\" : [ 1 , { \"a\" : null } , [ ] , { } ] } } ";
  const auto m = require_model(gen::file_with_header(spaced, 2));
  REQUIRE(m.header.tensors.size() == 1);
  CHECK(m.header.tensors[0].shape == std::vector<std::uint64_t>{1, 2});
  CHECK(m.header.tensors[0].end == 2);
  CHECK(m.header.metadata == std::vector<std::pair<std::string, std::string>>{{"k", "v"}});
  CHECK(m.header.leading_whitespace == 1);
}

TEST_CASE("F6.4: numbers serde_json reads as f64 are accepted in ignored fields") {
  const std::string number = GENERATE(std::string("1e308"), std::string("18446744073709551616"),
                                      std::string("-0.0"), std::string("1E+2"), std::string("-9223372036854775809"),
                                      std::string("123456789012345678901234567890"), std::string("0.5e-400"));
  INFO(number);
  const auto m = require_model(
      gen::file_with_header(R"({"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":)" + number + "}}", 1));
  CHECK(m.header.tensors.size() == 1);
}

TEST_CASE("ST-JSON-SYNTAX (F6.4): malformed numbers", "[ST-JSON-SYNTAX]") {
  struct Case { const char* num; const char* where; const char* message; };
  const auto c = GENERATE(Case{"-", "byte 14", "expected a digit in a number, found '}'"},
                          Case{"1.", "byte 15", "expected a digit after '.', found '}'"},
                          Case{"1e", "byte 15", "expected a digit in an exponent, found '}'"},
                          Case{".5", "byte 13", "expected a JSON value, found '.'"},
                          Case{"-1e999", "byte 13", "expected a number whose value fits an f64, found -1e999"});
  INFO(c.num);
  require_error(gen::file_with_header(std::string(R"({"t":)") + c.num + "}"), "ST-JSON-SYNTAX", c.where, c.message);
}
