// serde_json 1.0.150's reader (`Deserializer<StrRead>`) as the reference
// reader drives it: the same byte-by-byte decisions, the same error codes, and
// the same line/column rules, so every error prints as serde_json prints it.
// Positions follow serde_json's SliceRead: `position()` is the index of the
// next unread byte, `peek_position()` one past it; a column counts bytes
// since the last '\n'.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "spec/result.hpp"

namespace safespec::reference {

// Shared by the reader and its number parser (serde_json_number.cpp): the
// ErrorCode text both report, and the digit test both scan with.
inline constexpr std::string_view kEofValue = "EOF while parsing a value";
inline bool is_digit(int c) { return c >= '0' && c <= '9'; }

// A serde_json::Error. line == 0: a serde (custom) error not yet given a
// place; serde_json places it when it returns through a deserialize call.
struct SerdeError {
  std::string message;
  std::size_t line = 0;
  std::size_t column = 0;

  std::string display() const;  // "<message> at line L column C", or the message
};

template <class T>
using SerdeResult = Result<T, SerdeError>;
using SerdeStatus = SerdeResult<Unit>;
inline SerdeStatus serde_ok() { return Unit{}; }

// A parsed JSON number as serde_json keeps it: non-negative integers as u64,
// negative ones as i64, everything else (fractions, exponents, -0, integers
// beyond u64) as f64 through serde_json's own (not correctly rounded) algorithm.
struct JsonNumber {
  enum class Kind : unsigned char { U64, I64, F64 } kind = Kind::U64;
  std::uint64_t u = 0;
  std::int64_t i = 0;
  double f = 0;
};

// serde's `Unexpected` as serde_json prints it ("integer `1`", "null", ...).
std::string unexpected_number(const JsonNumber& n);
SerdeError invalid_type(std::string_view unexpected, std::string_view expected);

class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : s_(text) {}

  std::size_t index() const { return index_; }
  void seek(std::size_t i) { index_ = i; }
  int peek() const { return index_ < s_.size() ? static_cast<unsigned char>(s_[index_]) : -1; }
  void eat() { ++index_; }

  SerdeError error(std::string_view code) const;       // at position()
  SerdeError peek_error(std::string_view code) const;  // at peek_position()
  SerdeError fix_position(SerdeError e) const;         // places an unplaced error at position()

  int parse_whitespace();  // eats ' ' '\n' '\t' '\r'; the next byte or -1
  SerdeStatus parse_ident(std::string_view rest);
  SerdeResult<JsonNumber> parse_any_number(bool positive);
  // After the opening quote: the decoded string (escapes validated as for a &str).
  SerdeResult<std::string> parse_str();
  SerdeStatus parse_object_colon();
  SerdeStatus end_map();
  SerdeStatus end_seq();
  SerdeStatus end();  // only whitespace may follow the value

  // MapAccess/SeqAccess: whether another key/element follows (eats the ',').
  SerdeResult<bool> has_next_key(bool& first);
  SerdeResult<bool> has_next_element(bool& first);

  // `deserialize_any` as serde's Content visitor drives it: the whole value,
  // checked, with the recursion limit.
  SerdeStatus skip_any();
  // The error serde_json gives when the next value has the wrong type.
  SerdeError peek_invalid_type(std::string_view expected);

  // check_recursion!: the remaining depth, 128 at the start.
  bool enter();  // false: the limit is exceeded
  void leave() { ++remaining_depth_; }

 private:
  std::string_view s_;
  std::size_t index_ = 0;
  int remaining_depth_ = 128;

  SerdeError at(std::size_t i, std::string_view code) const;
  SerdeResult<JsonNumber> parse_number(bool positive, std::uint64_t significand);
  SerdeResult<double> parse_decimal(bool positive, std::uint64_t significand, std::int32_t exponent);
  SerdeResult<double> parse_exponent(bool positive, std::uint64_t significand, std::int32_t starting_exp);
  SerdeResult<double> parse_long_integer(bool positive, std::uint64_t significand);
  SerdeResult<double> parse_decimal_overflow(bool positive, std::uint64_t significand, std::int32_t exponent);
  SerdeResult<double> parse_exponent_overflow(bool positive, bool zero_significand, bool positive_exp);
  SerdeResult<double> f64_from_parts(bool positive, std::uint64_t significand, std::int32_t exponent);
  SerdeStatus parse_escape(std::string& out);
  SerdeResult<std::uint16_t> decode_hex_escape();
  SerdeStatus skip_seq();
  SerdeStatus skip_map();
};

// serde_json's number parser alone, on a whole string (tests, fuzzers): the
// number, or the error (e.g. "number out of range") serde_json gives.
SerdeResult<JsonNumber> serde_parse_number(std::string_view text);

}  // namespace safespec::reference
