#include "spec/json_text.hpp"

#include <cmath>
#include <cstdlib>

#include "spec/reference/serde_json_reader.hpp"
#include "spec/utf8.hpp"

namespace safespec {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Recursive descent; recursion is bounded by kMaxJsonDepth.
class Validator {
 public:
  Validator(std::string_view t, std::uint64_t base) : t_(t), base_(base) {}

  Status run() {
    skip_space();
    if (auto s = value(0); !s) return s;
    skip_space();
    if (pos_ != t_.size()) return fail("expected only whitespace after the top-level value, found " + found());
    return ok_status();
  }

 private:
  std::string_view t_;
  std::uint64_t base_;
  std::size_t pos_ = 0;

  bool at_end() const { return pos_ >= t_.size(); }
  char cur() const { return t_[pos_]; }
  void skip_space() { while (!at_end() && is_json_space(cur())) ++pos_; }

  std::string found() const {
    if (at_end()) return "the end of the header";
    const unsigned char c = static_cast<unsigned char>(cur());
    if (c >= 0x20 && c < 0x7f) return std::string("'") + cur() + "'";
    static const char* kHex = "0123456789abcdef";
    return std::string("byte 0x") + kHex[c >> 4] + kHex[c & 15];
  }

  Status fail(std::string message, RuleId rule = RuleId::JsonSyntax) const {
    return Error{rule, Place::at_byte(base_ + pos_), std::move(message)};
  }

  Status value(int depth) {
    if (at_end()) return fail("expected a JSON value, found the end of the header");
    switch (cur()) {
      case '{': return object(depth + 1);
      case '[': return array(depth + 1);
      case '"': return string();
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default:
        if (cur() == '-' || is_digit(cur())) return number();
        return fail("expected a JSON value, found " + found());
    }
  }

  Status enter(int depth) {
    if (depth > kMaxJsonDepth)
      return fail("expected arrays and objects nested at most " + std::to_string(kMaxJsonDepth) +
                      " deep, found deeper nesting",
                  RuleId::JsonDepth);
    ++pos_;
    skip_space();
    return ok_status();
  }

  Status object(int depth) {
    if (auto s = enter(depth); !s) return s;
    if (!at_end() && cur() == '}') { ++pos_; return ok_status(); }
    for (;;) {
      if (at_end() || cur() != '"') return fail("expected a string key, found " + found());
      if (auto s = string(); !s) return s;
      skip_space();
      if (at_end() || cur() != ':') return fail("expected ':' after an object key, found " + found());
      ++pos_;
      skip_space();
      if (auto s = value(depth); !s) return s;
      skip_space();
      if (!at_end() && cur() == ',') { ++pos_; skip_space(); continue; }
      if (!at_end() && cur() == '}') { ++pos_; return ok_status(); }
      return fail("expected ',' or '}' in an object, found " + found());
    }
  }

  Status array(int depth) {
    if (auto s = enter(depth); !s) return s;
    if (!at_end() && cur() == ']') { ++pos_; return ok_status(); }
    for (;;) {
      if (auto s = value(depth); !s) return s;
      skip_space();
      if (!at_end() && cur() == ',') { ++pos_; skip_space(); continue; }
      if (!at_end() && cur() == ']') { ++pos_; return ok_status(); }
      return fail("expected ',' or ']' in an array, found " + found());
    }
  }

  Status literal(std::string_view word) {
    if (t_.substr(pos_, word.size()) != word)
      return fail("expected the literal " + std::string(word) + ", found " + found());
    pos_ += word.size();
    return ok_status();
  }

