#include "props/gen/mutations.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "props/gen/json_grammar.hpp"
#include "spec/format_rules.hpp"
#include "src/json_escape.hpp"
#include "src/writer.hpp"

namespace safespec::gen {

namespace {

// Field by field, so the helper survives members being added to TensorEntry.
TensorEntry entry(std::string name, Dtype d, std::vector<std::uint64_t> shape, std::uint64_t begin,
                  std::uint64_t end) {
  TensorEntry t;
  t.name = std::move(name);
  t.dtype = d;
  t.shape = std::move(shape);
  t.begin = begin;
  t.end = end;
  return t;
}

}  // namespace

// ---------------------------------------------------------------------------
// Plan and Layout

Plan plan_of(const FileSpec& spec) {
  std::vector<const TensorSpec*> order;
  for (const TensorSpec& t : spec.tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const TensorSpec* a, const TensorSpec* b) {
    return canonical_less(a->dtype, a->name, b->dtype, b->name);
  });
  Plan p;
  for (const TensorSpec* t : order) {
    const std::uint64_t begin = p.data.size();
    p.data.insert(p.data.end(), t->data.begin(), t->data.end());
    p.tensors.push_back(entry(t->name, t->dtype, t->shape, begin, p.data.size()));
  }
  if (spec.metadata) {
    p.metadata_state = MetadataState::Present;
    p.metadata = *spec.metadata;
    std::sort(p.metadata.begin(), p.metadata.end());
  }
  return p;
}

std::string object_text(const std::vector<Member>& members) {
  std::string s = "{";
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (i) s += ',';
    s += members[i].key;
    s += ':';
    s += members[i].value;
  }
  return s + "}";
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

std::vector<Member> tensor_fields(const TensorEntry& t) {
  return {
      {"\"dtype\"", json_string(dtype_name(t.dtype))},
      {"\"shape\"", shape_text(t.shape)},
      {"\"data_offsets\"", "[" + std::to_string(t.begin) + "," + std::to_string(t.end) + "]"},
  };
}

namespace {

std::string metadata_object(const Metadata& m) {
  std::vector<Member> members;
  for (const auto& [k, v] : m) members.push_back({json_string(k), json_string(v)});
  return object_text(members);
}

}  // namespace

Layout layout_of(const Plan& p) {
  Layout l;
  if (p.metadata_state == MetadataState::Present) l.members.push_back({"\"__metadata__\"", metadata_object(p.metadata)});
  if (p.metadata_state == MetadataState::Null) l.members.push_back({"\"__metadata__\"", "null"});
  for (const TensorEntry& t : p.tensors) l.members.push_back({json_string(t.name), object_text(tensor_fields(t))});
  l.data = p.data;
  return l;
}

std::size_t tensor_member(const Plan& p, std::size_t i) {
  return i + (p.metadata_state == MetadataState::Absent ? 0 : 1);
}

std::string header_text(const Layout& l) {
  std::string s = l.leading + object_text(l.members) + l.between;
  if (l.padding)
    s += *l.padding;
  else
    s.resize((s.size() + 7) / 8 * 8, ' ');
  return s;
}

std::vector<std::uint8_t> bytes_of(const Layout& l) {
  const std::string h = header_text(l);
  const std::uint64_t n = l.length ? *l.length : h.size();
  std::vector<std::uint8_t> out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), l.data.begin(), l.data.end());
  return out;
}

std::vector<std::uint8_t> bytes_of(const Plan& p) { return bytes_of(layout_of(p)); }

// ---------------------------------------------------------------------------
// Helpers for mutations

