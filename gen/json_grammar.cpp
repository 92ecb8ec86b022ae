#include "gen/json_grammar.hpp"

#include <cstdint>
#include <vector>

#include "gen/models.hpp"
#include "spec/dtype.hpp"

namespace safespec::gen {

namespace {

std::string hex4(std::uint32_t v, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string s = "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) s += digits[(v >> shift) & 15];
  return s;
}

// One piece of string content (between the quotes).
rc::Gen<std::string> string_piece(bool valid_only) {
  using rc::gen::element;
  using rc::gen::inRange;
  const rc::Gen<std::string> plain = rc::gen::map(utf8_text(), [](const std::string& s) {
    std::string out;  // utf8_text without the characters that need escaping
    for (char c : s)
      if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20) out += c;
    return out;
  });
  const rc::Gen<std::string> simple_escape =
      element<std::string>("\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t");
  const rc::Gen<std::string> unicode_escape = rc::gen::exec([] {
    const bool upper = *rc::gen::arbitrary<bool>();
    const auto kind = *inRange(0, 4);
    if (kind == 0) {  // a surrogate pair
      const auto hi = *inRange<std::uint32_t>(0xD800, 0xDC00);
      const auto lo = *inRange<std::uint32_t>(0xDC00, 0xE000);
      return hex4(hi, upper) + hex4(lo, upper);
    }
    if (kind == 1) return hex4(*inRange<std::uint32_t>(0, 0x80), upper);
    return hex4(*rc::gen::oneOf(inRange<std::uint32_t>(0, 0xD800), inRange<std::uint32_t>(0xE000, 0x10000)), upper);
  });
  const rc::Gen<std::string> invalid = rc::gen::exec([] {
    const auto kind = *inRange(0, 8);
    switch (kind) {
      case 0: return hex4(*inRange<std::uint32_t>(0xD800, 0xDC00), false);  // lone high
      case 1: return hex4(*inRange<std::uint32_t>(0xDC00, 0xE000), false);  // lone low
      case 2: return hex4(*inRange<std::uint32_t>(0xD800, 0xDC00), false) + "x";
      case 3: return hex4(*inRange<std::uint32_t>(0xD800, 0xDC00), false) + hex4(0xD800, false);  // high high
      case 4: return std::string(1, static_cast<char>(*inRange(0, 0x20)));  // raw control
      case 5: return *element<std::string>("\\x41", "\\'", "\\U0041", "\\u12", "\\u00g0", "\\a", "\\0", "\\");
      case 6: return hex4(*inRange<std::uint32_t>(0xDC00, 0xE000), false) + hex4(0xD800, false);  // low then high
      default: return std::string("\x7f");  // DEL is fine in JSON: a valid piece among the invalid ones
    }
  });
  if (valid_only)
    return rc::gen::weightedOneOf<std::string>({{6, plain}, {2, simple_escape}, {2, unicode_escape}});
  return rc::gen::weightedOneOf<std::string>({{6, plain}, {2, simple_escape}, {2, unicode_escape}, {1, invalid}});
}

}  // namespace

rc::Gen<std::string> json_space() {
  return rc::gen::weightedOneOf<std::string>({
      {6, rc::gen::just(std::string())},
      {2, rc::gen::element<std::string>(" ", "\n", "\t", "\r", "  ", " \r\n\t")},
  });
}

rc::Gen<std::string> json_string_token(bool valid_only) {
  return rc::gen::exec([valid_only] {
    const int n = *rc::gen::inRange(0, 4);
    std::string s = "\"";
    for (int i = 0; i < n; ++i) s += *string_piece(valid_only);
    return s + "\"";
  });
}

rc::Gen<std::string> json_number_token(bool valid_only) {
  const rc::Gen<std::string> valid = rc::gen::weightedOneOf<std::string>({
      {4, rc::gen::map(rc::gen::inRange<std::uint64_t>(0, 100), [](std::uint64_t v) { return std::to_string(v); })},
      {1, rc::gen::map(rc::gen::arbitrary<std::uint64_t>(), [](std::uint64_t v) { return std::to_string(v); })},
      {1, rc::gen::map(rc::gen::arbitrary<std::int64_t>(), [](std::int64_t v) { return std::to_string(v); })},
      {3, rc::gen::element<std::string>(
              "0", "-0", "1", "-1", "1.0", "-0.0", "0.5", "1e0", "1E2", "1e+2", "1e-2", "2.5e-3", "1e308", "-1e308",
              "1.7976931348623157e308", "1e-400", "0e999999", "0.0e-999999", "18446744073709551615",
              "18446744073709551616", "99999999999999999999", "9223372036854775807", "9223372036854775808",
              "-9223372036854775808", "-9223372036854775809", "-18446744073709551616", "4294967296",
              "9007199254740993", "100000000", "123456789012345678901234567890",
              "0.000000000000000000000000000000000000001")},
  });
  if (valid_only) return valid;
  const rc::Gen<std::string> invalid = rc::gen::element<std::string>(
      "1e400", "-1e400", "1e309", "1.8e308", "01", "00", "-01", "+1", ".5", "1.", "1e", "1e+", "-", "--1", "0x10",
      "1_000", "NaN", "Infinity", "-Infinity", "1.0.0", "1ee2", "1.7976931348623159e308");
  return rc::gen::weightedOneOf<std::string>({{6, valid}, {1, invalid}});
}

