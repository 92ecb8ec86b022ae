#include "spec/reference/serde_json_reader.hpp"

#include "spec/reference/rust_text.hpp"
#include "spec/utf8.hpp"

namespace safespec::reference {

namespace {

// serde_json's ErrorCode texts.
constexpr std::string_view kEofList = "EOF while parsing a list";
constexpr std::string_view kEofObject = "EOF while parsing an object";
constexpr std::string_view kEofString = "EOF while parsing a string";
constexpr std::string_view kExpectedColon = "expected `:`";
constexpr std::string_view kListCommaOrEnd = "expected `,` or `]`";
constexpr std::string_view kObjectCommaOrEnd = "expected `,` or `}`";
constexpr std::string_view kExpectedIdent = "expected ident";
constexpr std::string_view kExpectedValue = "expected value";
constexpr std::string_view kInvalidEscape = "invalid escape";
constexpr std::string_view kControl = "control character (\\u0000-\\u001F) found while parsing a string";
constexpr std::string_view kKeyString = "key must be a string";
constexpr std::string_view kLoneSurrogate = "lone leading surrogate in hex escape";
constexpr std::string_view kTrailingComma = "trailing comma";
constexpr std::string_view kTrailingChars = "trailing characters";
constexpr std::string_view kHexEnd = "unexpected end of hex escape";
constexpr std::string_view kRecursion = "recursion limit exceeded";

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

}  // namespace safespec::reference
