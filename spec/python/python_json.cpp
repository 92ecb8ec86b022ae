#include "spec/python/python_json.hpp"

#include "spec/name_index.hpp"
#include "spec/limits.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace safespec::py {

namespace {


void append_utf8(std::string& out, char32_t cp) {  // surrogates take the 3-byte form
  if (cp < 0x80) return out.push_back(static_cast<char>(cp));
  const int len = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  out += static_cast<char>(((0xf00 >> len) & 0xff) | (cp >> (6 * (len - 1))));
  for (int k = len - 2; k >= 0; --k) out += static_cast<char>(0x80 | ((cp >> (6 * k)) & 0x3f));
}

// The decoded str, with the byte offset of each code point (and of the end)
// for the error messages. A pure-ASCII UTF-8 text (almost every header) keeps
// no offsets, code point i being byte base + i: on a header of megabytes they
// were two thirds of the decode's memory, and its time went to page faults.
struct Decoded {
  std::u32string text;
  std::vector<std::size_t> offsets;  // empty: code point i is at byte base + i
  std::size_t base = 0;
  void put(char32_t cp, std::size_t at) {
    text += cp;
    offsets.push_back(at);
  }
  std::size_t offset(std::size_t pos) const { return offsets.empty() ? base + pos : offsets[pos]; }
};

JsonLoadError unicode_error(std::string_view codec, std::string_view bytes, std::size_t base, std::size_t start,
                            std::size_t end, std::string_view reason) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string m = "'" + std::string(codec) + "' codec can't decode ";
  if (end == start + 1) {
    const auto b = static_cast<unsigned char>(bytes[base + start]);
    m += "byte 0x";
    m += kHex[b >> 4];
    m += kHex[b & 15];
    m += " in position " + std::to_string(start);
  } else {
    m += "bytes in position " + std::to_string(start) + "-" + std::to_string(end - 1);
  }
  return {JsonErrorKind::UnicodeDecodeError, base + start, 0, 0, 0, m + ": " + std::string(reason)};
}

bool cont(unsigned char c) { return (c & 0xc0) == 0x80; }

// bytes[base:].decode("utf-8", "surrogatepass"); positions are relative to base.
Result<Decoded, JsonLoadError> decode_utf8(std::string_view all, std::size_t base) {
  const std::string_view b = all.substr(base);
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(b[k]); };
  Decoded d;
  const std::size_t n = b.size();
  if (std::all_of(b.begin(), b.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    // Widened in place: assign() from char iterators built a temporary copy.
    d.text.resize(n);
    for (std::size_t i = 0; i < n; ++i) d.text[i] = static_cast<char32_t>(b[i]);
    d.base = base;
    return d;
  }
  d.text.reserve(n);  // at most one code point a byte
  d.offsets.reserve(n + 1);
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = at(i);
    const std::size_t left = n - i;
    std::size_t len = 0, bad = 0;  // a sequence's length, or the error's length (bad)
    const char* why = "invalid continuation byte";
    if (c < 0x80) {
      len = 1;
    } else if (c < 0xc2 || c > 0xf4) {
      bad = 1, why = "invalid start byte";
    } else if (c < 0xe0) {
      if (left < 2) bad = left, why = "unexpected end of data";
      else if (!cont(at(i + 1))) bad = 1;
      else len = 2;
    } else if (c < 0xf0) {
      const auto bad1 = [&] { return !cont(at(i + 1)) || (at(i + 1) < 0xa0 ? c == 0xe0 : c == 0xed); };
      if (left < 2) bad = left, why = "unexpected end of data";
      else if (bad1()) bad = 1;
      else if (left < 3) bad = left, why = "unexpected end of data";
      else if (!cont(at(i + 2))) bad = 2;
      else len = 3;
    } else {
      const auto bad1 = [&] { return !cont(at(i + 1)) || (at(i + 1) < 0x90 ? c == 0xf0 : c == 0xf4); };
      if (left < 2) bad = left, why = "unexpected end of data";
      else if (bad1()) bad = 1;
      else if (left < 3) bad = left, why = "unexpected end of data";
      else if (!cont(at(i + 2))) bad = 2;
      else if (left < 4) bad = left, why = "unexpected end of data";
      else if (!cont(at(i + 3))) bad = 3;
      else len = 4;
    }
    if (bad != 0) {  // surrogatepass: a three-byte surrogate is taken as is
      if (left >= 3 && c == 0xed && at(i + 1) >= 0xa0 && cont(at(i + 1)) && cont(at(i + 2))) {
        len = 3;
      } else {
        return unicode_error("utf-8", all, base, i, i + bad, why);
      }
    }
    char32_t cp = len == 1 ? c : c & (0x7f >> len);
    for (std::size_t k = 1; k < len; ++k) cp = cp << 6 | (at(i + k) & 0x3f);
    d.put(cp, base + i);
    i += len;
  }
  d.offsets.push_back(all.size());
  return d;
}