std::string nested_value(int depth, bool objects, const std::string& core) {
  std::string open, close;
  for (int i = 0; i < depth; ++i) {
    if (objects && i % 2 == 1) {
      open += "{\"k\":";
      close += "}";
    } else {
      open += "[";
      close += "]";
    }
  }
  return open + core + std::string(close.rbegin(), close.rend());
}

rc::Gen<std::string> json_value(int max_depth, bool valid_only) {
  return rc::gen::exec([max_depth, valid_only]() -> std::string {
    const int kind = *rc::gen::inRange(0, max_depth > 0 ? 8 : 5);
    switch (kind) {
      case 0: return *json_string_token(valid_only);
      case 1: return *json_number_token(valid_only);
      case 2: return *rc::gen::element<std::string>("true", "false", "null");
      case 3: return *json_string_token(valid_only);
      case 4: {
        if (valid_only) return *json_number_token(true);
        return *rc::gen::element<std::string>("tru", "nul", "True", "NULL", "undefined", "'x'", "[1,]", "{,}",
                                              "[1 2]", "{\"a\" 1}", "{\"a\":1,}", "{1:2}", "/*c*/1", "");
      }
      case 5:
      case 6: {  // array
        const int n = *rc::gen::inRange(0, 4);
        std::string s = "[" + *json_space();
        for (int i = 0; i < n; ++i) {
          if (i) s += "," + *json_space();
          // One draw per statement: the order of operands of + is unspecified,
          // and the generators must draw alike under every compiler.
          s += *json_value(max_depth - 1, valid_only);
          s += *json_space();
        }
        return s + "]";
      }
      default: {  // object
        const int n = *rc::gen::inRange(0, 4);
        std::string s = "{" + *json_space();
        for (int i = 0; i < n; ++i) {
          if (i) s += "," + *json_space();
          // Valid values never repeat a key: strict reports that (X3).
          const std::string key = valid_only ? "\"k" + std::to_string(i) + "\"" : *json_string_token(false);
          s += key + *json_space();
          s += ":" + *json_space();
          s += *json_value(max_depth - 1, valid_only);
          s += *json_space();
        }
        return s + "}";
      }
    }
  });
}

