#include "spec/reference/hash_metadata.hpp"

#include <algorithm>
#include <iterator>
#include <unordered_map>

#include "spec/reference/rust_text.hpp"

namespace safespec::reference {

namespace {

// serde's Content, as its visitor builds it from serde_json (a JSON value,
// already checked by JsonReader::skip_any when it is rebuilt here).
struct Content {
  enum class Kind : unsigned char { Unit, Bool, Number, Str, Seq, Map } kind = Kind::Unit;
  bool boolean = false;
  JsonNumber number;
  std::string str;
  std::vector<Content> items;  // Seq: elements; Map: key, value, key, value, ...
};

// TensorInfo's fields, in its declaration order (serde's field indexes).
constexpr std::string_view kFieldNames[3] = {"dtype", "shape", "data_offsets"};

// Rebuilds a value that skip_any accepted; cannot fail. With `struct_fields`,
// a map keeps only TensorInfo's fields: serde ignores any other key's value
// (to_tensor_info never reads one), and a tensor entry of a million unknown
// fields built each as a Content took 200 MB and most of a check's time.
Content build(JsonReader& r, bool struct_fields = false) {
  Content c;
  const int p = r.parse_whitespace();
  if (p == 'n' || p == 't' || p == 'f') {
    r.eat();
    (void)r.parse_ident(p == 'n' ? "ull" : p == 't' ? "rue" : "alse");
    c.kind = p == 'n' ? Content::Kind::Unit : Content::Kind::Bool;
    c.boolean = p == 't';
  } else if (p == '"') {
    r.eat();
    c.kind = Content::Kind::Str;
    c.str = std::move(r.parse_str()).value();
  } else if (p == '[' || p == '{') {
    r.eat();
    c.kind = p == '[' ? Content::Kind::Seq : Content::Kind::Map;
    bool first = true;
    while (p == '[' ? r.has_next_element(first).value() : r.has_next_key(first).value()) {
      if (p == '{') {
        r.eat();
        Content key;
        key.kind = Content::Kind::Str;
        key.str = std::move(r.parse_str()).value();
        (void)r.parse_object_colon();
        if (struct_fields && std::find(std::begin(kFieldNames), std::end(kFieldNames), key.str) == std::end(kFieldNames)) {
          (void)r.skip_any();
          continue;
        }
        c.items.push_back(std::move(key));
      }
      c.items.push_back(build(r));
    }
    r.eat();  // the closing bracket
  } else {
    if (p == '-') r.eat();
    c.kind = Content::Kind::Number;
    c.number = r.parse_any_number(p != '-').value();
  }
  return c;
}

// serde's Unexpected for a Content, as serde_json prints it.
std::string unexpected(const Content& c) {
  switch (c.kind) {
    case Content::Kind::Unit: return "null";
    case Content::Kind::Bool: return c.boolean ? "boolean `true`" : "boolean `false`";
    case Content::Kind::Number: return unexpected_number(c.number);
    case Content::Kind::Str: return "string " + rust_str_debug(c.str);
    case Content::Kind::Seq: return "sequence";
    case Content::Kind::Map: break;
  }
  return "map";
}

SerdeError custom(std::string message) { return SerdeError{std::move(message), 0, 0}; }

SerdeError invalid_length(std::size_t n, std::string_view expected) {
  return custom("invalid length " + std::to_string(n) + ", expected " + std::string(expected));
}

std::string in_sequence(std::size_t n) { return n == 1 ? "1 element in sequence" : std::to_string(n) + " elements in sequence"; }

SerdeResult<std::uint64_t> to_usize(const Content& c) {
  if (c.kind == Content::Kind::Number && c.number.kind == JsonNumber::Kind::U64) return c.number.u;
  if (c.kind == Content::Kind::Number && c.number.kind == JsonNumber::Kind::I64)
    return custom("invalid value: " + unexpected(c) + ", expected usize");  // always negative
  return invalid_type(unexpected(c), "usize");
}

// ContentRefDeserializer::deserialize_enum, then the derived Dtype visitor.
SerdeStatus to_dtype(const Content& c, TensorInfo& t) {
  const Content* variant = &c;
  const Content* value = nullptr;
  if (c.kind == Content::Kind::Map) {
    if (c.items.size() != 2) return custom("invalid value: map, expected map with a single key");
    variant = &c.items[0];
    value = &c.items[1];
    t.dtype_map_form = true;
  } else if (c.kind != Content::Kind::Str) {
    return invalid_type(unexpected(c), "string or map");
  }
  const auto d = dtype_from_name(variant->str);
  if (!d) {
    std::string names;
    for (const DtypeInfo& info : dtype_table()) names += (names.empty() ? "`" : ", `") + std::string(info.name) + "`";
    return custom("unknown variant `" + variant->str + "`, expected one of " + names);
  }
  if (value && value->kind != Content::Kind::Unit) return invalid_type(unexpected(*value), "unit");
  t.dtype = *d;
  return serde_ok();
}

SerdeStatus to_shape(const Content& c, TensorInfo& t) {
  if (c.kind != Content::Kind::Seq) return invalid_type(unexpected(c), "a sequence");
  for (const Content& e : c.items) {
    auto v = to_usize(e);
    if (!v) return v.error();
    t.shape.push_back(v.value());
  }
  return serde_ok();
}

SerdeStatus to_offsets(const Content& c, TensorInfo& t) {
  constexpr std::string_view kTuple = "a tuple of size 2";
  if (c.kind != Content::Kind::Seq) return invalid_type(unexpected(c), kTuple);
  const std::size_t n = c.items.size();
  std::uint64_t* slots[2] = {&t.begin, &t.end};
  for (std::size_t i = 0; i < 2; ++i) {
    if (n <= i) return invalid_length(i, kTuple);
    auto v = to_usize(c.items[i]);
    if (!v) return v.error();
    *slots[i] = v.value();
  }
  if (n > 2) return invalid_length(n, in_sequence(2));
  return serde_ok();
}

using FieldReader = SerdeStatus (*)(const Content&, TensorInfo&);
constexpr FieldReader kFieldReaders[3] = {to_dtype, to_shape, to_offsets};

// ContentRefDeserializer::deserialize_struct and the derived TensorInfo visitor.
SerdeStatus to_tensor_info(const Content& c, TensorInfo& t) {
  if (c.kind == Content::Kind::Seq) {
    t.array_form = true;
    for (std::size_t i = 0; i < 3; ++i) {
      if (c.items.size() <= i) return invalid_length(i, "struct TensorInfo with 3 elements");
      if (auto e = kFieldReaders[i](c.items[i], t); !e) return e;
    }
    if (c.items.size() > 3) return invalid_length(c.items.size(), in_sequence(3));
    return serde_ok();
  }
  if (c.kind != Content::Kind::Map) return invalid_type(unexpected(c), "struct TensorInfo");
  bool seen[3] = {false, false, false};
  for (std::size_t k = 0; k + 1 < c.items.size(); k += 2) {
    for (std::size_t f = 0; f < 3; ++f) {
      if (c.items[k].str != kFieldNames[f]) continue;
      if (seen[f]) return custom("duplicate field `" + std::string(kFieldNames[f]) + "`");
      seen[f] = true;
      if (auto e = kFieldReaders[f](c.items[k + 1], t); !e) return e;
    }
  }
  for (std::size_t f = 0; f < 3; ++f)
    if (!seen[f]) return custom("missing field `" + std::string(kFieldNames[f]) + "`");
  return serde_ok();
}

// Where a tensor member's key and value begin in the header text: 16 bytes
// a member, so a million tensors cost 16 MB before they are typed.
struct Member {
  std::size_t key_begin;  // after the opening quote
  std::size_t value_begin;
};

// Option<HashMap<String, String>> straight from the reader.
SerdeStatus read_metadata_value(JsonReader& r, HashMetadata& out) {
  if (r.parse_whitespace() == 'n') {
    r.eat();
    return r.parse_ident("ull");
  }
  const int p = r.parse_whitespace();
  if (p < 0) return r.peek_error("EOF while parsing a value");
  if (p != '{') return r.peek_invalid_type("a map");
  if (!r.enter()) return r.peek_error("recursion limit exceeded");
  r.eat();
  std::vector<std::pair<std::string, std::string>> map;
  std::unordered_map<std::string, std::size_t> slot;
  const SerdeStatus inner = [&]() -> SerdeStatus {
    bool first = true;
    for (;;) {
      auto more = r.has_next_key(first);
      if (!more) return more.error();
      if (!more.value()) return serde_ok();
      r.eat();
      auto key = r.parse_str();
      if (!key) return key.error();
      if (auto e = r.parse_object_colon(); !e) return e;
      const int v = r.parse_whitespace();
      if (v < 0) return r.peek_error("EOF while parsing a value");
      if (v != '"') return r.peek_invalid_type("a string");
      r.eat();
      auto value = r.parse_str();
      if (!value) return value.error();
      const auto [it, fresh] = slot.emplace(key.value(), map.size());
      if (fresh) map.emplace_back(std::move(key).value(), std::move(value).value());
      else map[it->second].second = std::move(value).value();
    }
  }();
  r.leave();
  const SerdeStatus close = r.end_map();
  if (!inner) return r.fix_position(inner.error());
  if (!close) return close;
  out.metadata = std::move(map);
  return serde_ok();
}

// The derived visit_map of HashMetadata, with its flatten step at the end.
SerdeStatus visit(JsonReader& r, HashMetadata& out, std::string_view header, bool keep_model) {
  bool first = true;
  bool metadata_seen = false;
  std::vector<Member> members;
  for (;;) {
    auto more = r.has_next_key(first);
    if (!more) return more.error();
    if (!more.value()) break;
    r.eat();
    const std::size_t key_begin = r.index();
    auto key = r.parse_str();
    if (!key) return key.error();
    if (key.value() == "__metadata__") {
      if (metadata_seen) return custom("duplicate field `__metadata__`");
      metadata_seen = true;
      if (auto e = r.parse_object_colon(); !e) return e;
      if (auto e = read_metadata_value(r, out); !e) return e;
      continue;
    }
    if (auto e = r.parse_object_colon(); !e) return e;
    r.parse_whitespace();
    members.push_back(Member{key_begin, r.index()});
    if (auto e = r.skip_any(); !e) return e;
  }
  // FlatMapDeserializer into HashMap<String, TensorInfo>: document order,
  // each value deserialized, the last of a repeated name kept.
  const std::size_t resume = r.index();
  std::unordered_map<std::string_view, std::size_t> slot;
  slot.reserve(members.size());
  for (const Member& m : members) {
    JsonReader at(header);
    at.seek(m.key_begin);
    std::string decoded = std::move(at.parse_str()).value();
    const std::size_t raw_length = at.index() - 1 - m.key_begin;
    std::string_view name = header.substr(m.key_begin, raw_length);
    if (name != decoded) name = out.escaped_names.emplace_back(std::move(decoded));
    at.seek(m.value_begin);
    const Content c = build(at, true);
    TensorInfo t;
    if (auto e = to_tensor_info(c, t); !e) return e;
    t.name_view = name;
    t.size_status = size_status(t.shape, t.dtype, t.begin, t.end);
    if (keep_model) t.name = std::string(name);
    else t.shape = {};
    const auto [it, fresh] = slot.emplace(name, out.tensors.size());
    if (fresh) out.tensors.push_back(std::move(t));
    else out.tensors[it->second] = std::move(t);
  }
  std::vector<Member>().swap(members);
  r.seek(resume);
  return serde_ok();
}

}  // namespace

std::uint8_t size_status(std::span<const std::uint64_t> shape, Dtype dtype, std::uint64_t begin, std::uint64_t end) {
  std::uint64_t n = 1;
  for (const std::uint64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n)) return 1;
  std::uint64_t bits = 0;
  if (__builtin_mul_overflow(n, std::uint64_t{dtype_bits(dtype)}, &bits)) return 1;
  if (bits % 8 != 0) return 2;
  return end - begin != bits / 8 ? 3 : 0;
}

SerdeResult<HashMetadata> deserialize_hash_metadata(std::string_view header, bool keep_model) {
  JsonReader r(header);
  const int p = r.parse_whitespace();
  if (p < 0) return r.peek_error("EOF while parsing a value");
  if (p != '{') return r.peek_invalid_type("struct HashMetadata");
  (void)r.enter();  // 127 left: the top level cannot exceed the limit
  r.eat();
  HashMetadata out;
  const SerdeStatus inner = visit(r, out, header, keep_model);
  r.leave();
  const SerdeStatus close = r.end_map();  // runs even after an error: it moves the place a serde error is given
  if (!inner) return r.fix_position(inner.error());
  if (!close) return close.error();
  if (auto e = r.end(); !e) return e.error();
  return out;
}

}  // namespace safespec::reference
