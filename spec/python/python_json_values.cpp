// py_equal and py_int of spec/python/python_json.hpp: Python's == and int() on the
// values json.loads produces (comfy-quant-markers.md §6 item 11, G19, G20).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>

#include "spec/limits.hpp"
#include "spec/python/python_json.hpp"

namespace safespec::py {

namespace {


// First code point of each run of ten characters with a Unicode decimal
// value 0..9 (Python's str.isdecimal, Unicode 14.0.0 as in CPython 3.11).
constexpr char32_t kDecimalZeros[] = {
    0x30,    0x660,   0x6f0,   0x7c0,   0x966,   0x9e6,   0xa66,   0xae6,   0xb66,   0xbe6,   0xc66,
    0xce6,   0xd66,   0xde6,   0xe50,   0xed0,   0xf20,   0x1040,  0x1090,  0x17e0,  0x1810,  0x1946,
    0x19d0,  0x1a80,  0x1a90,  0x1b50,  0x1bb0,  0x1c40,  0x1c50,  0xa620,  0xa8d0,  0xa900,  0xa9d0,
    0xa9f0,  0xaa50,  0xabf0,  0xff10,  0x104a0, 0x10d30, 0x11066, 0x110f0, 0x11136, 0x111d0, 0x112f0,
    0x11450, 0x114d0, 0x11650, 0x116c0, 0x11730, 0x118e0, 0x11950, 0x11c50, 0x11d50, 0x11da0, 0x16a60,
    0x16ac0, 0x16b50, 0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6, 0x1e140, 0x1e2f0, 0x1e950, 0x1fbf0};

// Non-ASCII characters for which str.isspace() is True.
constexpr char32_t kSpaces[] = {0x85,   0xa0,   0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
                                0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000};

// _PyUnicode_TransformDecimalAndSpaceToASCII for one non-ASCII code point:
// ' ' for whitespace, the digit for a decimal, '?' otherwise.
char to_ascii(char32_t cp) {
  if (std::find(std::begin(kSpaces), std::end(kSpaces), cp) != std::end(kSpaces)) return ' ';
  const auto* run = std::upper_bound(std::begin(kDecimalZeros), std::end(kDecimalZeros), cp);
  if (run != std::begin(kDecimalZeros) && cp - run[-1] < 10) return static_cast<char>('0' + (cp - run[-1]));
  return '?';
}

// The str's code points, each mapped as int() maps it before parsing. The
// str is UTF-8 with surrogates in three-byte form; a byte that starts no
// sequence becomes '?'.
std::string transform(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    const std::size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    char32_t cp = len == 1 ? 0xfffd : c & (0x7f >> len);
    std::size_t k = 1;
    for (; k < len && i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80; ++k)
      cp = cp << 6 | (static_cast<unsigned char>(s[i + k]) & 0x3f);
    out += k == len ? to_ascii(cp) : '?';
    i += k;
  }
  return out;
}

bool ascii_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }  // Py_ISSPACE
bool ascii_digit(char c) { return c >= '0' && c <= '9'; }

Value int_value(bool negative, std::string_view digits) {
  digits.remove_prefix(std::min(digits.find_first_not_of('0'), digits.size()));
  std::uint64_t m = 0;
  if (digits.empty() || std::from_chars(digits.data(), digits.data() + digits.size(), m).ec == std::errc{})
    return Int{negative && m != 0, m};
  return BigInt{(negative ? "-" : "") + std::string(digits)};
}

std::string exact_integer(double x) {  // the digits of an integral, finite double
  char buf[400];
  const auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed, 0);
  std::string s(buf, res.ptr);
  return s == "-0" ? "0" : s;
}

// The canonical decimal of an integral number (bool, Int, BigInt, or a double
// with an integral value); nullopt for other values and other floats.
std::optional<std::string> integral_decimal(const Value& v) {
  if (const auto* b = std::get_if<bool>(&v.data)) return *b ? "1" : "0";
  if (const auto* i = std::get_if<Int>(&v.data)) return (i->negative && i->magnitude != 0 ? "-" : "") + std::to_string(i->magnitude);
  if (const auto* big = std::get_if<BigInt>(&v.data)) return big->decimal;
  if (const auto* d = std::get_if<double>(&v.data); d && std::isfinite(*d) && std::trunc(*d) == *d) return exact_integer(*d);
  return std::nullopt;
}

bool is_number(const Value& v) {
  return std::holds_alternative<bool>(v.data) || std::holds_alternative<Int>(v.data) ||
         std::holds_alternative<BigInt>(v.data) || std::holds_alternative<double>(v.data);
}

