#include "spec/ignored_value.hpp"

#include <unordered_map>

#include "spec/quote.hpp"

namespace safespec {

void scan_ignored_value(JsonCursor& c, const std::string& path,
                        const std::function<void(std::string, bool)>& report) {
  const JsonKind kind = c.peek();
  if (kind == JsonKind::Array) {
    c.try_consume('[');
    if (c.try_consume(']')) return;
    std::size_t i = 0;
    do {
      const JsonKind item = c.peek();
      if (item == JsonKind::Array || item == JsonKind::Object)
        scan_ignored_value(c, path + "[" + std::to_string(i) + "]", report);  // depth <= 127, validated
      else
        c.skip_value();
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
    const std::string where = path + " key " + quote_name(key);
    const auto it = seen.find(key);
    if (it != seen.end())
      report(where, it->second == raw);
    else if (seen.size() < kMaxKeysChecked)
      seen.emplace(std::move(key), std::string(raw));
    const JsonKind value = c.peek();
    if (value == JsonKind::Array || value == JsonKind::Object)
      scan_ignored_value(c, where, report);
    else
      c.skip_value();
  } while (c.try_consume(','));
  c.try_consume('}');
}

}  // namespace safespec
