#include "spec/header_reader.hpp"

#include <array>
#include <string>
#include <unordered_map>

#include "spec/ignored_value.hpp"
#include "spec/json_text.hpp"
#include "spec/name_index.hpp"
#include "spec/quote.hpp"
#include "spec/utf8.hpp"

namespace safespec {

namespace {

enum class Field : unsigned char { Dtype, Shape, DataOffsets, Unknown };
constexpr std::array<std::string_view, 3> kFieldNames{"dtype", "shape", "data_offsets"};

Field field_of(std::string_view key) {
  for (std::size_t i = 0; i < kFieldNames.size(); ++i)
    if (key == kFieldNames[i]) return static_cast<Field>(i);
  return Field::Unknown;
}

std::string hex_byte(unsigned char c) {
  static const char* kHex = "0123456789abcdef";
  return std::string("0x") + kHex[c >> 4] + kHex[c & 15];
}

// Keys seen so far at one level, for the reference's last-wins collapse:
// where each survivor lives, and the raw spelling of first occurrences that
// used escapes (a key without escapes is spelled as it decodes, so only the
// rare escaped ones need remembering).
struct KeyIndex {
  NameIndex index;
  std::unordered_map<std::size_t, std::string_view> escaped_raw;  // slot -> view into the header text

  bool same_spelling(std::size_t earlier, std::string_view raw) const {
    const auto it = escaped_raw.find(earlier);
    const bool now_escaped = raw.find('\\') != std::string_view::npos;
    if (it == escaped_raw.end()) return !now_escaped;
    return it->second == raw;
  }
};

class ModelReader {
 public:
  explicit ModelReader(std::string_view text) : c_(text) {}

  Result<Header> run() {
    c_.skip_space();
    h_.leading_whitespace = c_.pos();
    if (c_.peek() != JsonKind::Object)
      return Error{RuleId::JsonNotObject, Place::header(),
                   "expected the header to be a JSON object, found " + std::string(json_kind_phrase(c_.peek()))};
    const std::size_t members = count_members();
    h_.tensors.reserve(members);
    tensors_.index.reset(members);
    c_.try_consume('{');
    if (!c_.try_consume('}')) {
      do {
        const std::string_view raw = c_.read_raw_string();
        std::string key = JsonCursor::decode_string(raw);
        c_.try_consume(':');
        Status s = key == "__metadata__" ? metadata() : tensor(std::move(key), raw);
        if (!s) return s.error();
      } while (c_.try_consume(','));
    }
    return std::move(h_);
  }

 private:
  JsonCursor c_;
  Header h_;
  bool metadata_seen_ = false;
  KeyIndex tensors_, metadata_keys_;

  std::string kind_phrase() const { return std::string(json_kind_phrase(c_.peek())); }

  // Top-level members, so the tensor list is allocated once: a growing
  // vector would briefly hold 1.5x its size, which a 100 MB header cannot
  // afford under the 3 x N memory bound.
  std::size_t count_members() const {
    JsonCursor c = c_;
    std::size_t n = 0;
    c.try_consume('{');
    if (c.try_consume('}')) return 0;
    do {
      c.read_raw_string();
      c.try_consume(':');
      c.skip_value();
      ++n;
    } while (c.try_consume(','));
    return n;
  }

  Status metadata() {
    if (metadata_seen_)
      return Error{RuleId::MetadataDuplicate, Place::metadata(),
                   "expected the key __metadata__ at most once, found it a second time"};
    metadata_seen_ = true;
    const JsonKind kind = c_.peek();
    if (kind == JsonKind::Null) {
      h_.metadata_state = MetadataState::Null;
      c_.skip_value();
      return ok_status();
    }
    if (kind != JsonKind::Object)
      return Error{RuleId::MetadataType, Place::metadata(),
                   "expected __metadata__ to be an object of strings or null, found " + kind_phrase()};
    h_.metadata_state = MetadataState::Present;
    c_.try_consume('{');
    if (c_.try_consume('}')) return ok_status();
    do {
      const std::string_view raw = c_.read_raw_string();
      std::string key = JsonCursor::decode_string(raw);
      c_.try_consume(':');
      if (c_.peek() != JsonKind::String)
        return Error{RuleId::MetadataType, Place::metadata_key(key),
                     "expected a string value, found " + kind_phrase()};
      std::string value = c_.read_string();
      insert(metadata_keys_, DuplicateKind::MetadataKey, raw, key, h_.metadata,
             std::pair<std::string, std::string>{key, std::move(value)},
             [](const std::pair<std::string, std::string>& kv) -> std::string_view { return kv.first; });
    } while (c_.try_consume(','));
    c_.try_consume('}');
    return ok_status();
  }

  // The survivor keeps the first occurrence's slot and takes the last value.
  template <class T, class NameOf>
  void insert(KeyIndex& keys, DuplicateKind kind, std::string_view raw, const std::string& key,
              std::vector<T>& slots, T value, const NameOf& name_of) {
    const auto name_at = [&](std::size_t i) -> std::string_view { return name_of(slots[i]); };
    const std::size_t earlier = keys.index.find_or_insert(key, slots.size(), name_at);
    if (earlier == NameIndex::npos) {
      if (raw.find('\\') != std::string_view::npos) keys.escaped_raw.emplace(slots.size(), raw);
      slots.push_back(std::move(value));
      return;
    }
    record_capped(h_.duplicates, h_.duplicates_unlisted, DuplicateKey{kind, key, keys.same_spelling(earlier, raw)});
    slots[earlier] = std::move(value);
  }