// UTF-16 or UTF-32 from byte `from` on (after a BOM), with surrogatepass:
// lone surrogates pass, UTF-16 pairs are joined, UTF-32 surrogates stay.
Result<Decoded, JsonLoadError> decode_wide(std::string_view b, std::size_t from, std::size_t width, bool big) {
  const std::string codec = std::string(width == 2 ? "utf-16" : "utf-32") + (big ? "-be" : "-le");
  const auto unit = [&](std::size_t i) {
    char32_t v = 0;
    for (std::size_t k = 0; k < width; ++k)
      v |= char32_t{static_cast<unsigned char>(b[i + (big ? width - 1 - k : k)])} << (8 * k);
    return v;
  };
  Decoded d;
  std::size_t i = from;
  for (; i + width <= b.size(); i += width) {
    char32_t cp = unit(i);
    if (width == 4 && cp > 0x10ffff) return unicode_error(codec, b, 0, i, i + 4, "code point not in range(0x110000)");
    if (width == 2 && cp >= 0xd800 && cp < 0xdc00 && i + 4 <= b.size()) {
      const char32_t lo = unit(i + 2);
      if (lo >= 0xdc00 && lo < 0xe000) {
        d.put(0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00), i);
        i += 2;
        continue;
      }
    }
    d.put(cp, i);
  }
  if (i != b.size()) return unicode_error(codec, b, 0, i, b.size(), "truncated data");
  d.offsets.push_back(b.size());
  return d;
}

// json.detect_encoding(b), then b.decode(encoding, "surrogatepass").
Result<Decoded, JsonLoadError> decode_bytes(std::string_view b) {
  const auto u = [&](std::size_t k) { return static_cast<unsigned char>(b[k]); };
  const auto starts = [&](std::string_view p) { return b.substr(0, p.size()) == p; };
  using namespace std::string_view_literals;
  if (starts("\xff\xfe\0\0"sv)) return decode_wide(b, 4, 4, false);
  if (starts("\0\0\xfe\xff"sv)) return decode_wide(b, 4, 4, true);
  if (starts("\xff\xfe"sv)) return decode_wide(b, 2, 2, false);
  if (starts("\xfe\xff"sv)) return decode_wide(b, 2, 2, true);
  if (starts("\xef\xbb\xbf"sv)) return decode_utf8(b, 3);
  if (b.size() >= 4) {
    if (u(0) == 0) return decode_wide(b, 0, u(1) != 0 ? 2 : 4, true);
    if (u(1) == 0) return decode_wide(b, 0, u(2) != 0 || u(3) != 0 ? 2 : 4, false);
  } else if (b.size() == 2) {
    if (u(0) == 0) return decode_wide(b, 0, 2, true);
    if (u(1) == 0) return decode_wide(b, 0, 2, false);
  }
  return decode_utf8(b, 0);
}

bool is_digit(char32_t c) { return c >= '0' && c <= '9'; }

// An int from decimal digits (leading zeros allowed): Int if it fits, else BigInt.
Value int_from_digits(bool negative, std::string_view digits) {
  digits.remove_prefix(std::min(digits.find_first_not_of('0'), digits.size()));
  std::uint64_t m = 0;
  if (std::from_chars(digits.data(), digits.data() + digits.size(), m).ec == std::errc{} || digits.empty())
    return Int{negative && m != 0, m};
  return BigInt{(negative ? "-" : "") + std::string(digits)};
}

std::string too_many_digits(std::size_t digits) {
  return "Exceeds the limit (4300 digits) for integer string conversion: value has " + std::to_string(digits) +
         " digits; use sys.set_int_max_str_digits() to increase the limit";
}

// The C scanner of CPython's Modules/_json.c (scan_once_unicode and friends).
class Scanner {
 public:
  Scanner(const Decoded& d, std::size_t max_depth) : s_(d.text), d_(d), max_depth_(max_depth) {}

