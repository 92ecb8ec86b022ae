#include "src/io/http_headers.hpp"

#include <cctype>
#include <charconv>
#include <system_error>

namespace safespec::http {

bool iequals_prefix(std::string_view line, std::string_view prefix) {
  if (line.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) != prefix[i]) return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

std::optional<std::uint64_t> number(std::string_view s) {
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<ContentRange> parse_content_range(std::string_view v) {
  if (!v.starts_with("bytes ")) return std::nullopt;
  v.remove_prefix(6);
  const auto slash = v.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  ContentRange r;
  const std::string_view range = v.substr(0, slash), total = v.substr(slash + 1);
  if (total != "*") {
    r.total = number(total);
    if (!r.total) return std::nullopt;
  }
  if (range == "*") return r;
  const auto dash = range.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  r.first = number(range.substr(0, dash));
  r.last = number(range.substr(dash + 1));
  if (!r.first || !r.last || *r.last < *r.first) return std::nullopt;
  return r;
}

}  // namespace safespec::http