  // Reads \uXXXX at pos_ (pointing at the backslash); returns the code unit or -1.
  long hex4() {
    if (t_.size() - pos_ < 6 || t_[pos_ + 1] != 'u') return -1;
    long v = 0;
    for (std::size_t k = 2; k < 6; ++k) {
      const int h = hex_value(t_[pos_ + k]);
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    return v;
  }

  Status string() {
    ++pos_;  // opening quote
    for (;;) {
      if (at_end()) return fail("expected a closing '\"', found the end of the header");
      const unsigned char c = static_cast<unsigned char>(cur());
      if (c == '"') { ++pos_; return ok_status(); }
      if (c < 0x20) return fail("expected control characters in strings to be escaped, found " + found());
      if (c != '\\') { ++pos_; continue; }
      if (t_.size() - pos_ < 2) { ++pos_; return fail("expected an escape sequence, found the end of the header"); }
      const char e = t_[pos_ + 1];
      if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
        pos_ += 2;
        continue;
      }
      if (e != 'u') { ++pos_; return fail("expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u, found " + found()); }
      const long unit = hex4();
      if (unit < 0) return fail("expected four hex digits after \\u");
      if (unit >= 0xDC00 && unit <= 0xDFFF) return fail("expected a high surrogate before a low surrogate, found a lone \\u escape of a low surrogate");
      pos_ += 6;
      if (unit >= 0xD800 && unit <= 0xDBFF) {
        const long low = at_end() || cur() != '\\' ? -1 : hex4();
        if (low < 0xDC00 || low > 0xDFFF) return fail("expected a low surrogate escape after a high surrogate, found " + found());
        pos_ += 6;
      }
    }
  }

  Status number() {
    const std::size_t start = pos_;
    if (cur() == '-') ++pos_;
    if (at_end() || !is_digit(cur())) return fail("expected a digit in a number, found " + found());
    if (cur() == '0') {
      ++pos_;
      if (!at_end() && is_digit(cur())) return fail("expected no leading zeros in a number, found " + found());
    } else {
      while (!at_end() && is_digit(cur())) ++pos_;
    }
    if (!at_end() && cur() == '.') {
      ++pos_;
      if (at_end() || !is_digit(cur())) return fail("expected a digit after '.', found " + found());
      while (!at_end() && is_digit(cur())) ++pos_;
    }
    if (!at_end() && (cur() == 'e' || cur() == 'E')) {
      ++pos_;
      if (!at_end() && (cur() == '+' || cur() == '-')) ++pos_;
      if (at_end() || !is_digit(cur())) return fail("expected a digit in an exponent, found " + found());
      while (!at_end() && is_digit(cur())) ++pos_;
    }
    // serde_json reads every number that is not a u64 or i64 as an f64, by
    // its own algorithm (not correctly rounded), and rejects the ones that
    // overflow it ("number out of range").
    const std::string token(t_.substr(start, pos_ - start));
    if (!reference::serde_parse_number(token)) {
      pos_ = start;
      return fail("expected a number whose value fits an f64, found " + token.substr(0, 40));
    }
    return ok_status();
  }
};

}  // namespace

Status validate_json_text(std::string_view text, std::uint64_t base) {
  return Validator(text, base).run();
}

std::string_view json_kind_phrase(JsonKind k) {
  switch (k) {
    case JsonKind::Null: return "null";
    case JsonKind::Bool: return "a boolean";
    case JsonKind::Number: return "a number";
    case JsonKind::String: return "a string";
    case JsonKind::Array: return "an array";
    case JsonKind::Object: return "an object";
  }
  return "a value";
}

std::string_view number_kind_phrase(NumberKind k) {
  switch (k) {
    case NumberKind::U64: return "an integer";
    case NumberKind::Negative: return "a negative integer";
    case NumberKind::NegativeZero: return "-0 (a float to serde_json)";
    case NumberKind::TooLarge: return "an integer above 2^64-1";
    case NumberKind::Fraction: return "a number with a fraction or exponent";
  }
  return "a number";
}

void JsonCursor::skip_space() {
  while (pos_ < t_.size() && is_json_space(t_[pos_])) ++pos_;
}

JsonKind JsonCursor::peek() const {
  switch (t_[pos_]) {
    case '{': return JsonKind::Object;
    case '[': return JsonKind::Array;
    case '"': return JsonKind::String;
    case 't': case 'f': return JsonKind::Bool;
    case 'n': return JsonKind::Null;
    default: return JsonKind::Number;
  }
}

bool JsonCursor::try_consume(char c) {
  skip_space();
  if (pos_ < t_.size() && t_[pos_] == c) {
    ++pos_;
    skip_space();
    return true;
  }
  return false;
}

