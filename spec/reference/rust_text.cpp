#include "spec/reference/rust_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "spec/utf8.hpp"

namespace safespec::reference {

std::string zmij_format(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  std::string out = std::signbit(value) ? "-" : "";
  if (value == 0) return out + "0.0";
  // std::to_chars without a precision gives the shortest round-trip digits
  // (closest to the value on ties), the digits zmij writes.
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, std::fabs(value), std::chars_format::scientific);
  const std::string_view sci(buf, static_cast<std::size_t>(r.ptr - buf));
  const std::size_t e = sci.find('e');
  std::string digits;
  for (const char c : sci.substr(0, e))
    if (c != '.') digits += c;
  int exp = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+'), sci.data() + sci.size(), exp);
  const int n = static_cast<int>(digits.size());
  if (exp >= -5 && exp <= 15) {
    if (n - 1 <= exp) return out + digits + std::string(static_cast<std::size_t>(exp + 1 - n), '0') + ".0";
    if (exp >= 0) return out + digits.substr(0, static_cast<std::size_t>(exp + 1)) + "." + digits.substr(static_cast<std::size_t>(exp + 1));
    return out + "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
  }
  out += digits.substr(0, 1);
  if (n > 1) out += "." + digits.substr(1);
  return out + (exp < 0 ? "e-" : "e+") + std::to_string(exp < 0 ? -exp : exp);
}

namespace {

// Decodes the UTF-8 scalar at text[i] (text is valid UTF-8).
char32_t decode_at(std::string_view text, std::size_t i, std::size_t len) {
  const auto b = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(text[i + k])); };
  switch (len) {
    case 1: return b(0);
    case 2: return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
}

}  // namespace

std::string rust_str_debug(std::string_view utf8) {
  std::string out = "\"";
  for (std::size_t i = 0; i < utf8.size();) {
    std::size_t len = utf8_sequence_length(utf8, i);
    if (len == 0) len = 1;  // not reached for decoded JSON strings
    const char32_t c = decode_at(utf8, i, len);
    switch (c) {
      case 0: out += "\\0"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\n': out += "\\n"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default: {
        const bool printable = c < 0x80 ? (c >= 0x20 && c < 0x7F) : !rust_debug_escapes(c);
        if (printable) {
          out.append(utf8.substr(i, len));
        } else {
          char hex[16];
          std::snprintf(hex, sizeof hex, "\\u{%x}", static_cast<unsigned>(c));
          out += hex;
        }
      }
    }
    i += len;
  }
  return out + "\"";
}

std::optional<Utf8Failure> rust_utf8_check(std::string_view bytes) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
  const auto cont = [](unsigned char c) { return (c & 0xC0) == 0x80; };
  std::size_t i = 0;
  while (i < bytes.size()) {
    const unsigned char first = at(i);
    const std::size_t width = first < 0x80 ? 1 : (first >= 0xC2 && first <= 0xDF) ? 2
                                             : (first >= 0xE0 && first <= 0xEF) ? 3
                                             : (first >= 0xF0 && first <= 0xF4) ? 4 : 0;
    if (width == 0) return Utf8Failure{i, 1};
    if (width == 1) { ++i; continue; }
    // Each following byte: its allowed range (the second byte's depends on
    // the first, which rules out overlongs, surrogates and > U+10FFFF).
    for (std::size_t k = 1; k < width; ++k) {
      if (i + k >= bytes.size()) return Utf8Failure{i, std::nullopt};
      const unsigned char c = at(i + k);
      bool good = cont(c);
      if (k == 1) {
        if (first == 0xE0) good = c >= 0xA0 && c <= 0xBF;
        else if (first == 0xED) good = c >= 0x80 && c <= 0x9F;
        else if (first == 0xF0) good = c >= 0x90 && c <= 0xBF;
        else if (first == 0xF4) good = c >= 0x80 && c <= 0x8F;
      }
      if (!good) return Utf8Failure{i, k};
    }
    i += width;
  }
  return std::nullopt;
}

std::string utf8_failure_text(const Utf8Failure& f) {
  if (f.error_len)
    return "invalid utf-8 sequence of " + std::to_string(*f.error_len) + " bytes from index " +
           std::to_string(f.valid_up_to);
  return "incomplete utf-8 byte sequence from index " + std::to_string(f.valid_up_to);
}

}  // namespace safespec::reference