  Status tensor(std::string name, std::string_view raw) {
    // The place is spelled only when a finding needs it: a 50 MB name would
    // otherwise cost two more copies of itself (corpus/adversarial).
    const auto where = [&name] { return Place::tensor(name); };
    if (c_.peek() != JsonKind::Object)
      return Error{RuleId::TensorNotObject, where(),
                   "expected a tensor entry object with dtype, shape and data_offsets, found " + kind_phrase()};
    TensorEntry t;
    std::array<bool, 3> has{};
    std::unordered_map<std::string, std::string> unknown_seen;  // decoded field -> raw spelling
    const auto report_nested = [this](const Place& at, bool same) {
      const std::string& key = at.path.empty() ? at.field : std::get<std::string>(at.path.back());
      record_capped(h_.duplicates, h_.duplicates_unlisted, DuplicateKey{DuplicateKind::Nested, key, same, at});
    };
    c_.try_consume('{');
    if (!c_.try_consume('}')) {
      do {
        const std::string_view raw_key = c_.read_raw_string();
        std::string key = JsonCursor::decode_string(raw_key);
        c_.try_consume(':');
        const Field f = field_of(key);
        if (f == Field::Unknown) {
          Place at = Place::tensor_field(name, key);
          if (const auto it = unknown_seen.find(key); it != unknown_seen.end())
            report_nested(at, it->second == raw_key);
          else if (unknown_seen.size() < kMaxKeysChecked)
            unknown_seen.emplace(key, std::string(raw_key));
          record_capped(h_.unknown_fields, h_.unknown_fields_unlisted, UnknownField{name, std::move(key)});
          scan_ignored_value(c_, at, report_nested);
          continue;
        }
        auto& seen = has[static_cast<std::size_t>(f)];
        if (seen)
          return Error{RuleId::TensorFieldDuplicate, where(),
                       "expected the field " + key + " once, found it a second time"};
        seen = true;
        Status s = f == Field::Dtype ? dtype(t, name) : f == Field::Shape ? shape(t, name) : offsets(t, name);
        if (!s) return s;
      } while (c_.try_consume(','));
      c_.try_consume('}');
    }
    for (std::size_t i = 0; i < has.size(); ++i)
      if (!has[i])
        return Error{RuleId::TensorFieldMissing, where(),
                     "expected the field " + std::string(kFieldNames[i]) + ", found no such field"};
    t.name = name;
    insert(tensors_, DuplicateKind::Tensor, raw, name, h_.tensors, std::move(t),
           [](const TensorEntry& e) -> std::string_view { return e.name; });
    return ok_status();
  }

  Status dtype(TensorEntry& t, std::string_view tensor) {
    const std::string expected = "expected dtype to be one of " + std::string(dtype_name_list()) + ", found ";
    if (c_.peek() != JsonKind::String) return Error{RuleId::DtypeUnknown, Place::tensor(tensor), expected + kind_phrase()};
    const std::string name = c_.read_string();
    const auto d = dtype_from_name(name);
    if (!d) return Error{RuleId::DtypeUnknown, Place::tensor(tensor), expected + quote_name(name)};
    t.dtype = *d;
    return ok_status();
  }

  // One element of shape or data_offsets: a JSON integer in [0, 2^64-1].
  Result<std::uint64_t> element(RuleId rule, std::string_view tensor, std::string_view field, std::size_t i) {
    const std::string expected = "expected " + std::string(field) + "[" + std::to_string(i) +
                                 "] to be an integer in [0, 2^64-1], found ";
    if (c_.peek() != JsonKind::Number) return Error{rule, Place::tensor(tensor), expected + kind_phrase()};
    const JsonNumber n = c_.read_number();
    if (n.kind != NumberKind::U64) return Error{rule, Place::tensor(tensor), expected + std::string(number_kind_phrase(n.kind))};
    return n.value;
  }

  Status shape(TensorEntry& t, std::string_view tensor) {
    if (c_.peek() != JsonKind::Array)
      return Error{RuleId::ShapeType, Place::tensor(tensor), "expected shape to be an array of integers, found " + kind_phrase()};
    c_.try_consume('[');
    if (c_.try_consume(']')) return ok_status();
    do {
      auto v = element(RuleId::ShapeType, tensor, "shape", t.shape.size());
      if (!v) return v.error();
      t.shape.push_back(v.value());
    } while (c_.try_consume(','));
    c_.try_consume(']');
    return ok_status();
  }

  Status offsets(TensorEntry& t, std::string_view tensor) {
    const std::string expected = "expected data_offsets to be an array of exactly two integers [begin, end], found ";
    if (c_.peek() != JsonKind::Array) return Error{RuleId::OffsetsType, Place::tensor(tensor), expected + kind_phrase()};
    c_.try_consume('[');
    std::size_t count = 0;
    std::array<std::uint64_t, 2> v{};
    if (!c_.try_consume(']')) {
      do {
        if (count < 2) {
          auto e = element(RuleId::OffsetsType, tensor, "data_offsets", count);
          if (!e) return e.error();
          v[count] = e.value();
        } else {
          c_.skip_value();
        }
        ++count;
      } while (c_.try_consume(','));
      c_.try_consume(']');
    }
    if (count != 2)
      return Error{RuleId::OffsetsType, Place::tensor(tensor), expected + "an array of " + count_of(count, "element")};
    t.begin = v[0];
    t.end = v[1];
    return ok_status();
  }
};

}  // namespace

Result<Header> read_header_reference(std::string_view text, std::uint64_t base) {
  if (const auto bad = first_invalid_utf8(text))
    return Error{RuleId::HeaderUtf8, Place::at_byte(base + *bad),
                 "expected UTF-8 header text, found an invalid sequence starting with byte " +
                     hex_byte(static_cast<unsigned char>(text[*bad]))};
  if (Status s = validate_json_text(text, base); !s) return s.error();
  return ModelReader(text).run();
}

}  // namespace safespec
