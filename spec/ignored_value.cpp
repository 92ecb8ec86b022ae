#include "spec/ignored_value.hpp"

#include <unordered_map>


namespace safespec {

void scan_ignored_value(JsonCursor& c, Place& at, const std::function<void(const Place&, bool)>& report) {
  const JsonKind kind = c.peek();
  if (kind == JsonKind::Array) {
    c.try_consume('[');
    if (c.try_consume(']')) return;
    std::size_t i = 0;
    do {
      const JsonKind item = c.peek();
      if (item == JsonKind::Array || item == JsonKind::Object) {
        at.path.emplace_back(std::uint64_t{i});
        scan_ignored_value(c, at, report);  // depth <= 127, validated
        at.path.pop_back();
      } else {
        c.skip_value();
      }
      ++i;
    } while (c.try_consume(','));
    c.try_consume(']');
    return;
  }
  if (kind != JsonKind::Object) {
    c.skip_value();
    return;
  }
  std::unordered_map<std::string, std::string> seen;  // decoded key -> raw spelling
  c.try_consume('{');
  if (c.try_consume('}')) return;
  do {
    const std::string_view raw = c.read_raw_string();
    std::string key = JsonCursor::decode_string(raw);
    c.try_consume(':');
    at.path.emplace_back(key);
    const auto it = seen.find(key);
    if (it != seen.end())
      report(at, it->second == raw);
    else if (seen.size() < kMaxKeysChecked)
      seen.emplace(std::move(key), std::string(raw));
    const JsonKind value = c.peek();
    if (value == JsonKind::Array || value == JsonKind::Object)
      scan_ignored_value(c, at, report);
    else
      c.skip_value();
    at.path.pop_back();
  } while (c.try_consume(','));
  c.try_consume('}');
}

}  // namespace safespec