  std::optional<JsonLoadError> error;

  std::optional<Value> document() {
    const std::size_t start = skip_ws(0);
    std::size_t end = 0;
    auto v = scan(start, end, 0);
    if (!v) return std::nullopt;
    end = skip_ws(end);
    if (end != s_.size()) return fail("Extra data", end);
    return v;
  }

 private:
  const std::u32string& s_;
  const Decoded& d_;
  std::size_t max_depth_;

  std::size_t skip_ws(std::size_t i) const {
    while (i < s_.size() && (s_[i] == ' ' || s_[i] == '\t' || s_[i] == '\n' || s_[i] == '\r')) ++i;
    return i;
  }
  bool at(std::size_t i, char32_t c) const { return i < s_.size() && s_[i] == c; }

  std::nullopt_t fail(std::string_view msg, std::size_t pos) {  // JSONDecodeError(msg, doc, pos)
    std::size_t lineno = 1, line_start = 0;
    for (std::size_t i = 0; i < pos; ++i)
      if (s_[i] == '\n') ++lineno, line_start = i + 1;
    const std::size_t colno = pos - line_start + 1;
    error = JsonLoadError{JsonErrorKind::JSONDecodeError, d_.offset(pos), pos, lineno, colno,
                          std::string(msg) + ": line " + std::to_string(lineno) + " column " + std::to_string(colno) +
                              " (char " + std::to_string(pos) + ")"};
    return std::nullopt;
  }
  std::nullopt_t raise(JsonErrorKind kind, std::size_t pos, std::string msg) {
    error = JsonLoadError{kind, d_.offset(pos), 0, 0, 0, std::move(msg)};
    return std::nullopt;
  }

  // The recursive path keeps its frame small (containers nest up to max_depth
  // deep); the leaves are scanned by other functions.
  std::optional<Value> scan(std::size_t idx, std::size_t& next, std::size_t depth) {
    if (idx >= s_.size()) return fail("Expecting value", idx);
    const char32_t c = s_[idx];
    if (c == '"') return scan_string(idx + 1, next);
    if (c != '{' && c != '[') return scan_leaf(idx, next);
    if (depth + 1 > max_depth_) return too_deep(idx);
    return c == '{' ? scan_object(idx + 1, next, depth + 1) : scan_array(idx + 1, next, depth + 1);
  }

  std::nullopt_t too_deep(std::size_t idx) {
    return raise(JsonErrorKind::RecursionError, idx,
                 std::string("maximum recursion depth exceeded while decoding a JSON ") +
                     (s_[idx] == '{' ? "object" : "array") + " from a unicode string");
  }

  // null, true, false, NaN, Infinity, -Infinity, or else a number.
  std::optional<Value> scan_leaf(std::size_t idx, std::size_t& next) {
    static constexpr std::pair<std::u32string_view, int> kWords[] = {
        {U"null", 0}, {U"true", 1}, {U"false", 2}, {U"NaN", 3}, {U"Infinity", 4}, {U"-Infinity", 5}};
    for (const auto& [w, k] : kWords) {
      if (std::u32string_view(s_).substr(idx, w.size()) != w) continue;
      next = idx + w.size();
      const Value values[] = {None{}, true, false, std::nan(""), HUGE_VAL, -HUGE_VAL};
      return values[k];
    }
    return scan_number(idx, next);
  }

