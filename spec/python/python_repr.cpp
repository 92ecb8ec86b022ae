#include "spec/python/python_repr.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <system_error>
#include <type_traits>

namespace safespec::py {

namespace {

constexpr const char* kHex = "0123456789abcdef";

void append_hex(std::string& out, std::uint32_t v, int digits) {
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out += kHex[(v >> shift) & 15];
}

bool is_continuation(unsigned char c) { return (c & 0xc0) == 0x80; }

// Decodes the sequence at text[i]: well-formed UTF-8, or a surrogate in its
// three-byte form (WTF-8). Returns its length, or 0 if text[i] starts none.
std::size_t decode(std::string_view text, std::size_t i, char32_t& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const std::size_t left = text.size() - i;
  const unsigned char c0 = b(0);
  if (c0 < 0x80) {
    cp = c0;
    return 1;
  }
  if (c0 >= 0xc2 && c0 <= 0xdf) {
    if (left < 2 || !is_continuation(b(1))) return 0;
    cp = (char32_t{c0} & 0x1f) << 6 | (b(1) & 0x3f);
    return 2;
  }
  if (c0 >= 0xe0 && c0 <= 0xef) {
    if (left < 3 || !is_continuation(b(1)) || !is_continuation(b(2))) return 0;
    if (c0 == 0xe0 && b(1) < 0xa0) return 0;  // overlong
    cp = (char32_t{c0} & 0x0f) << 12 | (char32_t{b(1)} & 0x3f) << 6 | (b(2) & 0x3f);
    return 3;
  }
  if (c0 >= 0xf0 && c0 <= 0xf4) {
    if (left < 4 || !is_continuation(b(1)) || !is_continuation(b(2)) || !is_continuation(b(3))) return 0;
    if ((c0 == 0xf0 && b(1) < 0x90) || (c0 == 0xf4 && b(1) > 0x8f)) return 0;  // overlong, > U+10FFFF
    cp = (char32_t{c0} & 0x07) << 18 | (char32_t{b(1)} & 0x3f) << 12 | (char32_t{b(2)} & 0x3f) << 6 |
         (b(3) & 0x3f);
    return 4;
  }
  return 0;
}

void append_escaped(std::string& out, char32_t cp) {
  if (cp <= 0xff) {
    out += "\\x";
    append_hex(out, cp, 2);
  } else if (cp <= 0xffff) {
    out += "\\u";
    append_hex(out, cp, 4);
  } else {
    out += "\\U";
    append_hex(out, cp, 8);
  }
}

template <typename Items>
void append_items(std::string& out, const Items& items) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    if constexpr (std::is_same_v<typename Items::value_type, DictEntry>) {
      out += repr(items[i].key);
      out += ": ";
      out += repr(items[i].value);
    } else {
      out += repr(items[i]);
    }
  }
}

}  // namespace

std::string repr_str(std::string_view utf8) {
  const bool has_single = utf8.find('\'') != std::string_view::npos;
  const bool has_double = utf8.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out;
  out.reserve(utf8.size() + 2);
  out += quote;
  for (std::size_t i = 0; i < utf8.size();) {
    char32_t cp = 0;
    const std::size_t len = decode(utf8, i, cp);
    if (len == 0) {  // not UTF-8: the surrogateescape character of the byte
      append_escaped(out, 0xdc00 + static_cast<unsigned char>(utf8[i]));
      ++i;
      continue;
    }
    if (cp == static_cast<unsigned char>(quote) || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp < 0x20 || cp == 0x7f) {
      append_escaped(out, cp);
    } else if (cp < 0x7f || is_printable(cp)) {
      out.append(utf8.substr(i, len));
    } else {
      append_escaped(out, cp);
    }
    i += len;
  }
  out += quote;
  return out;
}

