// The JSON subset a safetensors header is written in (F6.1-F6.6): what
// serde_json accepts, spelled out. Two pieces: a validator for the whole text
// (syntax and nesting, reported at the first offending byte) and a cursor that
// walks text the validator has accepted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "spec/limits.hpp"
#include "spec/result.hpp"

namespace safespec {


// The whitespace set of F6.1.
constexpr bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Phase A: `text` is one RFC 8259 value with only JSON whitespace around it,
// numbers whose value is finite as an f64 (serde_json rejects others), no
// escaped lone surrogates, and nesting within kMaxJsonDepth. Error offsets are
// relative to the header text; `base` is added to them for messages.
Status validate_json_text(std::string_view text, std::uint64_t base);

// One escape inside a JSON string, `after` starting just past its backslash:
// the code point it stands for and how many bytes it spans after the
// backslash (1; 5 for \uXXXX; 11 for a surrogate pair), or nullopt when it is
// not one serde_json accepts: an unknown letter, fewer than four hex digits,
// or a lone surrogate. The one decoder of escapes (JsonCursor::decode_string,
// the plain reader in src/); validate_json_text says which of these failures
// a text has, with its message.
struct JsonEscape {
  std::uint32_t code_point;
  std::size_t length;
};
std::optional<JsonEscape> read_json_escape(std::string_view after);

enum class JsonKind : unsigned char { Null, Bool, Number, String, Array, Object };
std::string_view json_kind_phrase(JsonKind k);  // "a number", "an object", ...

// How a JSON number reads as a usize (F6.15).
enum class NumberKind : unsigned char { U64, Negative, NegativeZero, TooLarge, Fraction };
struct JsonNumber {
  NumberKind kind;
  std::uint64_t value;  // valid when kind == U64
};
std::string_view number_kind_phrase(NumberKind k);

// Walks a text that validate_json_text accepted. Every method assumes the
// grammar holds; none of them can read out of bounds on such a text.
class JsonCursor {
 public:
  explicit JsonCursor(std::string_view text) : t_(text) {}

  void skip_space();
  std::size_t pos() const { return pos_; }
  JsonKind peek() const;  // kind of the value starting at pos()
  bool try_consume(char c);  // after skip_space
  std::string read_string();  // decoded; pos() at the opening quote
  static std::string decode_string(std::string_view raw);  // raw: a validated quoted token
  std::string_view read_raw_string();  // the quoted token, escapes undecoded
  JsonNumber read_number();
  void skip_value();

 private:
  std::string_view t_;
  std::size_t pos_ = 0;
};

}  // namespace safespec