namespace {

// A tensor entry's dtype value: usually a valid name, sometimes escaped,
// sometimes wrong.
rc::Gen<std::string> dtype_token() {
  return rc::gen::exec([] {
    const std::string name(dtype_name(*dtype()));
    const int kind = *rc::gen::inRange(0, 10);
    if (kind < 6) return "\"" + name + "\"";
    if (kind == 6) {  // escape one character
      const auto at = static_cast<std::size_t>(*rc::gen::inRange<std::size_t>(0, name.size()));
      return "\"" + name.substr(0, at) + hex4(static_cast<unsigned char>(name[at]), *rc::gen::arbitrary<bool>()) +
             name.substr(at + 1) + "\"";
    }
    if (kind == 7) {
      std::string lower = name;
      for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      return "\"" + lower + "\"";
    }
    return *rc::gen::oneOf(json_value(1, false),
                           rc::gen::element<std::string>("\"\"", "\"F32 \"", "\"BF8\"", "\"F8_E4M3FN\"", "\"Q4_0\""));
  });
}

rc::Gen<std::string> index_token() {
  return rc::gen::weightedOneOf<std::string>({
      {12, rc::gen::map(rc::gen::inRange<std::uint64_t>(0, 40), [](std::uint64_t v) { return std::to_string(v); })},
      {1, json_number_token(false)},
      {1, json_value(1, false)},
  });
}

rc::Gen<std::string> index_array(int min, int max) {
  return rc::gen::exec([min, max] {
    const int n = *rc::gen::inRange(min, max + 1);
    std::string s = "[" + *json_space();
    for (int i = 0; i < n; ++i) {
      if (i) s += "," + *json_space();
      s += *index_token() + *json_space();
    }
    return s + "]";
  });
}

std::string key_text(const std::string& name) {
  std::string s = "\"" + name + "\"";
  return s;
}

rc::Gen<std::string> entry_value() {
  return rc::gen::exec([]() -> std::string {
    if (*rc::gen::inRange(0, 20) == 0) return *json_value(2, false);  // not an object at all
    std::vector<std::string> fields;
    const int dtype_count = *rc::gen::weightedElement<int>({{12, 1}, {1, 0}, {1, 2}});
    const int shape_count = *rc::gen::weightedElement<int>({{12, 1}, {1, 0}, {1, 2}});
    const int offsets_count = *rc::gen::weightedElement<int>({{12, 1}, {1, 0}, {1, 2}});
    const auto field_key = [](const char* name) {
      return *rc::gen::weightedOneOf<std::string>(
          {{8, rc::gen::just(key_text(name))},
           {1, rc::gen::just(std::string("\"") + hex4(static_cast<unsigned char>(name[0]), false) + (name + 1) +
                             "\"")}});
    };
    for (int i = 0; i < dtype_count; ++i) fields.push_back(field_key("dtype") + ":" + *dtype_token());
    for (int i = 0; i < shape_count; ++i)
      fields.push_back(field_key("shape") + ":" +
                       *rc::gen::weightedOneOf<std::string>({{10, index_array(0, 4)}, {1, json_value(1, false)}}));
    for (int i = 0; i < offsets_count; ++i)
      fields.push_back(field_key("data_offsets") + ":" +
                       *rc::gen::weightedOneOf<std::string>({{10, index_array(2, 2)},
                                                             {1, index_array(0, 3)},
                                                             {1, json_value(1, false)}}));
    const int extra = *rc::gen::weightedElement<int>({{6, 0}, {2, 1}, {1, 2}});
    for (int i = 0; i < extra; ++i) {
      std::string value = *rc::gen::weightedOneOf<std::string>({
          {6, json_value(3, false)},
          {1, rc::gen::map(rc::gen::inRange(120, 131), [](int d) { return nested_value(d, false, "0"); })},
          {1, rc::gen::map(rc::gen::inRange(120, 131), [](int d) { return nested_value(d, true, "[]"); })},
      });
      fields.push_back(*json_string_token(false) + ":" + value);
    }
    // Random field order: a few swaps.
    const int swaps = *rc::gen::inRange(0, 3);
    for (int i = 0; i < swaps && fields.size() > 1; ++i) {
      const auto a = *rc::gen::inRange<std::size_t>(0, fields.size());
      const auto b = *rc::gen::inRange<std::size_t>(0, fields.size());
      std::swap(fields[a], fields[b]);
    }
    std::string s = "{" + *json_space();
    for (std::size_t i = 0; i < fields.size(); ++i) s += (i ? "," + *json_space() : "") + fields[i] + *json_space();
    return s + "}";
  });
}

rc::Gen<std::string> metadata_value() {
  return rc::gen::exec([]() -> std::string {
    const int kind = *rc::gen::inRange(0, 12);
    if (kind == 0) return "null";
    if (kind == 1) return *json_value(2, false);
    const int n = *rc::gen::inRange(0, 4);
    std::string s = "{";
    for (int i = 0; i < n; ++i) {
      if (i) s += ",";
      const std::string value =
          *rc::gen::weightedOneOf<std::string>({{10, json_string_token(false)}, {1, json_value(1, false)}});
      s += *json_string_token(false);
      s += *json_space();
      s += ":" + *json_space();
      s += value;
    }
    return s + "}";
  });
}

}  // namespace

rc::Gen<std::string> header_like_text() {
  return rc::gen::exec([] {
    const int n = *rc::gen::inRange(0, 5);
    std::vector<std::string> members;
    for (int i = 0; i < n; ++i) {
      const std::string key = *rc::gen::weightedOneOf<std::string>({
          {8, json_string_token(false)},
          {2, rc::gen::element<std::string>("\"a\"", "\"\\u0061\"", "\"b\"", "\"\"", "\"__METADATA__\"")},
          {2, rc::gen::element<std::string>("\"__metadata__\"", "\"\\u005f_metadata__\"", "\"__metadata\\u005f_\"")},
      });
      const bool meta = key.find("metadata") != std::string::npos && key.find("META") == std::string::npos;
      std::string member = key + *json_space();
      member += ":" + *json_space();
      member += meta ? *metadata_value() : *entry_value();
      members.push_back(std::move(member));
    }
    // Deep nesting as a top-level member or a metadata value, around the limit.
    if (*rc::gen::inRange(0, 6) == 0) {
      const int depth = *rc::gen::inRange(122, 131);
      members.push_back("\"deep\":" + nested_value(depth, *rc::gen::arbitrary<bool>(), "1"));
    }
    std::string s = *json_space() + "{";
    s += *json_space();
    for (std::size_t i = 0; i < members.size(); ++i) s += (i ? "," + *json_space() : "") + members[i];
    s += *json_space() + "}";
    s += *rc::gen::weightedOneOf<std::string>({
        {12, json_space()},
        {1, rc::gen::element<std::string>(" x", "\x0c", std::string(1, '\0'), "{}", ",", "\xc2\xa0", "\xef\xbb\xbf")},
    });
    // Occasionally a junk byte somewhere.
    if (*rc::gen::inRange(0, 10) == 0 && !s.empty()) {
      const auto at = *rc::gen::inRange<std::size_t>(0, s.size());
      s.insert(at, 1, static_cast<char>(*rc::gen::element<int>(',', ':', '{', '}', '[', ']', '"', '\\', ' ', 0, 0xff)));
    }
    return s;
  });
}

}  // namespace safespec::gen