std::string repr_float(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  // Shortest round-trip digits in scientific form: [-]d[.ddd]e(+|-)dd.
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  const std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  const std::size_t e_pos = sci.find('e');
  std::string_view mantissa = sci.substr(0, e_pos);
  std::string out;
  if (!mantissa.empty() && mantissa.front() == '-') {
    out += '-';
    mantissa.remove_prefix(1);
  }
  std::string digits;
  for (const char c : mantissa)
    if (c != '.') digits += c;
  int exp = 0;
  const std::string_view exp_text = sci.substr(e_pos + 1);
  std::from_chars(exp_text.data() + (exp_text.front() == '+' ? 1 : 0), exp_text.data() + exp_text.size(), exp);
  const auto n = static_cast<int>(digits.size());
  if (exp < -4 || exp >= 16) {
    out += digits[0];
    if (n > 1) {
      out += '.';
      out.append(digits, 1);
    }
    out += exp < 0 ? "e-" : "e+";
    const int mag = std::abs(exp);
    if (mag < 10) out += '0';
    out += std::to_string(mag);
  } else if (exp >= 0) {
    if (n > exp + 1) {
      out.append(digits, 0, static_cast<std::size_t>(exp + 1));
      out += '.';
      out.append(digits, static_cast<std::size_t>(exp + 1));
    } else {
      out += digits;
      out.append(static_cast<std::size_t>(exp + 1 - n), '0');
      out += ".0";
    }
  } else {
    out += "0.";
    out.append(static_cast<std::size_t>(-exp - 1), '0');
    out += digits;
  }
  return out;
}

std::string format_fixed(double x, int precision) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  precision = std::max(precision, 0);
  std::string buf(static_cast<std::size_t>(precision) + 330, '\0');
  const auto res = std::to_chars(buf.data(), buf.data() + buf.size(), x, std::chars_format::fixed, precision);
  buf.resize(res.ec == std::errc{} ? static_cast<std::size_t>(res.ptr - buf.data()) : 0);
  return buf;
}

std::string repr_int(std::int64_t v) { return std::to_string(v); }
std::string repr_uint(std::uint64_t v) { return std::to_string(v); }

std::string repr(const Value& v) {
  struct Visitor {
    std::string operator()(const None&) const { return "None"; }
    std::string operator()(bool b) const { return repr_bool(b); }
    std::string operator()(const Int& i) const { return (i.negative ? "-" : "") + std::to_string(i.magnitude); }
    std::string operator()(const BigInt& b) const { return b.decimal; }
    std::string operator()(double d) const { return repr_float(d); }
    std::string operator()(const std::string& s) const { return repr_str(s); }
    std::string operator()(const List& l) const {
      std::string out = "[";
      append_items(out, l.items);
      return out + "]";
    }
    std::string operator()(const Tuple& t) const {
      std::string out = "(";
      append_items(out, t.items);
      return out + (t.items.size() == 1 ? ",)" : ")");
    }
    std::string operator()(const Dict& d) const {
      std::string out = "{";
      append_items(out, d.items);
      return out + "}";
    }
  };
  return std::visit(Visitor{}, v.data);
}

std::string str(const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v.data)) return *s;
  return repr(v);
}

Value tuple(std::initializer_list<Value> items) { return Tuple{std::vector<Value>(items)}; }
Value list(std::initializer_list<Value> items) { return List{std::vector<Value>(items)}; }
Value dict(std::initializer_list<DictEntry> entries) { return Dict{std::vector<DictEntry>(entries)}; }

Value str_list(const std::vector<std::string>& items) {
  List l;
  l.items.reserve(items.size());
  for (const auto& s : items) l.items.emplace_back(s);
  return l;
}

std::vector<std::string> sorted(std::vector<std::string> items, std::size_t limit) {
  std::sort(items.begin(), items.end());
  if (items.size() > limit) items.resize(limit);
  return items;
}

Value sorted_list(std::vector<std::string> items, std::size_t limit) {
  return str_list(sorted(std::move(items), limit));
}

}  // namespace safespec::py