bool equal(const Value& a, const Value& b, bool nested);

template <class Seq>
bool equal_items(const Seq& a, const Seq& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Value& x, const Value& y) { return equal(x, y, true); });
}

const char* type_name(const Value& v) {
  constexpr const char* kNames[] = {"NoneType", "bool", "int", "float", "str", "list", "tuple", "dict", "int"};
  return kNames[v.data.index()];
}

// Inside a container Python compares with `is` first, and every NaN of
// json.loads is the one object json.decoder.NaN: there NaN equals NaN.
bool equal(const Value& a, const Value& b, bool nested) {
  if (is_number(a) && is_number(b)) {
    const auto* x = std::get_if<double>(&a.data);
    const auto* y = std::get_if<double>(&b.data);
    if (x && y) return *x == *y || (nested && std::isnan(*x) && std::isnan(*y));
    const auto dx = integral_decimal(a), dy = integral_decimal(b);
    return dx && dy && *dx == *dy;
  }
  if (a.data.index() != b.data.index()) return false;
  if (std::holds_alternative<None>(a.data)) return true;
  if (const auto* s = std::get_if<std::string>(&a.data)) return *s == std::get<std::string>(b.data);
  if (const auto* l = std::get_if<List>(&a.data)) return equal_items(l->items, std::get<List>(b.data).items);
  if (const auto* t = std::get_if<Tuple>(&a.data)) return equal_items(t->items, std::get<Tuple>(b.data).items);
  const auto& da = std::get<Dict>(a.data).items;
  const auto& db = std::get<Dict>(b.data).items;
  if (da.size() != db.size()) return false;
  return std::all_of(da.begin(), da.end(), [&](const DictEntry& e) {
    const auto it = std::find_if(db.begin(), db.end(), [&](const DictEntry& f) { return py_equal(e.key, f.key); });
    return it != db.end() && equal(e.value, it->value, true);
  });
}

}  // namespace

bool py_equal(const Value& a, const Value& b) { return equal(a, b, false); }

Result<Value, PyException> py_int(const Value& x) {
  if (const auto* b = std::get_if<bool>(&x.data)) return Value(Int{false, *b ? 1u : 0u});
  if (std::holds_alternative<Int>(x.data) || std::holds_alternative<BigInt>(x.data)) return x;
  if (const auto* d = std::get_if<double>(&x.data)) {
    if (std::isnan(*d)) return PyException{"ValueError", "cannot convert float NaN to integer"};
    if (std::isinf(*d)) return PyException{"OverflowError", "cannot convert float infinity to integer"};
    const std::string digits = exact_integer(std::trunc(*d));
    return digits[0] == '-' ? int_value(true, std::string_view(digits).substr(1)) : int_value(false, digits);
  }
  const auto* s = std::get_if<std::string>(&x.data);
  if (s == nullptr)
    return PyException{"TypeError", std::string("int() argument must be a string, a bytes-like object or a real number, not '") +
                                        type_name(x) + "'"};
  // PyLong_FromString(transformed, base 10), which must consume everything.
  const std::string t = transform(*s);
  std::size_t i = 0;
  while (i < t.size() && ascii_space(t[i])) ++i;
  const bool negative = i < t.size() && t[i] == '-';
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  std::string digits;
  bool ok = i < t.size() && ascii_digit(t[i]);
  for (; ok && i < t.size() && (ascii_digit(t[i]) || t[i] == '_'); ++i) {
    if (t[i] != '_') digits += t[i];
    else if (i + 1 >= t.size() || !ascii_digit(t[i + 1])) ok = false;  // "1__0", "1_"
  }
  if (ok && digits.size() > kPythonIntMaxStrDigits)
    return PyException{"ValueError", "Exceeds the limit (4300 digits) for integer string conversion: value has " +
                                         std::to_string(digits.size()) +
                                         " digits; use sys.set_int_max_str_digits() to increase the limit"};
  while (ok && i < t.size() && ascii_space(t[i])) ++i;
  if (ok && i == t.size()) return int_value(negative, digits);
  // "%.200R": the repr, cut to 200 characters.
  const std::string r = repr_str(*s);
  std::size_t cut = 0, chars = 0;
  while (cut < r.size() && chars < 200) {
    ++chars;
    for (++cut; cut < r.size() && (static_cast<unsigned char>(r[cut]) & 0xc0) == 0x80;) ++cut;
  }
  return PyException{"ValueError", "invalid literal for int() with base 10: " + r.substr(0, cut)};
}

}  // namespace safespec::py