  std::optional<Value> scan_number(std::size_t start, std::size_t& next) {
    std::size_t i = start;
    const bool negative = at(i, '-');
    if (negative) ++i;
    if (i >= s_.size() || !is_digit(s_[i])) return fail("Expecting value", start);
    if (s_[i++] != '0')
      while (i < s_.size() && is_digit(s_[i])) ++i;
    const std::size_t int_end = i;
    bool is_float = false;
    if (at(i, '.') && i + 1 < s_.size() && is_digit(s_[i + 1])) {
      is_float = true;
      for (i += 2; i < s_.size() && is_digit(s_[i]);) ++i;
    }
    if (i + 1 < s_.size() && (s_[i] == 'e' || s_[i] == 'E')) {
      std::size_t j = i + 1;
      if (j + 1 < s_.size() && (s_[j] == '-' || s_[j] == '+')) ++j;
      const std::size_t digits_start = j;
      while (j < s_.size() && is_digit(s_[j])) ++j;
      if (j > digits_start) is_float = true, i = j;
    }
    next = i;
    std::string text(s_.begin() + static_cast<std::ptrdiff_t>(start), s_.begin() + static_cast<std::ptrdiff_t>(i));
    if (!is_float) {
      const std::size_t digits = int_end - start - (negative ? 1 : 0);
      if (digits > kPythonIntMaxStrDigits) return raise(JsonErrorKind::ValueError, start, too_many_digits(digits));
      return int_from_digits(negative, std::string_view(text).substr(negative ? 1 : 0));
    }
    double x = 0;
    const auto res = std::from_chars(text.data() + (negative ? 1 : 0), text.data() + text.size(), x);
    if (res.ec == std::errc::result_out_of_range) {  // float(): overflow is inf, underflow 0.0
      const std::string_view body = std::string_view(text).substr(negative ? 1 : 0);
      const std::size_t e = body.find_first_of("eE");
      const std::string_view mant = body.substr(0, e);
      const std::size_t dot = std::min(mant.find('.'), mant.size()), p = mant.find_first_of("123456789");
      long long exp = 0;
      if (e != std::string_view::npos) {
        for (const char c : body.substr(e + 1))
          if (is_digit(static_cast<unsigned char>(c))) exp = std::min(exp * 10 + (c - '0'), 1'000'000'000'000LL);
        if (body[e + 1] == '-') exp = -exp;
      }
      const long long lead = (p < dot ? static_cast<long long>(dot - 1 - p) : -static_cast<long long>(p - dot)) + exp;
      x = p != std::string_view::npos && lead >= 0 ? HUGE_VAL : 0.0;
    }
    return negative ? -x : x;
  }

  std::optional<Value> scan_string(std::size_t end, std::size_t& next) {
    const std::size_t begin = end - 1, len = s_.size();
    std::string out;
    while (true) {
      std::size_t i = end;
      for (; i < len && s_[i] != '"' && s_[i] != '\\'; ++i)
        if (s_[i] <= 0x1f) return fail("Invalid control character at", i);
      for (std::size_t k = end; k < i; ++k) append_utf8(out, s_[k]);
      if (i < len && s_[i] == '"') {
        next = i + 1;
        return Value(std::move(out));
      }
      if (i + 1 >= len) return fail("Unterminated string starting at", begin);
      std::size_t n = i + 1;  // after the backslash
      char32_t c = s_[n];
      if (c != 'u') {
        end = n + 1;
        switch (c) {
          case '"': case '\\': case '/': break;
          case 'b': c = '\b'; break;
          case 'f': c = '\f'; break;
          case 'n': c = '\n'; break;
          case 'r': c = '\r'; break;
          case 't': c = '\t'; break;
          default: return fail("Invalid \\escape", end - 2);
        }
      } else {
        end = n + 5;
        if (end >= len) return fail("Invalid \\uXXXX escape", n);
        const auto hex4 = [&](std::size_t from, char32_t& v) {
          v = 0;
          for (std::size_t k = from; k < from + 4; ++k) {
            const char32_t h = s_[k];
            const int dv = is_digit(h) ? int(h - '0') : (h | 0x20) >= 'a' && (h | 0x20) <= 'f' ? int((h | 0x20) - 'a' + 10) : -1;
            if (dv < 0) return false;
            v = v << 4 | static_cast<char32_t>(dv);
          }
          return true;
        };
        if (!hex4(n + 1, c)) return fail("Invalid \\uXXXX escape", end - 5);
        if (c >= 0xd800 && c < 0xdc00 && end + 6 < len && s_[end] == '\\' && s_[end + 1] == 'u') {
          char32_t c2 = 0;
          if (!hex4(end + 2, c2)) return fail("Invalid \\uXXXX escape", end + 1);
          if (c2 >= 0xdc00 && c2 < 0xe000) {
            c = 0x10000 + ((c - 0xd800) << 10) + (c2 - 0xdc00);
            end += 6;
          }
        }
      }
      append_utf8(out, c);
    }
  }

