// The text of HTTP response header fields, as the range reader
// (src/io/http_range.cpp) reads them: pure functions, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace safespec::http {

// Whether `line` starts with `prefix` (given in lower case), ignoring ASCII case.
bool iequals_prefix(std::string_view line, std::string_view prefix);
// `s` without the spaces and tabs around it (and a line's CR LF).
std::string_view trim(std::string_view s);
// A decimal with nothing else around it, within 64 bits.
std::optional<std::uint64_t> number(std::string_view s);

// "bytes A-B/T" or "bytes */T"; T may be "*" (unknown).
struct ContentRange {
  std::optional<std::uint64_t> first, last;  // absent in "bytes */T"
  std::optional<std::uint64_t> total;        // absent for "*"
};
// nullopt for any other text, or a range whose last byte is before its first.
std::optional<ContentRange> parse_content_range(std::string_view v);

}  // namespace safespec::http
