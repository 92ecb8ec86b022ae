#include "src/fast_header.hpp"

#include <simdjson.h>

#include <optional>

#include "spec/header_reader.hpp"
#include "spec/json_text.hpp"
#include "spec/name_index.hpp"

namespace safespec {

namespace dom = simdjson::dom;

std::size_t fast_parser_padding() { return simdjson::SIMDJSON_PADDING; }

struct FastHeaderParser::Impl {
  dom::parser parser;
  bool ready = false;  // depth limit set; without it the fast path is off
  NameIndex names;
};

namespace {

// The DOM stores "-0" as the integer 0; only the reference reader sees the
// difference (F6.15: serde_json reads -0 as a float). Any "-0" in the text, in
// a date inside a metadata string for instance, sends it there.
bool has_negative_zero_token(std::string_view text) {
  return text.find("-0") != std::string_view::npos;
}

std::optional<std::uint64_t> as_u64(dom::element e) {
  switch (e.type()) {
    case dom::element_type::UINT64: return e.get_uint64().value_unsafe();
    case dom::element_type::INT64: {
      const std::int64_t v = e.get_int64().value_unsafe();
      if (v < 0) return std::nullopt;
      return static_cast<std::uint64_t>(v);
    }
    default: return std::nullopt;
  }
}

// Fills `t` from a tensor object; nullopt means "not plainly valid: ask the
// reference reader".
bool read_tensor(dom::object obj, TensorEntry& t) {
  bool has_dtype = false, has_shape = false, has_offsets = false;
  for (dom::key_value_pair field : obj) {
    const std::string_view key = field.key;
    if (key == "dtype") {
      if (has_dtype || field.value.type() != dom::element_type::STRING) return false;
      has_dtype = true;
      const auto d = dtype_from_name(field.value.get_string().value_unsafe());
      if (!d) return false;
      t.dtype = *d;
    } else if (key == "shape") {
      if (has_shape || field.value.type() != dom::element_type::ARRAY) return false;
      has_shape = true;
      const dom::array dims = field.value.get_array().value_unsafe();
      t.shape.reserve(dims.size());
      for (dom::element dim : dims) {
        const auto v = as_u64(dim);
        if (!v) return false;
        t.shape.push_back(*v);
      }
    } else if (key == "data_offsets") {
      if (has_offsets || field.value.type() != dom::element_type::ARRAY) return false;
      has_offsets = true;
      const dom::array offsets = field.value.get_array().value_unsafe();
      if (offsets.size() != 2) return false;
      auto it = offsets.begin();
      const auto begin = as_u64(*it);
      ++it;
      const auto end = as_u64(*it);
      if (!begin || !end) return false;
      t.begin = *begin;
      t.end = *end;
    } else {
      return false;  // unknown field: the reference reader checks what is inside (X3)
    }
  }
  return has_dtype && has_shape && has_offsets;
}

bool read_metadata(dom::element value, Header& h) {
  if (value.type() == dom::element_type::NULL_VALUE) {
    h.metadata_state = MetadataState::Null;
    return true;
  }
  if (value.type() != dom::element_type::OBJECT) return false;
  h.metadata_state = MetadataState::Present;
  const dom::object obj = value.get_object().value_unsafe();
  for (dom::key_value_pair kv : obj) {
    if (kv.value.type() != dom::element_type::STRING) return false;
    h.metadata.emplace_back(std::string(kv.key), std::string(kv.value.get_string().value_unsafe()));
  }
  NameIndex keys;  // a repeated key is the reference reader's to record
  const auto key_at = [&](std::size_t i) -> std::string_view { return h.metadata[i].first; };
  return keys.first_duplicate(h.metadata.size(), key_at) == NameIndex::npos;
}

std::optional<Header> try_fast(dom::parser& parser, NameIndex& names,
                               std::string_view text) {
  if (has_negative_zero_token(text)) return std::nullopt;
  // simdjson validates UTF-8 itself (F5); invalid text fails here and the
  // reference reader reports the exact byte.
  dom::element root;
  if (parser.parse(text.data(), text.size(), false).get(root) != simdjson::SUCCESS) return std::nullopt;
  if (root.type() != dom::element_type::OBJECT) return std::nullopt;
  const dom::object top = root.get_object().value_unsafe();

  Header h;
  while (h.leading_whitespace < text.size() && is_json_space(text[h.leading_whitespace])) ++h.leading_whitespace;
  const std::size_t count = top.size();
  h.tensors.reserve(count);
  bool metadata_seen = false;
  for (dom::key_value_pair member : top) {
    if (member.key == "__metadata__") {
      if (metadata_seen || !read_metadata(member.value, h)) return std::nullopt;
      metadata_seen = true;
      continue;
    }
    if (member.value.type() != dom::element_type::OBJECT) return std::nullopt;
    if (h.tensors.size() >= 0xFFFFFFFFu) return std::nullopt;
    TensorEntry& t = h.tensors.emplace_back();
    t.name.assign(member.key);
    if (!read_tensor(member.value.get_object().value_unsafe(), t)) return std::nullopt;
  }
  const auto name_at = [&](std::size_t i) -> std::string_view { return h.tensors[i].name; };
  if (names.first_duplicate(h.tensors.size(), name_at) != NameIndex::npos) return std::nullopt;
  return h;
}

}  // namespace

FastHeaderParser::FastHeaderParser() : impl_(std::make_unique<Impl>()) {
  // simdjson's depth limit is kept at the reference's: deeper texts fail here
  // and the reference reader reports ST-JSON-DEPTH at the exact byte.
  impl_->ready = impl_->parser.allocate(4096, kMaxJsonDepth) == simdjson::SUCCESS;
}

FastHeaderParser::~FastHeaderParser() = default;

Result<Header> FastHeaderParser::parse(std::string_view text, std::uint64_t base) {
  last_fast_ = false;
  if (impl_->ready && text.size() <= kFastParserMaxHeader) {
    if (auto h = try_fast(impl_->parser, impl_->names, text)) {
      last_fast_ = true;
      return std::move(*h);
    }
  }
  return read_header_reference(text, base);
}

}  // namespace safespec