  std::optional<Value> scan_object(std::size_t idx, std::size_t& next, std::size_t depth) {
    Dict dict;
    // key -> position in dict.items: a few keys are compared one by one;
    // past kLinearKeys, a NameIndex over the items' own keys (a map of
    // copied keys was most of reading a header of a million keys).
    constexpr std::size_t kLinearKeys = 16;
    NameIndex where;
    bool indexed = false;
    const auto key_at = [&](std::size_t i) -> std::string_view { return std::get<std::string>(dict.items[i].key.data); };
    idx = skip_ws(idx);
    if (!at(idx, '}')) {
      while (true) {
        if (!at(idx, '"')) return fail("Expecting property name enclosed in double quotes", idx);
        auto key = scan_string(idx + 1, idx);
        if (!key) return std::nullopt;
        idx = skip_ws(idx);
        if (!at(idx, ':')) return fail("Expecting ':' delimiter", idx);
        idx = skip_ws(idx + 1);
        auto val = scan(idx, idx, depth);
        if (!val) return std::nullopt;
        const std::string& k = std::get<std::string>(key->data);
        std::size_t seen = NameIndex::npos;
        if (dict.items.size() < kLinearKeys) {
          for (std::size_t i = 0; i < dict.items.size() && seen == NameIndex::npos; ++i)
            if (key_at(i) == k) seen = i;
        } else {
          if (!indexed) {
            where.reset(2 * kLinearKeys);
            for (std::size_t i = 0; i < dict.items.size(); ++i) where.find_or_insert(key_at(i), i, key_at);
            indexed = true;
          }
          seen = where.find_or_insert(k, dict.items.size(), key_at);
        }
        if (seen == NameIndex::npos) dict.items.push_back({std::move(*key), std::move(*val)});
        else dict.items[seen].value = std::move(*val);
        idx = skip_ws(idx);
        if (at(idx, '}')) break;
        if (!at(idx, ',')) return fail("Expecting ',' delimiter", idx);
        idx = skip_ws(idx + 1);
      }
    }
    next = idx + 1;
    return Value(std::move(dict));
  }

  std::optional<Value> scan_array(std::size_t idx, std::size_t& next, std::size_t depth) {
    List list;
    idx = skip_ws(idx);
    if (!at(idx, ']')) {
      while (true) {
        auto val = scan(idx, idx, depth);
        if (!val) return std::nullopt;
        list.items.push_back(std::move(*val));
        idx = skip_ws(idx);
        if (at(idx, ']')) break;
        if (!at(idx, ',')) return fail("Expecting ',' delimiter", idx);
        idx = skip_ws(idx + 1);
      }
    }
    next = idx + 1;
    return Value(std::move(list));
  }
};

}  // namespace

std::string_view kind_name(JsonErrorKind kind) {
  switch (kind) {
    case JsonErrorKind::JSONDecodeError: return "JSONDecodeError";
    case JsonErrorKind::UnicodeDecodeError: return "UnicodeDecodeError";
    case JsonErrorKind::RecursionError: return "RecursionError";
    case JsonErrorKind::ValueError: return "ValueError";
    case JsonErrorKind::SizeLimit: return "SizeLimit";
  }
  return "?";
}

Result<Value, JsonLoadError> loads(std::string_view bytes, LoadLimits limits) {
  if (bytes.size() > limits.max_bytes)
    return JsonLoadError{JsonErrorKind::SizeLimit, limits.max_bytes, 0, 0, 0,
                         "input of " + std::to_string(bytes.size()) + " bytes exceeds the limit of " +
                             std::to_string(limits.max_bytes) + " bytes"};
  auto decoded = decode_bytes(bytes);
  if (!decoded) return decoded.error();
  Scanner scanner(decoded.value(), std::min(limits.max_depth, kPythonJsonDepthCap));
  auto v = scanner.document();
  if (!v) return *scanner.error;
  return std::move(*v);
}

Result<Value, JsonLoadError> loads_str(std::string_view utf8, LoadLimits limits) {
  if (utf8.size() > limits.max_bytes)
    return JsonLoadError{JsonErrorKind::SizeLimit, limits.max_bytes, 0, 0, 0,
                         "input of " + std::to_string(utf8.size()) + " bytes exceeds the limit of " +
                             std::to_string(limits.max_bytes) + " bytes"};
  // json.loads(str) refuses a leading U+FEFF before scanning (json/__init__.py).
  if (utf8.substr(0, 3) == "\xef\xbb\xbf")
    return JsonLoadError{JsonErrorKind::JSONDecodeError, 0, 0, 1, 1,
                         "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"};
  auto decoded = decode_utf8(utf8, 0);
  if (!decoded) return decoded.error();
  Scanner scanner(decoded.value(), std::min(limits.max_depth, kPythonJsonDepthCap));
  auto v = scanner.document();
  if (!v) return *scanner.error;
  return std::move(*v);
}

}  // namespace safespec::py
