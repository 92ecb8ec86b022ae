#include "spec/reference/serde_json_reader.hpp"

#include <array>
#include <cmath>

#include "spec/reference/rust_text.hpp"
#include "spec/utf8.hpp"

namespace safespec::reference {

namespace {

// serde_json's ErrorCode texts.
constexpr std::string_view kEofList = "EOF while parsing a list";
constexpr std::string_view kEofObject = "EOF while parsing an object";
constexpr std::string_view kEofString = "EOF while parsing a string";
constexpr std::string_view kEofValue = "EOF while parsing a value";
constexpr std::string_view kExpectedColon = "expected `:`";
constexpr std::string_view kListCommaOrEnd = "expected `,` or `]`";
constexpr std::string_view kObjectCommaOrEnd = "expected `,` or `}`";
constexpr std::string_view kExpectedIdent = "expected ident";
constexpr std::string_view kExpectedValue = "expected value";
constexpr std::string_view kInvalidEscape = "invalid escape";
constexpr std::string_view kInvalidNumber = "invalid number";
constexpr std::string_view kOutOfRange = "number out of range";
constexpr std::string_view kControl = "control character (\\u0000-\\u001F) found while parsing a string";
constexpr std::string_view kKeyString = "key must be a string";
constexpr std::string_view kLoneSurrogate = "lone leading surrogate in hex escape";
constexpr std::string_view kTrailingComma = "trailing comma";
constexpr std::string_view kTrailingChars = "trailing characters";
constexpr std::string_view kHexEnd = "unexpected end of hex escape";
constexpr std::string_view kRecursion = "recursion limit exceeded";

constexpr std::uint64_t kU64Max = ~std::uint64_t{0};
constexpr std::int32_t kI32Max = 2147483647;

// POW10[i] = 1e{i} as f64 literals: the table serde_json scales with.
constexpr std::array<double, 309> kPow10 = [] {
  std::array<double, 309> t{};
  // Each entry is the correctly rounded 1e{i}; built from exact products up
  // to 1e22 and from long double elsewhere would round twice, so spell them.
#define SAFESPEC_P(i) t[i] = 1e##i;
#define SAFESPEC_P10(d) SAFESPEC_P(d##0) SAFESPEC_P(d##1) SAFESPEC_P(d##2) SAFESPEC_P(d##3) SAFESPEC_P(d##4) \
  SAFESPEC_P(d##5) SAFESPEC_P(d##6) SAFESPEC_P(d##7) SAFESPEC_P(d##8) SAFESPEC_P(d##9)
  t[0] = 1e0; t[1] = 1e1; t[2] = 1e2; t[3] = 1e3; t[4] = 1e4; t[5] = 1e5; t[6] = 1e6; t[7] = 1e7; t[8] = 1e8; t[9] = 1e9;
  SAFESPEC_P10(1) SAFESPEC_P10(2) SAFESPEC_P10(3) SAFESPEC_P10(4) SAFESPEC_P10(5) SAFESPEC_P10(6) SAFESPEC_P10(7)
  SAFESPEC_P10(8) SAFESPEC_P10(9) SAFESPEC_P10(10) SAFESPEC_P10(11) SAFESPEC_P10(12) SAFESPEC_P10(13)
  SAFESPEC_P10(14) SAFESPEC_P10(15) SAFESPEC_P10(16) SAFESPEC_P10(17) SAFESPEC_P10(18) SAFESPEC_P10(19)
  SAFESPEC_P10(20) SAFESPEC_P10(21) SAFESPEC_P10(22) SAFESPEC_P10(23) SAFESPEC_P10(24) SAFESPEC_P10(25)
  SAFESPEC_P10(26) SAFESPEC_P10(27) SAFESPEC_P10(28) SAFESPEC_P10(29)
  SAFESPEC_P(300) SAFESPEC_P(301) SAFESPEC_P(302) SAFESPEC_P(303) SAFESPEC_P(304) SAFESPEC_P(305)
  SAFESPEC_P(306) SAFESPEC_P(307) SAFESPEC_P(308)
#undef SAFESPEC_P10
#undef SAFESPEC_P
  return t;
}();

bool is_digit(int c) { return c >= '0' && c <= '9'; }

int hex_value(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string SerdeError::display() const {
  if (line == 0) return message;
  return message + " at line " + std::to_string(line) + " column " + std::to_string(column);
}

std::string unexpected_number(const JsonNumber& n) {
  switch (n.kind) {
    case JsonNumber::Kind::U64: return "integer `" + std::to_string(n.u) + "`";
    case JsonNumber::Kind::I64: return "integer `" + std::to_string(n.i) + "`";
    case JsonNumber::Kind::F64: break;
  }
  return "floating point `" + zmij_format(n.f) + "`";
}

SerdeError invalid_type(std::string_view unexpected, std::string_view expected) {
  return SerdeError{"invalid type: " + std::string(unexpected) + ", expected " + std::string(expected), 0, 0};
}

SerdeError JsonReader::at(std::size_t i, std::string_view code) const {
  std::size_t start = i;
  while (start > 0 && s_[start - 1] != '\n') --start;
  std::size_t line = 1;
  for (std::size_t k = 0; k < start; ++k) line += s_[k] == '\n';
  return SerdeError{std::string(code), line, i - start};
}

SerdeError JsonReader::error(std::string_view code) const { return at(index_, code); }

SerdeError JsonReader::peek_error(std::string_view code) const {
  return at(index_ + 1 < s_.size() ? index_ + 1 : s_.size(), code);
}

SerdeError JsonReader::fix_position(SerdeError e) const {
  if (e.line != 0) return e;
  SerdeError placed = at(index_, e.message);
  return placed;
}

int JsonReader::parse_whitespace() {
  for (;;) {
    const int c = peek();
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') eat();
    else return c;
  }
}

SerdeStatus JsonReader::parse_ident(std::string_view rest) {
  for (const char expected : rest) {
    if (index_ >= s_.size()) return error(kEofValue);
    if (s_[index_++] != expected) return error(kExpectedIdent);
  }
  return serde_ok();
}

SerdeResult<JsonNumber> JsonReader::parse_any_number(bool positive) {
  if (index_ >= s_.size()) return error(kEofValue);
  const int next = static_cast<unsigned char>(s_[index_++]);
  if (next == '0') {
    if (is_digit(peek())) return peek_error(kInvalidNumber);  // one leading '0' only
    return parse_number(positive, 0);
  }
  if (next < '1' || next > '9') return error(kInvalidNumber);
  std::uint64_t significand = static_cast<std::uint64_t>(next - '0');
  for (;;) {
    const int c = peek();
    if (!is_digit(c)) return parse_number(positive, significand);
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (significand >= kU64Max / 10 && (significand > kU64Max / 10 || digit > kU64Max % 10)) {
      auto f = parse_long_integer(positive, significand);
      if (!f) return f.error();
      return JsonNumber{JsonNumber::Kind::F64, 0, 0, f.value()};
    }
    eat();
    significand = significand * 10 + digit;
  }
}

SerdeResult<JsonNumber> JsonReader::parse_number(bool positive, std::uint64_t significand) {
  const int c = peek();
  if (c == '.' || c == 'e' || c == 'E') {
    auto f = c == '.' ? parse_decimal(positive, significand, 0) : parse_exponent(positive, significand, 0);
    if (!f) return f.error();
    return JsonNumber{JsonNumber::Kind::F64, 0, 0, f.value()};
  }
  if (positive) return JsonNumber{JsonNumber::Kind::U64, significand, 0, 0};
  // (significand as i64).wrapping_neg(): a float on underflow and for -0.
  const std::uint64_t neg_bits = ~significand + 1;
  const auto neg = static_cast<std::int64_t>(neg_bits);
  if (neg >= 0) return JsonNumber{JsonNumber::Kind::F64, 0, 0, -static_cast<double>(significand)};
  return JsonNumber{JsonNumber::Kind::I64, 0, neg, 0};
}

SerdeResult<double> JsonReader::parse_decimal(bool positive, std::uint64_t significand, std::int32_t exponent_before) {
  eat();  // '.'
  std::int32_t exponent_after = 0;
  while (is_digit(peek())) {
    const auto digit = static_cast<std::uint64_t>(peek() - '0');
    if (significand >= kU64Max / 10 && (significand > kU64Max / 10 || digit > kU64Max % 10))
      return parse_decimal_overflow(positive, significand, exponent_before + exponent_after);
    eat();
    significand = significand * 10 + digit;
    exponent_after -= 1;
  }
  if (exponent_after == 0) return peek_error(peek() < 0 ? kEofValue : kInvalidNumber);
  const std::int32_t exponent = exponent_before + exponent_after;
  if (peek() == 'e' || peek() == 'E') return parse_exponent(positive, significand, exponent);
  return f64_from_parts(positive, significand, exponent);
}

SerdeResult<double> JsonReader::parse_exponent(bool positive, std::uint64_t significand, std::int32_t starting_exp) {
  eat();  // 'e' or 'E'
  bool positive_exp = true;
  if (peek() == '+') {
    eat();
  } else if (peek() == '-') {
    eat();
    positive_exp = false;
  }
  if (index_ >= s_.size()) return error(kEofValue);
  const int next = static_cast<unsigned char>(s_[index_++]);
  if (!is_digit(next)) return error(kInvalidNumber);
  std::int32_t exp = next - '0';
  while (is_digit(peek())) {
    const std::int32_t digit = peek() - '0';
    eat();
    if (exp >= kI32Max / 10 && (exp > kI32Max / 10 || digit > kI32Max % 10))
      return parse_exponent_overflow(positive, significand == 0, positive_exp);
    exp = exp * 10 + digit;
  }
  // saturating_add / saturating_sub on i32
  const std::int64_t wide = positive_exp ? std::int64_t{starting_exp} + exp : std::int64_t{starting_exp} - exp;
  const std::int32_t final_exp = wide > kI32Max ? kI32Max : wide < -kI32Max - 1 ? -kI32Max - 1 : static_cast<std::int32_t>(wide);
  return f64_from_parts(positive, significand, final_exp);
}

SerdeResult<double> JsonReader::f64_from_parts(bool positive, std::uint64_t significand, std::int32_t exponent) {
  double f = static_cast<double>(significand);
  for (;;) {
    const std::uint32_t magnitude = exponent < 0 ? 0u - static_cast<std::uint32_t>(exponent) : static_cast<std::uint32_t>(exponent);
    if (magnitude < kPow10.size()) {
      if (exponent >= 0) {
        f *= kPow10[magnitude];
        if (std::isinf(f)) return error(kOutOfRange);
      } else {
        f /= kPow10[magnitude];
      }
      break;
    }
    if (f == 0.0) break;
    if (exponent >= 0) return error(kOutOfRange);
    f /= 1e308;
    exponent += 308;
  }
  return positive ? f : -f;
}

SerdeResult<double> JsonReader::parse_long_integer(bool positive, std::uint64_t significand) {
  std::int32_t exponent = 0;
  for (;;) {
    const int c = peek();
    if (is_digit(c)) {
      eat();
      exponent += 1;  // serde_json ignores the overflow of a gigabytes-long integer; the header is at most 1e8 bytes
    } else if (c == '.') {
      return parse_decimal(positive, significand, exponent);
    } else if (c == 'e' || c == 'E') {
      return parse_exponent(positive, significand, exponent);
    } else {
      return f64_from_parts(positive, significand, exponent);
    }
  }
}

SerdeResult<double> JsonReader::parse_decimal_overflow(bool positive, std::uint64_t significand, std::int32_t exponent) {
  while (is_digit(peek())) eat();  // digits past u64 are ignored
  if (peek() == 'e' || peek() == 'E') return parse_exponent(positive, significand, exponent);
  return f64_from_parts(positive, significand, exponent);
}

SerdeResult<double> JsonReader::parse_exponent_overflow(bool positive, bool zero_significand, bool positive_exp) {
  if (!zero_significand && positive_exp) return error(kOutOfRange);
  while (is_digit(peek())) eat();
  return positive ? 0.0 : -0.0;
}

SerdeResult<std::uint16_t> JsonReader::decode_hex_escape() {
  if (s_.size() - index_ < 4) {
    index_ = s_.size();
    return error(kEofString);
  }
  std::uint16_t v = 0;
  bool good = true;
  for (int k = 0; k < 4; ++k) {
    const int h = hex_value(static_cast<unsigned char>(s_[index_ + static_cast<std::size_t>(k)]));
    good = good && h >= 0;
    v = static_cast<std::uint16_t>((v << 4) | (h < 0 ? 0 : h));
  }
  index_ += 4;
  if (!good) return error(kInvalidEscape);
  return v;
}

SerdeStatus JsonReader::parse_escape(std::string& out) {
  if (index_ >= s_.size()) return error(kEofString);
  const char ch = s_[index_++];
  switch (ch) {
    case '"': out += '"'; return serde_ok();
    case '\\': out += '\\'; return serde_ok();
    case '/': out += '/'; return serde_ok();
    case 'b': out += '\b'; return serde_ok();
    case 'f': out += '\f'; return serde_ok();
    case 'n': out += '\n'; return serde_ok();
    case 'r': out += '\r'; return serde_ok();
    case 't': out += '\t'; return serde_ok();
    case 'u': break;
    default: return error(kInvalidEscape);
  }
  auto n = decode_hex_escape();
  if (!n) return n.error();
  const std::uint16_t n1 = n.value();
  if (n1 >= 0xDC00 && n1 <= 0xDFFF) return error(kLoneSurrogate);  // a trailing surrogate first
  if (n1 < 0xD800 || n1 > 0xDBFF) {
    append_utf8(out, n1);
    return serde_ok();
  }
  // A leading surrogate: "\uDC00".."\uDFFF" must follow.
  for (const char want : {'\\', 'u'}) {
    if (index_ >= s_.size()) return error(kEofString);
    const bool match = s_[index_] == want;
    ++index_;
    if (!match) return error(kHexEnd);
  }
  auto m = decode_hex_escape();
  if (!m) return m.error();
  const std::uint16_t n2 = m.value();
  if (n2 < 0xDC00 || n2 > 0xDFFF) return error(kLoneSurrogate);
  append_utf8(out, ((static_cast<std::uint32_t>(n1 - 0xD800) << 10) | static_cast<std::uint32_t>(n2 - 0xDC00)) + 0x10000);
  return serde_ok();
}

SerdeResult<std::string> JsonReader::parse_str() {
  std::string out;
  std::size_t start = index_;
  for (;;) {
    while (index_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[index_]);
      if (c == '"' || c == '\\' || c < 0x20) break;
      ++index_;
    }
    if (index_ == s_.size()) return error(kEofString);
    const char c = s_[index_];
    if (c == '"') {
      out.append(s_.substr(start, index_ - start));
      ++index_;
      return out;
    }
    if (c == '\\') {
      out.append(s_.substr(start, index_ - start));
      ++index_;
      if (auto e = parse_escape(out); !e) return e.error();
      start = index_;
      continue;
    }
    ++index_;
    return error(kControl);
  }
}

SerdeStatus JsonReader::parse_object_colon() {
  const int c = parse_whitespace();
  if (c == ':') {
    eat();
    return serde_ok();
  }
  return peek_error(c < 0 ? kEofObject : kExpectedColon);
}

SerdeStatus JsonReader::end_seq() {
  const int c = parse_whitespace();
  if (c == ']') {
    eat();
    return serde_ok();
  }
  if (c == ',') {
    eat();
    return peek_error(parse_whitespace() == ']' ? kTrailingComma : kTrailingChars);
  }
  return peek_error(c < 0 ? kEofList : kTrailingChars);
}

SerdeStatus JsonReader::end_map() {
  const int c = parse_whitespace();
  if (c == '}') {
    eat();
    return serde_ok();
  }
  return peek_error(c == ',' ? kTrailingComma : c < 0 ? kEofObject : kTrailingChars);
}

SerdeStatus JsonReader::end() {
  if (parse_whitespace() >= 0) return peek_error(kTrailingChars);
  return serde_ok();
}

SerdeResult<bool> JsonReader::has_next_key(bool& first) {
  const int c = parse_whitespace();
  if (c < 0) return peek_error(kEofObject);
  if (c == '}') return false;
  if (first) {
    first = false;
    if (c == '"') return true;
    return peek_error(kKeyString);
  }
  if (c != ',') return peek_error(kObjectCommaOrEnd);
  eat();
  const int d = parse_whitespace();
  if (d == '"') return true;
  if (d == '}') return peek_error(kTrailingComma);
  return peek_error(d < 0 ? kEofValue : kKeyString);
}

SerdeResult<bool> JsonReader::has_next_element(bool& first) {
  const int c = parse_whitespace();
  if (c < 0) return peek_error(kEofList);
  if (c == ']') return false;
  if (first) {
    first = false;
    return true;
  }
  if (c != ',') return peek_error(kListCommaOrEnd);
  eat();
  const int d = parse_whitespace();
  if (d == ']') return peek_error(kTrailingComma);
  if (d < 0) return peek_error(kEofValue);
  return true;
}

bool JsonReader::enter() {
  remaining_depth_ -= 1;
  return remaining_depth_ != 0;
}

SerdeStatus JsonReader::skip_seq() {
  bool first = true;
  for (;;) {
    auto more = has_next_element(first);
    if (!more) return more.error();
    if (!more.value()) return serde_ok();
    if (auto e = skip_any(); !e) return e;
  }
}

SerdeStatus JsonReader::skip_map() {
  bool first = true;
  for (;;) {
    auto more = has_next_key(first);
    if (!more) return more.error();
    if (!more.value()) return serde_ok();
    eat();  // '"'
    if (auto k = parse_str(); !k) return k.error();
    if (auto e = parse_object_colon(); !e) return e;
    if (auto e = skip_any(); !e) return e;
  }
}

SerdeStatus JsonReader::skip_any() {
  const int c = parse_whitespace();
  switch (c) {
    case -1: return peek_error(kEofValue);
    case 'n': eat(); return parse_ident("ull");
    case 't': eat(); return parse_ident("rue");
    case 'f': eat(); return parse_ident("alse");
    case '-': {
      eat();
      auto n = parse_any_number(false);
      if (!n) return n.error();
      return serde_ok();
    }
    case '"': {
      eat();
      auto s = parse_str();
      if (!s) return s.error();
      return serde_ok();
    }
    case '[':
    case '{': {
      if (!enter()) return peek_error(kRecursion);
      eat();
      const SerdeStatus inner = c == '[' ? skip_seq() : skip_map();
      leave();
      const SerdeStatus close = c == '[' ? end_seq() : end_map();
      if (!inner) return inner;
      return close;
    }
    default:
      if (is_digit(c)) {
        auto n = parse_any_number(true);
        if (!n) return n.error();
        return serde_ok();
      }
      return peek_error(kExpectedValue);
  }
}

SerdeError JsonReader::peek_invalid_type(std::string_view expected) {
  const int c = peek();
  SerdeError err;
  if (c == 'n' || c == 't' || c == 'f') {
    eat();
    const std::string_view rest = c == 'n' ? "ull" : c == 't' ? "rue" : "alse";
    if (auto e = parse_ident(rest); !e) return e.error();
    err = invalid_type(c == 'n' ? "null" : c == 't' ? "boolean `true`" : "boolean `false`", expected);
  } else if (c == '-' || is_digit(c)) {
    if (c == '-') eat();
    auto n = parse_any_number(c != '-');
    if (!n) return n.error();
    err = invalid_type(unexpected_number(n.value()), expected);
  } else if (c == '"') {
    eat();
    auto s = parse_str();
    if (!s) return s.error();
    err = invalid_type("string " + rust_str_debug(s.value()), expected);
  } else if (c == '[') {
    err = invalid_type("sequence", expected);
  } else if (c == '{') {
    err = invalid_type("map", expected);
  } else {
    err = peek_error(kExpectedValue);
  }
  return fix_position(std::move(err));
}

SerdeResult<JsonNumber> serde_parse_number(std::string_view text) {
  JsonReader r(text);
  const bool negative = r.peek() == '-';
  if (negative) r.eat();
  auto n = r.parse_any_number(!negative);
  if (!n) return n.error();
  if (r.peek() >= 0) return r.peek_error(kInvalidNumber);
  return n;
}

}  // namespace safespec::reference