namespace {

using rc::gen::element;
using rc::gen::inRange;

std::size_t pick(std::size_t n) { return *inRange<std::size_t>(0, n); }

std::string fresh_name(const Plan& p, std::string base) {
  std::set<std::string> names;
  for (const auto& t : p.tensors) names.insert(t.name);
  while (names.count(base) || base == "__metadata__") base += '~';
  return base;
}

// Appends a U8 tensor of `size` bytes at the end of the buffer.
std::size_t append_u8(Plan& p, std::uint64_t size, const std::string& base = "added") {
  const std::uint64_t begin = p.data.size();
  for (std::uint64_t i = 0; i < size; ++i) p.data.push_back(static_cast<std::uint8_t>(i * 37 + 11));
  p.tensors.push_back(entry(fresh_name(p, base), Dtype::U8, {size}, begin, begin + size));
  return p.tensors.size() - 1;
}

std::uint64_t span(const TensorEntry& t) { return t.end - t.begin; }

// Indices of p.tensors in (begin, end, name) order, the F7 order.
std::vector<std::size_t> offset_order(const Plan& p) {
  const auto sorted = sorted_by_offsets(p.tensors);
  std::vector<std::size_t> idx;
  for (const TensorEntry* t : sorted) idx.push_back(static_cast<std::size_t>(t - p.tensors.data()));
  return idx;
}

// Makes sure some tensor exists; returns a random tensor index.
std::size_t any_tensor(Plan& p) {
  if (p.tensors.empty()) append_u8(p, *inRange<std::uint64_t>(0, 5));
  return pick(p.tensors.size());
}

Mutant done(const Plan& p, std::string what) { return {bytes_of(p), std::move(what)}; }
Mutant done(const Layout& l, std::string what) { return {bytes_of(l), std::move(what)}; }

std::string name_of(const Plan& p, std::size_t i) { return "tensor '" + escaped_text(p.tensors[i].name) + "'"; }

// Replaces the value of tensor i's member with raw text.
Mutant with_tensor_value(const Plan& p, std::size_t i, std::string value, const std::string& what) {
  Layout l = layout_of(p);
  l.members[tensor_member(p, i)].value = std::move(value);
  return done(l, what + " in " + name_of(p, i));
}

Mutant with_fields(const Plan& p, std::size_t i, const std::vector<Member>& fields, const std::string& what) {
  return with_tensor_value(p, i, object_text(fields), what);
}

// A file from a verbatim header text and a byte buffer; N = the text's size.
std::vector<std::uint8_t> raw_file(const std::string& h, const std::vector<std::uint8_t>& data) {
  std::vector<std::uint8_t> bytes;
  for (int k = 0; k < 8; ++k) bytes.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(h.size()) >> (8 * k)));
  bytes.insert(bytes.end(), h.begin(), h.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

std::string padded(std::string h) {
  h.resize((h.size() + 7) / 8 * 8, ' ');
  return h;
}

// Inserts raw text into the header at a position in [lo, hi], adjusting N.
Mutant insert_in_header(const Plan& p, const std::string& piece, std::size_t lo, std::size_t hi,
                        const std::string& what) {
  const Layout l = layout_of(p);
  std::string h = header_text(l);
  const std::size_t at = *inRange<std::size_t>(lo, hi + 1);
  h.insert(at, piece);
  return {raw_file(h, l.data), what + " at header byte " + std::to_string(at)};
}

std::vector<std::uint8_t> set_length(std::vector<std::uint8_t> bytes, std::uint64_t n) {
  for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(n >> (8 * i));
  return bytes;
}

// A key spelling of `name` that differs from json_string(name) but decodes to
// the same text (F6.5): one character written as a \u escape. None when no
// character has a second spelling (e.g. "\u0000" is the only one for NUL).
std::optional<std::string> escaped_spelling(const std::string& name) {
  std::vector<std::pair<std::size_t, std::size_t>> chars;  // (start, length) of each code point
  for (std::size_t i = 0; i < name.size();) {
    const auto c = static_cast<unsigned char>(name[i]);
    const std::size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    chars.emplace_back(i, len);
    i += len;
  }
  const bool upper = *rc::gen::arbitrary<bool>();
  const std::size_t first = chars.empty() ? 0 : pick(chars.size());
  for (std::size_t k = 0; k < chars.size(); ++k) {
    const auto [start, len] = chars[(first + k) % chars.size()];
    std::uint32_t cp = static_cast<unsigned char>(name[start]);
    if (len > 1) {
      cp &= len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07;
      for (std::size_t b = 1; b < len; ++b) cp = (cp << 6) | (static_cast<unsigned char>(name[start + b]) & 0x3F);
    }
    for (const bool up : {upper, !upper}) {
      const char* digits = up ? "0123456789ABCDEF" : "0123456789abcdef";
      auto unit = [&](std::uint32_t v) {
        std::string s = "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) s += digits[(v >> shift) & 15];
        return s;
      };
      std::string esc;
      if (cp >= 0x10000) {
        const std::uint32_t v = cp - 0x10000;
        esc = unit(0xD800 + (v >> 10)) + unit(0xDC00 + (v & 0x3FF));
      } else {
        esc = unit(cp);
      }
      // json_string of the parts around it; the parts never split a code point.
      const std::string before = json_string(name.substr(0, start));
      const std::string after = json_string(name.substr(start + len));
      std::string spelling = before.substr(0, before.size() - 1) + esc + after.substr(1);
      if (spelling != json_string(name)) return spelling;
    }
  }
  return std::nullopt;
}

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
  const std::string value = nested_value(k, *rc::gen::arbitrary<bool>(), *element<std::string>("1", "\"x\"", "[]", "{}"));
  l.members.insert(l.members.begin() + static_cast<std::ptrdiff_t>(pick(l.members.size() + 1)),
                   Member{"\"deep\"", value});
  return done(l, "a member nested " + std::to_string(k) + " deep");
}