std::string_view JsonCursor::read_raw_string() {
  const std::size_t start = pos_++;
  while (t_[pos_] != '"') pos_ += t_[pos_] == '\\' ? 2 : 1;
  ++pos_;
  return t_.substr(start, pos_ - start);
}

std::string JsonCursor::read_string() { return decode_string(read_raw_string()); }

std::optional<JsonEscape> read_json_escape(std::string_view after) {
  if (after.empty()) return std::nullopt;
  switch (after[0]) {
    case '"': return JsonEscape{'"', 1};
    case '\\': return JsonEscape{'\\', 1};
    case '/': return JsonEscape{'/', 1};
    case 'b': return JsonEscape{'\b', 1};
    case 'f': return JsonEscape{'\f', 1};
    case 'n': return JsonEscape{'\n', 1};
    case 'r': return JsonEscape{'\r', 1};
    case 't': return JsonEscape{'\t', 1};
    case 'u': break;
    default: return std::nullopt;
  }
  // \uXXXX at `at` (the 'u'): its code unit, or -1.
  const auto unit = [&](std::size_t at) -> long {
    if (after.size() - at < 5 || after[at] != 'u') return -1;
    long v = 0;
    for (std::size_t k = 1; k <= 4; ++k) {
      const int h = hex_value(after[at + k]);
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    return v;
  };
  const long high = unit(0);
  if (high < 0 || (high >= 0xDC00 && high <= 0xDFFF)) return std::nullopt;
  if (high < 0xD800 || high > 0xDBFF) return JsonEscape{static_cast<std::uint32_t>(high), 5};
  const long low = after.size() > 6 && after[5] == '\\' ? unit(6) : -1;
  if (low < 0xDC00 || low > 0xDFFF) return std::nullopt;
  return JsonEscape{static_cast<std::uint32_t>(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)), 11};
}

std::string JsonCursor::decode_string(std::string_view raw) {
  std::string out;
  out.reserve(raw.size() - 2);
  for (std::size_t i = 1; i + 1 < raw.size(); ++i) {
    if (raw[i] != '\\') {
      out += raw[i];
      continue;
    }
    // Validated: every escape reads (read_json_escape accepts what
    // validate_json_text accepts).
    const JsonEscape e = *read_json_escape(raw.substr(i + 1, raw.size() - 1 - (i + 1)));
    append_utf8(out, e.code_point);
    i += e.length;
  }
  return out;
}

JsonNumber JsonCursor::read_number() {
  const std::size_t start = pos_;
  bool negative = false, fraction = false;
  if (t_[pos_] == '-') { negative = true; ++pos_; }
  std::uint64_t v = 0;
  bool too_large = false;
  while (pos_ < t_.size() && is_digit(t_[pos_])) {
    const auto d = static_cast<std::uint64_t>(t_[pos_] - '0');
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, d, &v)) too_large = true;
    ++pos_;
  }
  while (pos_ < t_.size() && (t_[pos_] == '.' || t_[pos_] == 'e' || t_[pos_] == 'E' ||
                              t_[pos_] == '+' || t_[pos_] == '-' || is_digit(t_[pos_]))) {
    fraction = true;
    ++pos_;
  }
  if (fraction) return {NumberKind::Fraction, 0};
  if (negative) return {pos_ - start == 2 && t_[start + 1] == '0' ? NumberKind::NegativeZero : NumberKind::Negative, 0};
  if (too_large) return {NumberKind::TooLarge, 0};
  return {NumberKind::U64, v};
}

void JsonCursor::skip_value() {
  int depth = 0;
  do {
    skip_space();
    const char c = t_[pos_];
    if (c == '"') {
      read_raw_string();
    } else if (c == '{' || c == '[') {
      ++depth;
      ++pos_;
    } else if (c == '}' || c == ']') {
      --depth;
      ++pos_;
    } else if (c == ',' || c == ':') {
      ++pos_;
    } else if (c == 't' || c == 'n') {
      pos_ += 4;
    } else if (c == 'f') {
      pos_ += 5;
    } else {
      read_number();
    }
    skip_space();
  } while (depth > 0);
}

}  // namespace safespec
