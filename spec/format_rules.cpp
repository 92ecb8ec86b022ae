#include "spec/format_rules.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "spec/checked_math.hpp"
#include "spec/finding_sink.hpp"
#include "spec/quote.hpp"

namespace safespec {

namespace {

std::string u64s(std::uint64_t v) { return std::to_string(v); }

std::string shape_text(std::span<const std::uint64_t> shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + u64s(shape[i]);
  return s + "]";
}

Finding make(RuleId id, Place where, std::string message) {
  return Finding{id, rule_info(id).severity, std::move(where), std::move(message), {}};
}

}  // namespace

std::optional<std::uint64_t> tensor_byte_size(std::span<const std::uint64_t> shape, Dtype d) {
  const auto n = shape_product(shape).count;
  if (!n) return std::nullopt;
  const auto bits = checked_mul(*n, dtype_bits(d));
  if (!bits || *bits % 8 != 0) return std::nullopt;
  return *bits / 8;
}

std::optional<Finding> rule_offset(const TensorEntry& t, std::uint64_t cursor) {
  if (t.begin == cursor && t.end >= t.begin) return std::nullopt;
  // cursor 0: the first tensor in offset order, or one after tensors that
  // span nothing.
  const std::string expected = "expected data_offsets begin " + u64s(cursor) +
                               (cursor == 0 ? " (where the byte buffer starts)"
                                            : " (where the previous tensor in offset order ends)") +
                               ", found " + u64s(t.begin);
  if (t.begin > cursor)
    return make(RuleId::OffsetGap, Place::tensor(t.name), expected + ": a gap of " + count_of(t.begin - cursor, "byte"));
  if (t.begin < cursor)
    return make(RuleId::OffsetOverlap, Place::tensor(t.name),
                expected + ": an overlap of " + count_of(cursor - t.begin, "byte"));
  return make(RuleId::OffsetReversed, Place::tensor(t.name),
              "expected data_offsets end >= begin, found [" + u64s(t.begin) + ", " + u64s(t.end) + "]");
}

std::optional<Finding> rule_shape_overflow(const TensorEntry& t) {
  const ShapeProduct p = shape_product(t.shape);
  if (p.count) return std::nullopt;
  return make(RuleId::ShapeOverflow, Place::tensor(t.name),
              "expected the element count of shape " + shape_text(t.shape) +
                  " to fit in 64 bits (folded left to right), found it overflows at shape[" +
                  std::to_string(p.failed_at) + "]");
}

std::optional<Finding> rule_nbits_overflow(const TensorEntry& t) {
  const auto n = shape_product(t.shape).count;
  if (!n || checked_mul(*n, dtype_bits(t.dtype))) return std::nullopt;
  return make(RuleId::NbitsOverflow, Place::tensor(t.name),
              "expected " + count_of(*n, "element") + " x " + std::to_string(dtype_bits(t.dtype)) + " bits (" +
                  std::string(dtype_name(t.dtype)) + ") to fit in 64 bits, found it overflows");
}

std::optional<Finding> rule_misaligned_bits(const TensorEntry& t) {
  const auto n = shape_product(t.shape).count;
  if (!n) return std::nullopt;
  const auto bits = checked_mul(*n, dtype_bits(t.dtype));
  if (!bits || *bits % 8 == 0) return std::nullopt;
  return make(RuleId::MisalignedBits, Place::tensor(t.name),
              "expected a whole number of bytes, found " + count_of(*n, "element") + " x " +
                  std::to_string(dtype_bits(t.dtype)) + " bits (" + std::string(dtype_name(t.dtype)) +
                  ") = " + u64s(*bits) + " bits");
}

std::optional<Finding> rule_size(const TensorEntry& t) {
  const auto bytes = tensor_byte_size(t.shape, t.dtype);
  if (!bytes || t.end < t.begin || t.end - t.begin == *bytes) return std::nullopt;
  return make(RuleId::SizeMismatch, Place::tensor(t.name),
              "expected data_offsets to span " + count_of(*bytes, "byte") + " (" + std::string(dtype_name(t.dtype)) +
                  " " + shape_text(t.shape) + "), found [" + u64s(t.begin) + ", " + u64s(t.end) + "] = " +
                  count_of(t.end - t.begin, "byte"));
}

std::optional<Finding> rule_buffer_coverage(const Model& m, std::uint64_t buffer_end) {
  // Subtraction form (§2.2): buffer_size cannot underflow once F4 holds.
  const std::uint64_t have = m.buffer_size();
  const std::uint64_t data_start = 8 + m.header_length;
  if (buffer_end == have) return std::nullopt;
  if (m.header.tensors.empty())
    return make(RuleId::BufferTrailing, Place::at_byte(data_start),
                "expected no bytes after the header of a file without tensors, found " +
                    count_of(have, "trailing byte"));
  if (buffer_end < have)
    return make(RuleId::BufferTrailing, Place::at_byte(data_start + buffer_end),
                "expected the file to end where the last tensor ends (byte buffer of " + count_of(buffer_end, "byte") +
                    "), found " + count_of(have - buffer_end, "trailing byte"));
  return make(RuleId::BufferTruncated, Place::at_byte(m.file_size),
              "expected a byte buffer of " + count_of(buffer_end, "byte") + " (the last tensor's end), found " +
                  count_of(have, "byte") + ": the file is " + count_of(buffer_end - have, "byte") + " short");
}

bool offset_less(const TensorEntry& a, const TensorEntry& b) {
  if (a.begin != b.begin) return a.begin < b.begin;
  if (a.end != b.end) return a.end < b.end;
  return a.name < b.name;
}

std::vector<const TensorEntry*> sorted_by_offsets(std::span<const TensorEntry> tensors) {
  std::vector<const TensorEntry*> order;
  order.reserve(tensors.size());
  for (const auto& t : tensors) order.push_back(&t);
  const auto less = [](const TensorEntry* a, const TensorEntry* b) { return offset_less(*a, *b); };
  // Writers emit tensors in offset order, so this is usually one linear pass.
  if (!std::is_sorted(order.begin(), order.end(), less)) std::sort(order.begin(), order.end(), less);
  return order;
}

namespace {
// A tensor that satisfies F8-F12 has nothing to report: one pass of checked
// arithmetic decides that, so a clean header never builds a message.
bool tensor_is_clean(const TensorEntry& t, std::uint64_t cursor) {
  if (t.begin != cursor || t.end < t.begin) return false;
  const auto bytes = tensor_byte_size(t.shape, t.dtype);
  return bytes && *bytes == t.end - t.begin;
}
}  // namespace

Findings reference_findings(const Model& m) {
  // A header of two million broken tensors must not become two million
  // messages: each rule lists its first kMaxRecords findings, then says how
  // many more there are.
  FindingSink out;
  const auto add = [&](std::optional<Finding> f) { out.add(std::move(f)); };
  std::uint64_t cursor = 0;
  for_each_by_offsets(m.header.tensors, [&](const TensorEntry& t) {
    if (!tensor_is_clean(t, cursor)) {
      add(rule_offset(t, cursor));
      add(rule_shape_overflow(t));
      add(rule_nbits_overflow(t));
      add(rule_misaligned_bits(t));
      add(rule_size(t));
    }
    // As the reference, also after a reversed tensor: the cursor (and F13's
    // buffer end) is this tensor's END, so later findings are the ones the
    // reference would raise were the earlier ones fixed as their END says.
    cursor = t.end;
  });
  add(rule_buffer_coverage(m, cursor));
  return std::move(out).finish(Place::header());
}

Findings strict_findings(const Model& m) {
  FindingSink out;
  const Header& h = m.header;
  for (const DuplicateKey& d : h.duplicates) {
    switch (d.kind) {
      case DuplicateKind::MetadataKey:
        out.add(make(RuleId::DuplicateMetadataKey, Place::metadata_key(d.name),
                     "expected each metadata key once, found it again (the reference keeps the last value)"));
        break;
      case DuplicateKind::Nested:
        out.add(make(RuleId::DuplicateNestedKey, d.nested,
                     std::string("expected each key of an object once, found it again") +
                         (d.same_spelling ? "" : " spelled differently") + " (the reference ignores this value)"));
        break;
      case DuplicateKind::Tensor:
        out.add(d.same_spelling
                    ? make(RuleId::DuplicateTensor, Place::tensor(d.name),
                           "expected each tensor name once, found it again (the reference keeps the last entry)")
                    : make(RuleId::DuplicateTensorEscaped, Place::tensor(d.name),
                           "expected distinct tensor names, found two spellings that decode to the same name"));
        break;
    }
  }
  if (h.duplicates_unlisted > 0)
    out.add(make(RuleId::DuplicateNestedKey, Place::header(),
                 "expected each key once, found " + count_of(h.duplicates_unlisted, "more repeated key") +
                     " beyond the " + std::to_string(kMaxRecords) + " listed"));
  if (h.leading_whitespace > 0)
    out.add(make(RuleId::HeaderLeadingSpace, Place::at_byte(8),
                 "expected the header to begin with '{', found " +
                     count_of(h.leading_whitespace, "byte") + " of whitespace first"));
  if (m.header_length % 8 != 0)
    out.add(make(RuleId::HeaderUnaligned, Place::at_byte(0),
                 "expected a header length that is a multiple of 8, found " + u64s(m.header_length)));
  if (h.metadata_state == MetadataState::Null)
    out.add(make(RuleId::MetadataNull, Place::metadata(),
                 "expected __metadata__ to be an object or absent, found null"));
  const std::uint64_t data_start = 8 + m.header_length;
  for (const UnknownField& u : h.unknown_fields)
    out.add(make(RuleId::TensorUnknownField, Place::tensor(u.tensor),
                 "expected only dtype, shape and data_offsets, found the field " + quote_name(u.field)));
  if (h.unknown_fields_unlisted > 0)
    out.add(make(RuleId::TensorUnknownField, Place::header(),
                 "expected only dtype, shape and data_offsets, found " +
                     count_of(h.unknown_fields_unlisted, "more unknown field") + " beyond the " +
                     std::to_string(kMaxRecords) + " listed"));
  for (const TensorEntry& t : h.tensors) {
    const std::uint64_t size = dtype_element_bytes(t.dtype);  // 1, 2, 4 or 8
    const std::uint64_t mask = size - 1;
    if (size <= 1 || t.end <= t.begin || (((data_start & mask) + (t.begin & mask)) & mask) == 0) continue;
    if (!out.lists(RuleId::TensorUnaligned)) {  // a million unaligned tensors: counted, not spelled
      out.count_only(RuleId::TensorUnaligned);
      continue;
    }
    out.add(make(RuleId::TensorUnaligned, Place::tensor(t.name),
                 "expected the data to start at a file offset that is a multiple of " + u64s(size) + " (" +
                     std::string(dtype_name(t.dtype)) + "), found data_offsets begin " + u64s(t.begin) + " after a " +
                     u64s(data_start) + "-byte prefix"));
  }
  return std::move(out).finish(Place::header());
}

Findings check_model(const Model& m, Profile p) {
  Findings out = reference_findings(m);
  if (profile_applies(p, RuleScope::Strict)) {
    Findings extra = strict_findings(m);
    std::stable_partition(extra.begin(), extra.end(), [](const Finding& f) { return f.severity == Severity::Error; });
    out.insert(out.end(), std::make_move_iterator(extra.begin()), std::make_move_iterator(extra.end()));
  }
  return out;
}

}  // namespace safespec
