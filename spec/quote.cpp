#include "spec/quote.hpp"

namespace safespec {

std::string quote_name(std::string_view name) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(name.size() + 2);
  out += '\'';
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '\'' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  out += '\'';
  return out;
}

std::string count_of(std::uint64_t n, std::string_view noun) {
  std::string out = std::to_string(n) + " ";
  out += noun;
  if (n != 1) out += 's';
  return out;
}

}  // namespace safespec
