#include "gen/mutations_text.hpp"

#include <string>
#include <vector>

#include "gen/json_grammar.hpp"
#include "gen/mutation_tools.hpp"
#include "src/report/json_escape.hpp"

namespace safespec::gen::detail {

using rc::gen::element;
using rc::gen::inRange;

// ---------------------------------------------------------------------------
// F1-F6: parse errors

Mutant prefix_truncated(const Plan& p) {
  auto bytes = bytes_of(p);
  const std::size_t keep = pick(8);
  bytes.resize(keep);
  return {bytes, "kept the first " + std::to_string(keep) + " bytes"};
}

Mutant length_above_cap(const Plan& p) {
  const std::uint64_t n = *rc::gen::oneOf(
      inRange<std::uint64_t>(100'000'001, 100'001'000),
      rc::gen::elementOf(std::vector<std::uint64_t>{100'000'001, ~std::uint64_t{0}, std::uint64_t{1} << 63,
                                                    0x3C000000FFFFFF00ull}),
      inRange<std::uint64_t>(100'000'001, ~std::uint64_t{0}));
  return {set_length(bytes_of(p), n), "N := " + std::to_string(n)};
}

Mutant length_past_end(const Plan& p) {
  auto bytes = bytes_of(p);
  const std::uint64_t room = bytes.size() - 8;
  const std::uint64_t n = *rc::gen::oneOf(inRange<std::uint64_t>(room + 1, room + 64),
                                          rc::gen::elementOf(std::vector<std::uint64_t>{room + 1, 100'000'000}));
  return {set_length(std::move(bytes), n), "N := " + std::to_string(n) + " with " + std::to_string(room) +
                                               " bytes after the prefix"};
}

Mutant invalid_utf8(const Plan& p) {
  const std::string piece = *element<std::string>("\x80", "\xbf", "\xc0", "\xc1", "\xf5", "\xfe", "\xff", "\xc0\x80",
                                                  "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\xf0\x9f\x98",
                                                  "\xc2");
  const std::size_t n = header_text(layout_of(p)).size();
  return insert_in_header(p, piece, 0, n, "inserted invalid UTF-8 '" + escaped_text(piece) + "'");
}

Mutant trailing_junk(const Plan& p) {
  const Layout l = layout_of(p);
  const std::size_t close = object_text(l.members).size();
  const std::size_t n = header_text(l).size();
  const std::string piece = *element<std::string>("x", std::string(1, '\0'), "\x0b", "\x0c", "}", "{}", ",", "]",
                                                  "\xc2\xa0", "/", "#", "0", "\"\"", "null");
  return insert_in_header(p, piece, close, n, "inserted '" + escaped_text(piece) + "' after the object");
}

Mutant leading_junk(const Plan& p) {
  const std::string piece = *element<std::string>("\xef\xbb\xbf", std::string(1, '\0'), "\x0c", "\x0b", "x",
                                                  "\xc2\xa0", "/", ",", ":", "}", "]");
  return insert_in_header(p, piece, 0, 0, "inserted '" + escaped_text(piece) + "' before the object");
}

Mutant broken_syntax(const Plan& p) {
  Layout l = layout_of(p);
  const int kind = *inRange(0, 5);
  if (kind == 0) {  // drop the closing brace
    const std::string obj = object_text(l.members);
    return {raw_file(padded(obj.substr(0, obj.size() - 1)), l.data), "dropped the closing '}'"};
  }
  if (kind == 1) {  // trailing comma ("{,}" when empty)
    std::string obj = object_text(l.members);
    obj.insert(obj.size() - 1, ",");
    return {raw_file(padded(obj), l.data), "a trailing comma before '}'"};
  }
  if (kind == 2) {  // a single-quoted key
    l.members.push_back({"'x'", "{}"});
    return done(l, "a single-quoted key");
  }
  if (kind == 3) {  // a comment
    l.members.push_back({"\"c\"", "/* comment */ {}"});
    return done(l, "a comment");
  }
  // a raw control character inside a string
  const char ctl = static_cast<char>(*inRange(0, 0x20));
  l.members.push_back({"\"a" + std::string(1, ctl) + "b\"", "{}"});
  return done(l, "raw control byte " + std::to_string(static_cast<int>(ctl)) + " in a key");
}

Mutant depth_exceeded(const Plan& p) {
  Layout l = layout_of(p);
  // The top-level object is depth 1; a member value nested k deep reaches 1 + k.
  const int k = *inRange(127, 141);
  const bool objects = *rc::gen::arbitrary<bool>();  // one draw per statement, for every compiler
  const std::string value = nested_value(k, objects, *element<std::string>("1", "\"x\"", "[]", "{}"));
  l.members.insert(l.members.begin() + static_cast<std::ptrdiff_t>(pick(l.members.size() + 1)),
                   Member{"\"deep\"", value});
  return done(l, "a member nested " + std::to_string(k) + " deep");
}

Mutant not_object(const Plan& p) {
  Layout l = layout_of(p);
  const std::string value =
      *element<std::string>("[]", "null", "\"x\"", "1", "true", "[{}]", "-0", "\"{}\"", "[{\"a\":1}]");
  const std::string before = *json_space();  // one draw per statement, for every compiler
  const std::string h = padded(before + value + *json_space());
  const auto bytes = raw_file(h, l.data);
  return {bytes, "header := '" + escaped_text(h) + "'"};
}

Mutant metadata_twice(const Plan& p) {
  Layout l = layout_of(p);
  const auto second = [] {
    return Member{*element<std::string>("\"__metadata__\"", "\"\\u005f_metadata__\"", "\"__metadat\\u0061__\""),
                  *element<std::string>("{}", "null", "{\"a\":\"b\"}")};
  };
  if (p.metadata_state == MetadataState::Absent) l.members.insert(l.members.begin(), second());
  const std::size_t at = pick(l.members.size() + 1);  // drawn before the member, for every compiler
  l.members.insert(l.members.begin() + static_cast<std::ptrdiff_t>(at), second());
  return done(l, "a second __metadata__ member");
}

Mutant metadata_type(const Plan& p) {
  Layout l = layout_of(p);
  const std::string bad = *element<std::string>("1", "null", "true", "{}", "[]", "[\"x\"]", "-0", "1.5", "{\"a\":\"b\"}");
  std::string value;
  std::string what;
  if (*rc::gen::arbitrary<bool>()) {  // __metadata__ itself is not an object
    value = *element<std::string>("1", "\"x\"", "[]", "true", "[{}]", "\"{}\"");
    what = "__metadata__ := " + value;
  } else {  // one value is not a string
    Metadata m = p.metadata;
    std::vector<Member> members;
    for (const auto& [k, v] : m) members.push_back({json_string(k), json_string(v)});
    const std::size_t at = pick(members.size() + 1);  // drawn before the key, for every compiler
    members.insert(members.begin() + static_cast<std::ptrdiff_t>(at), Member{json_string(*utf8_text()), bad});
    value = object_text(members);
    what = "a metadata value := " + bad;
  }
  if (p.metadata_state == MetadataState::Absent)
    l.members.insert(l.members.begin() + static_cast<std::ptrdiff_t>(pick(l.members.size() + 1)),
                     Member{"\"__metadata__\"", value});
  else
    l.members[0].value = value;
  return done(l, what);
}

Mutant tensor_not_object(const Plan& p0) {
  Plan p = p0;
  const std::size_t i = any_tensor(p);
  const std::string value =
      *element<std::string>("1", "[]", "\"F32\"", "null", "true", "[{\"dtype\":\"F32\"}]", "-1", "\"\"");
  return with_tensor_value(p, i, value, "entry := " + value);
}

Mutant field_missing(const Plan& p0) {
  Plan p = p0;
  const std::size_t i = any_tensor(p);
  auto fields = tensor_fields(p.tensors[i]);
  const std::size_t drop = pick(3);
  const std::string what = "dropped field " + fields[drop].key;
  fields.erase(fields.begin() + static_cast<std::ptrdiff_t>(drop));
  if (*rc::gen::arbitrary<bool>()) fields.push_back({"\"extra\"", "0"});  // unknown fields do not count
  return with_fields(p, i, fields, what);
}

Mutant field_duplicate(const Plan& p0) {
  Plan p = p0;
  const std::size_t i = any_tensor(p);
  auto fields = tensor_fields(p.tensors[i]);
  const Member again = fields[pick(3)];
  const std::size_t at = pick(fields.size() + 1);
  fields.insert(fields.begin() + static_cast<std::ptrdiff_t>(at), again);
  return with_fields(p, i, fields, "field " + again.key + " twice");
}

Mutant dtype_unknown(const Plan& p0) {
  Plan p = p0;
  const std::size_t i = any_tensor(p);
  auto fields = tensor_fields(p.tensors[i]);
  std::string lower(dtype_name(p.tensors[i].dtype));
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  fields[0].value = *rc::gen::oneOf(
      rc::gen::just("\"" + lower + "\""),
      element<std::string>("\"\"", "\"bool\"", "\"F32 \"", "\" F32\"", "\"FP8\"", "\"F8_E4M3FN\"", "\"Q4_0\"",
                           "\"F128\"", "\"f32\"", "32", "null", "[\"F32\"]", "{}", "true"));
  return with_fields(p, i, fields, "dtype := " + fields[0].value);
}

Mutant shape_type(const Plan& p0) {
  Plan p = p0;
  const std::size_t i = any_tensor(p);
  auto fields = tensor_fields(p.tensors[i]);
  if (*inRange(0, 4) == 0) {
    fields[1].value = *element<std::string>("\"[2]\"", "{}", "2", "null", "true", "{\"0\":1}");
  } else {
    std::vector<std::string> dims;
    for (std::uint64_t d : p.tensors[i].shape) dims.push_back(std::to_string(d));
    const std::string bad = *element<std::string>("-1", "-0", "1.0", "1e0", "0.5", "18446744073709551616",
                                                  "99999999999999999999", "\"2\"", "null", "true", "[]", "[1]", "-0.0",
                                                  "2E1", "{}");
    dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(pick(dims.size() + 1)), bad);
    std::string s = "[";
    for (std::size_t k = 0; k < dims.size(); ++k) s += (k ? "," : "") + dims[k];
    fields[1].value = s + "]";
  }
  return with_fields(p, i, fields, "shape := " + fields[1].value);
}