Mutant not_object(const Plan& p) {
  Layout l = layout_of(p);
  const std::string value =
      *element<std::string>("[]", "null", "\"x\"", "1", "true", "[{}]", "-0", "\"{}\"", "[{\"a\":1}]");
  const std::string h = padded(*json_space() + value + *json_space());
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
  l.members.insert(l.members.begin() + static_cast<std::ptrdiff_t>(pick(l.members.size() + 1)), second());
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
    members.insert(members.begin() + static_cast<std::ptrdiff_t>(pick(members.size() + 1)),
                   Member{json_string(*utf8_text()), bad});
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
// F8-F13: model errors

Mutant offset_gap(const Plan& p0) {
  Plan p = p0;
  any_tensor(p);
  const auto order = offset_order(p);
  const std::size_t from = pick(order.size());
  const std::uint64_t k = *inRange<std::uint64_t>(1, 17);
  const std::uint64_t at = p.tensors[order[from]].begin;
  for (std::size_t j = from; j < order.size(); ++j) {
    p.tensors[order[j]].begin += k;
    p.tensors[order[j]].end += k;
  }
  p.data.insert(p.data.begin() + static_cast<std::ptrdiff_t>(at), k, std::uint8_t{0xAA});
  return done(p, "a gap of " + std::to_string(k) + " bytes before " + name_of(p, order[from]));
}

Mutant offset_overlap(const Plan& p0) {
  Plan p = p0;
  auto order = offset_order(p);
  // Positions whose predecessor in offset order spans at least 2 bytes.
  std::vector<std::size_t> candidates;
  for (std::size_t j = 1; j < order.size(); ++j)
    if (span(p.tensors[order[j - 1]]) >= 2) candidates.push_back(j);
  if (candidates.empty()) {
    append_u8(p, *inRange<std::uint64_t>(2, 9));
    append_u8(p, *inRange<std::uint64_t>(0, 5));
    order = offset_order(p);
    for (std::size_t j = 1; j < order.size(); ++j)
      if (span(p.tensors[order[j - 1]]) >= 2) candidates.push_back(j);
  }
  const std::size_t from = candidates[pick(candidates.size())];
  const std::uint64_t k = *inRange<std::uint64_t>(1, span(p.tensors[order[from - 1]]));
  for (std::size_t j = from; j < order.size(); ++j) {
    p.tensors[order[j]].begin -= k;
    p.tensors[order[j]].end -= k;
  }
  p.data.resize(p.data.size() - k);
  return done(p, "an overlap of " + std::to_string(k) + " bytes at " + name_of(p, order[from]));
}

Mutant offset_reversed(const Plan& p0) {
  Plan p = p0;
  if (p.data.empty()) append_u8(p, *inRange<std::uint64_t>(1, 9));
  const std::uint64_t end = p.data.size();
  // Zero-sized tensors at the very end would sort after the reversed one and
  // open a gap; dropping them keeps the plan valid.
  std::erase_if(p.tensors, [end](const TensorEntry& t) { return t.begin == end && t.end == end; });
  const std::uint64_t r = *inRange<std::uint64_t>(0, end);
  const Dtype d = *dtype();
  std::vector<std::uint64_t> shape = *shape_for(d);
  p.tensors.insert(p.tensors.begin() + static_cast<std::ptrdiff_t>(pick(p.tensors.size() + 1)),
                   entry(fresh_name(p, "reversed"), d, shape, end, r));
  p.data.resize(r);  // the reference's cursor ends at r: F13 compares with it
  return done(p, "a tensor with data_offsets [" + std::to_string(end) + ", " + std::to_string(r) + "]");
}

Mutant shape_overflow(const Plan& p0) {
  Plan p = p0;
  const std::size_t i = any_tensor(p);
  const std::vector<std::vector<std::uint64_t>> prefixes{
      {std::uint64_t{1} << 32, std::uint64_t{1} << 32},
      {2, ~std::uint64_t{0} - 1},
      {~std::uint64_t{0}, 2},
      {std::uint64_t{1} << 40, std::uint64_t{1} << 30, 0},
  };
  const auto& prefix = prefixes[pick(prefixes.size())];
  auto& shape = p.tensors[i].shape;
  shape.insert(shape.begin(), prefix.begin(), prefix.end());
  return done(p, "shape := " + shape_text(shape) + " of " + name_of(p, i));
}

Mutant nbits_overflow(const Plan& p0) {
  Plan p = p0;
  const std::size_t i = any_tensor(p);
  // 2^62 elements of at least 4 bits are 2^64 bits or more; the count fits.
  using V = std::vector<std::uint64_t>;
  p.tensors[i].shape = *element(V{std::uint64_t{1} << 62}, V{std::uint64_t{1} << 31, std::uint64_t{1} << 31},
                                V{4, std::uint64_t{1} << 60}, V{~std::uint64_t{0}}, V{1, std::uint64_t{3} << 62});
  return done(p, "shape := " + shape_text(p.tensors[i].shape) + " of " + name_of(p, i));
}

Mutant misaligned_bits(const Plan& p0) {
  Plan p = p0;
  const std::size_t i = any_tensor(p);
  TensorEntry& t = p.tensors[i];
  t.dtype = *element(Dtype::F4, Dtype::F6_E2M3, Dtype::F6_E3M2);
  const std::uint64_t unit = t.dtype == Dtype::F4 ? 2 : 4;
  const std::uint64_t n = *inRange<std::uint64_t>(0, 10) * unit + *inRange<std::uint64_t>(1, unit);
  using V = std::vector<std::uint64_t>;
  t.shape = *element(V{n}, V{1, n}, V{n, 1});
  if (n == 1 && *rc::gen::arbitrary<bool>()) t.shape = {};  // a scalar: one element
  return done(p, std::string(dtype_name(t.dtype)) + " " + shape_text(t.shape) + " for " + name_of(p, i));
}

Mutant size_mismatch(const Plan& p0) {
  Plan p = p0;
  const std::size_t i = any_tensor(p);
  TensorEntry& t = p.tensors[i];
  std::uint64_t n = 1;
  for (std::uint64_t d : t.shape) n *= d;
  const int kind = *inRange(0, 2);
  if (kind == 0 && n > 0 && dtype_bits(t.dtype) < 64) {  // a wider dtype
    std::vector<Dtype> wider;
    for (const DtypeInfo& info : dtype_table())
      if (info.bits > dtype_bits(t.dtype) && n * info.bits % 8 == 0) wider.push_back(info.dtype);
    t.dtype = *rc::gen::elementOf(wider);
    return done(p, "dtype := " + std::string(dtype_name(t.dtype)) + " for " + name_of(p, i));
  }
  // Another element count with a whole number of bytes.
  const std::uint64_t unit = dtype_bits(t.dtype) == 4 ? 2 : dtype_bits(t.dtype) == 6 ? 4 : 1;
  std::uint64_t count = *inRange<std::uint64_t>(0, 12) * unit;
  if (count * dtype_bits(t.dtype) / 8 == span(t)) count += unit;
  using V = std::vector<std::uint64_t>;
  t.shape = *element(V{count}, V{1, count}, V{count, 1});
  return done(p, "shape := " + shape_text(t.shape) + " for " + name_of(p, i));
}

Mutant buffer_trailing(const Plan& p0) {
  Plan p = p0;
  const std::size_t k = *inRange<std::size_t>(1, 40);
  for (std::size_t j = 0; j < k; ++j) p.data.push_back(static_cast<std::uint8_t>('a' + j % 26));
  return done(p, std::to_string(k) + " trailing bytes");
}

Mutant buffer_truncated(const Plan& p0) {
  Plan p = p0;
  if (p.data.empty()) append_u8(p, *inRange<std::uint64_t>(1, 9));
  const std::size_t k = *inRange<std::size_t>(1, p.data.size() + 1);
  p.data.resize(p.data.size() - k);
  return done(p, "dropped the last " + std::to_string(k) + " bytes");
}

// ---------------------------------------------------------------------------
// X3: strict-only errors

// A tensor entry the reference parses (F6) and then discards for a later one.
std::string decoy_value() {
  const Dtype d = *dtype();
  const std::uint64_t n = *inRange<std::uint64_t>(0, 9);
  const std::uint64_t begin = *inRange<std::uint64_t>(0, 100);
  const std::uint64_t end = *inRange<std::uint64_t>(0, 100);
  return object_text(tensor_fields(entry("", d, {n}, begin, end)));
}

Mutant duplicate_tensor(const Plan& p0) {
  Plan p = p0;
  const std::size_t i = any_tensor(p);
  Layout l = layout_of(p);
  const std::size_t m = tensor_member(p, i);
  const Member original = l.members[m];
  if (*rc::gen::arbitrary<bool>()) {  // the same member again, later
    l.members.insert(l.members.begin() + static_cast<std::ptrdiff_t>(m + 1 + pick(l.members.size() - m)), original);
    return done(l, name_of(p, i) + " twice with the same entry");
  }
  // a decoy first, the real entry last (last wins)
  l.members.insert(l.members.begin() + static_cast<std::ptrdiff_t>(pick(m + 1)), Member{original.key, decoy_value()});
  return done(l, name_of(p, i) + " after a decoy entry of the same name");
}

Mutant duplicate_tensor_escaped(const Plan& p0) {
  Plan p = p0;
  std::vector<std::pair<std::size_t, std::string>> named;  // tensors with a second spelling
  for (std::size_t j = 0; j < p.tensors.size(); ++j)
    if (auto s = escaped_spelling(p.tensors[j].name)) named.emplace_back(j, *s);
  if (named.empty()) {
    const std::size_t j = append_u8(p, *inRange<std::uint64_t>(0, 5), "t");
    named.emplace_back(j, *escaped_spelling(p.tensors[j].name));
  }
  const auto [i, spelling] = named[pick(named.size())];
  Layout l = layout_of(p);
  const std::size_t m = tensor_member(p, i);
  if (*rc::gen::arbitrary<bool>()) {
    l.members.insert(l.members.begin() + static_cast<std::ptrdiff_t>(m + 1 + pick(l.members.size() - m)),
                     Member{spelling, l.members[m].value});
  } else {
    l.members.insert(l.members.begin() + static_cast<std::ptrdiff_t>(pick(m + 1)), Member{spelling, decoy_value()});
  }
  return done(l, name_of(p, i) + " again spelled " + escaped_text(spelling));
}

Mutant duplicate_metadata_key(const Plan& p0) {
  Plan p = p0;
  if (p.metadata_state != MetadataState::Present) p.metadata_state = MetadataState::Present;
  if (p.metadata.empty()) p.metadata.emplace_back(*utf8_text(), *utf8_text());
  Layout l = layout_of(p);
  std::vector<Member> members;
  for (const auto& [k, v] : p.metadata) members.push_back({json_string(k), json_string(v)});
  const std::size_t j = pick(members.size());
  const auto other = escaped_spelling(p.metadata[j].first);
  const std::string key = *rc::gen::arbitrary<bool>() || !other ? members[j].key : *other;
  members.insert(members.begin() + static_cast<std::ptrdiff_t>(pick(members.size() + 1)),
                 Member{key, json_string(*utf8_text())});
  l.members[0].value = object_text(members);
  return done(l, "metadata key '" + escaped_text(p.metadata[j].first) + "' twice");
}

// ---------------------------------------------------------------------------
// Strict warnings

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

Mutant metadata_null(const Plan& p0) {
  Plan p = p0;
  p.metadata_state = MetadataState::Null;
  p.metadata.clear();
  return done(p, "__metadata__ := null");
}

Mutant unknown_field(const Plan& p0) {
  Plan p = p0;
  const std::size_t i = any_tensor(p);
  auto fields = tensor_fields(p.tensors[i]);
  std::string key = json_string(*utf8_text());
  if (key == "\"dtype\"" || key == "\"shape\"" || key == "\"data_offsets\"") key = "\"x\"";
  // The entry object is depth 2; a value nested k deep reaches 2 + k <= 127.
  const std::string value = *rc::gen::weightedOneOf<std::string>({
      {4, json_value(3, true)},
      {1, rc::gen::map(inRange(100, 126), [](int k) { return nested_value(k, k % 2 == 0, "0"); })},
      {1, rc::gen::just(nested_value(125, true, "0"))},  // exactly 127 deep: the most serde_json reads
  });
  fields.insert(fields.begin() + static_cast<std::ptrdiff_t>(pick(fields.size() + 1)), Member{key, value});
  return with_fields(p, i, fields, "unknown field " + escaped_text(key));
}

Mutant tensor_unaligned(const Plan& p0) {
  Plan p = p0;
  const Dtype d = *element(Dtype::I16, Dtype::F16, Dtype::BF16, Dtype::F32, Dtype::I32, Dtype::F64, Dtype::C64,
                           Dtype::U64);
  const std::uint64_t size = dtype_element_bytes(d);
  if (p.data.size() % size == 0) append_u8(p, 1, "pad");
  const std::uint64_t count = *inRange<std::uint64_t>(1, 5);
  const std::uint64_t begin = p.data.size();
  for (std::uint64_t k = 0; k < count * size; ++k) p.data.push_back(static_cast<std::uint8_t>(k));
  p.tensors.push_back(entry(fresh_name(p, "unaligned"), d, {count}, begin, begin + count * size));
  return done(p, std::string(dtype_name(d)) + " at data offset " + std::to_string(begin));
}

using enum RuleId;
constexpr std::array kCatalogue{
    Mutation{"prefix-truncated", FileTooSmall, Expect::ParseError, prefix_truncated},
    Mutation{"length-above-cap", HeaderTooLarge, Expect::ParseError, length_above_cap},
    Mutation{"length-past-end", HeaderLength, Expect::ParseError, length_past_end},
    Mutation{"invalid-utf8", HeaderUtf8, Expect::ParseError, invalid_utf8},
    Mutation{"trailing-junk", JsonSyntax, Expect::ParseError, trailing_junk},
    Mutation{"leading-junk", JsonSyntax, Expect::ParseError, leading_junk},
    Mutation{"broken-syntax", JsonSyntax, Expect::ParseError, broken_syntax},
    Mutation{"depth-exceeded", JsonDepth, Expect::ParseError, depth_exceeded},
    Mutation{"not-object", JsonNotObject, Expect::ParseError, not_object},
    Mutation{"metadata-twice", MetadataDuplicate, Expect::ParseError, metadata_twice},
    Mutation{"metadata-type", MetadataType, Expect::ParseError, metadata_type},
    Mutation{"tensor-not-object", TensorNotObject, Expect::ParseError, tensor_not_object},
    Mutation{"field-missing", TensorFieldMissing, Expect::ParseError, field_missing},
    Mutation{"field-duplicate", TensorFieldDuplicate, Expect::ParseError, field_duplicate},
    Mutation{"dtype-unknown", DtypeUnknown, Expect::ParseError, dtype_unknown},
    Mutation{"shape-type", ShapeType, Expect::ParseError, shape_type},
    Mutation{"offsets-type", OffsetsType, Expect::ParseError, offsets_type},
    Mutation{"offset-gap", OffsetGap, Expect::Error, offset_gap},
    Mutation{"offset-overlap", OffsetOverlap, Expect::Error, offset_overlap},
    Mutation{"offset-reversed", OffsetReversed, Expect::Error, offset_reversed},
    Mutation{"shape-overflow", ShapeOverflow, Expect::Error, shape_overflow},
    Mutation{"nbits-overflow", NbitsOverflow, Expect::Error, nbits_overflow},
    Mutation{"misaligned-bits", MisalignedBits, Expect::Error, misaligned_bits},
    Mutation{"size-mismatch", SizeMismatch, Expect::Error, size_mismatch},
    Mutation{"buffer-trailing", BufferTrailing, Expect::Error, buffer_trailing},
    Mutation{"buffer-truncated", BufferTruncated, Expect::Error, buffer_truncated},
    Mutation{"duplicate-tensor", DuplicateTensor, Expect::Error, duplicate_tensor},
    Mutation{"duplicate-tensor-escaped", DuplicateTensorEscaped, Expect::Error, duplicate_tensor_escaped},
    Mutation{"duplicate-metadata-key", DuplicateMetadataKey, Expect::Error, duplicate_metadata_key},
    Mutation{"leading-space", HeaderLeadingSpace, Expect::Warning, leading_space},
    Mutation{"header-unaligned", HeaderUnaligned, Expect::Warning, header_unaligned},
    Mutation{"metadata-null", MetadataNull, Expect::Warning, metadata_null},
    Mutation{"unknown-field", TensorUnknownField, Expect::Warning, unknown_field},
    Mutation{"tensor-unaligned", TensorUnaligned, Expect::Warning, tensor_unaligned},
};

}  // namespace

