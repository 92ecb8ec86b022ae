#include "spec/quote.hpp"

#include "spec/utf8.hpp"

namespace safespec {

std::string quote_name(std::string_view name) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(name.size() + 2);
  out += '\'';
  for (std::size_t i = 0; i < name.size();) {
    const char ch = name[i];
    const auto c = static_cast<unsigned char>(ch);
    const std::size_t len = utf8_sequence_length(name, i);
    if (ch == '\'' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f || len == 0) {  // controls, and bytes that are not UTF-8
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out.append(name.substr(i, len));
      i += len;
      continue;
    }
    ++i;
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