Mutant offsets_type(const Plan& p0) {
  Plan p = p0;
  const std::size_t i = any_tensor(p);
  auto fields = tensor_fields(p.tensors[i]);
  const std::string b = std::to_string(p.tensors[i].begin), e = std::to_string(p.tensors[i].end);
  fields[2].value = *element<std::string>("[" + b + "]", "[]", "[" + b + "," + e + "," + e + "]", "[-1," + e + "]",
                                          "[" + b + ",-0]", "[" + b + ".0," + e + "]", "[" + b + "," + e + "e0]",
                                          "[" + b + ",18446744073709551616]", "{}", "null", "\"" + b + "\"",
                                          "[\"" + b + "\",\"" + e + "\"]", "[" + b + ",[" + e + "]]", "[null,null]",
                                          "{\"0\":" + b + ",\"1\":" + e + "}");
  return with_fields(p, i, fields, "data_offsets := " + fields[2].value);
}

// ---------------------------------------------------------------------------
// X1, W5: text warnings

Mutant leading_space(const Plan& p) {
  Layout l = layout_of(p);
  const int n = *inRange(1, 17);
  for (int k = 0; k < n; ++k) l.leading += *element(' ', '\t', '\n', '\r');
  return done(l, std::to_string(n) + " whitespace bytes before '{'");
}

Mutant header_unaligned(const Plan& p) {
  Layout l = layout_of(p);
  const std::size_t core = object_text(l.members).size();
  std::size_t pad = *inRange<std::size_t>(0, 16);
  if ((core + pad) % 8 == 0) ++pad;
  l.padding = std::string();
  for (std::size_t k = 0; k < pad; ++k) *l.padding += *element(' ', '\t', '\n', '\r');
  return done(l, "N = " + std::to_string(core + pad));
}

}  // namespace safespec::gen::detail