std::span<const Mutation> mutation_catalogue() { return kCatalogue; }

Layout decorated(const Plan& valid) {
  Plan p = valid;
  if (*inRange(0, 4) == 0 && p.metadata_state == MetadataState::Absent) p.metadata_state = MetadataState::Null;
  Layout l = layout_of(p);
  if (*rc::gen::arbitrary<bool>()) l.leading = *element<std::string>(" ", "\n", "\t\r\n ", "        ");
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    if (*inRange(0, 3) != 0) continue;
    auto fields = tensor_fields(p.tensors[i]);
    std::string key = json_string(*utf8_text());
    if (key == "\"dtype\"" || key == "\"shape\"" || key == "\"data_offsets\"") key = "\"x\"";
    fields.insert(fields.begin() + static_cast<std::ptrdiff_t>(pick(4)), Member{key, *json_value(2, true)});
    l.members[tensor_member(p, i)].value = object_text(fields);
  }
  if (!p.tensors.empty() && *inRange(0, 4) == 0) {  // a duplicate whose survivor tiles
    const std::size_t m = tensor_member(p, pick(p.tensors.size()));
    l.members.insert(l.members.begin() + static_cast<std::ptrdiff_t>(pick(m + 1)),
                     Member{l.members[m].key, decoy_value()});
  }
  if (*inRange(0, 3) == 0) {
    l.padding = std::string();
    const std::size_t pad = *inRange<std::size_t>(0, 12);
    for (std::size_t k = 0; k < pad; ++k) *l.padding += *element(' ', '\t', '\n', '\r');
  }
  return l;
}

}  // namespace safespec::gen
