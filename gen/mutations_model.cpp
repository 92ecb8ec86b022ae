// The mutations that break the model (F8-F13), repeat a key (X3) or trip a
// model warning (X8, X19, W8); the catalogue of all mutations, text ones from
// mutations_text.cpp included; and decorated(), the readable variations.
#include "gen/mutations.hpp"

#include <array>
#include <string>
#include <vector>

#include "gen/json_grammar.hpp"
#include "gen/mutation_tools.hpp"
#include "gen/mutations_text.hpp"
#include "spec/dtype.hpp"
#include "src/report/json_escape.hpp"

namespace safespec::gen {

namespace detail {
namespace {

using rc::gen::element;
using rc::gen::inRange;

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
                   tensor_entry(fresh_name(p, "reversed"), d, shape, end, r));
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
  std::vector<std::uint64_t> shape = prefix;
  shape.insert(shape.end(), p.tensors[i].shape.begin(), p.tensors[i].shape.end());
  p.tensors[i].shape = shape;
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
  const std::uint64_t whole = *inRange<std::uint64_t>(0, 10);  // one draw per statement, for every compiler
  const std::uint64_t n = whole * unit + *inRange<std::uint64_t>(1, unit);
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
  return object_text(tensor_fields(tensor_entry("", d, {n}, begin, end)));
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
  const std::size_t at = pick(m + 1);  // drawn before the decoy, for every compiler
  l.members.insert(l.members.begin() + static_cast<std::ptrdiff_t>(at), Member{original.key, decoy_value()});
  return done(l, name_of(p, i) + " after a decoy entry of the same name");
}

Mutant duplicate_tensor_escaped(const Plan& p0) {
  Plan p = p0;
  std::vector<std::pair<std::size_t, std::string>> named;  // tensors with a second spelling
  for (std::size_t j = 0; j < p.tensors.size(); ++j)
    if (auto s = escaped_spelling(p.tensors[j].name.str())) named.emplace_back(j, *s);
  if (named.empty()) {
    const std::size_t j = append_u8(p, *inRange<std::uint64_t>(0, 5), "t");
    named.emplace_back(j, *escaped_spelling(p.tensors[j].name.str()));
  }
  const auto [i, spelling] = named[pick(named.size())];
  Layout l = layout_of(p);
  const std::size_t m = tensor_member(p, i);
  if (*rc::gen::arbitrary<bool>()) {
    l.members.insert(l.members.begin() + static_cast<std::ptrdiff_t>(m + 1 + pick(l.members.size() - m)),
                     Member{spelling, l.members[m].value});
  } else {
    const std::size_t at = pick(m + 1);  // drawn before the decoy, for every compiler
    l.members.insert(l.members.begin() + static_cast<std::ptrdiff_t>(at), Member{spelling, decoy_value()});
  }
  return done(l, name_of(p, i) + " again spelled " + escaped_text(spelling));
}

Mutant duplicate_metadata_key(const Plan& p0) {
  Plan p = p0;
  if (p.metadata_state != MetadataState::Present) p.metadata_state = MetadataState::Present;
  if (p.metadata.empty()) {
    std::string key = *utf8_text();  // key first, for every compiler
    p.metadata.emplace_back(std::move(key), *utf8_text());
  }
  Layout l = layout_of(p);
  std::vector<Member> members;
  for (const auto& [k, v] : p.metadata) members.push_back({json_string(k), json_string(v)});
  const std::size_t j = pick(members.size());
  const auto other = escaped_spelling(p.metadata[j].first);
  const std::string key = *rc::gen::arbitrary<bool>() || !other ? members[j].key : *other;
  const std::size_t at = pick(members.size() + 1);  // drawn before the value, for every compiler
  members.insert(members.begin() + static_cast<std::ptrdiff_t>(at), Member{key, json_string(*utf8_text())});
  l.members[0].value = object_text(members);
  return done(l, "metadata key '" + escaped_text(p.metadata[j].first) + "' twice");
}

// ---------------------------------------------------------------------------
// Strict warnings on the model

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

// X3 beyond the reference: a key repeated among a tensor entry's unknown
// fields, or inside an object in one of their values.
Mutant duplicate_nested_key(const Plan& p0) {
  Plan p = p0;
  const std::size_t i = any_tensor(p);
  auto fields = tensor_fields(p.tensors[i]);
  const bool among_fields = *rc::gen::arbitrary<bool>();
  if (among_fields) {
    fields.push_back(Member{"\"extra\"", "1"});
    fields.insert(fields.begin() + static_cast<std::ptrdiff_t>(pick(fields.size() + 1)), Member{"\"extra\"", "2"});
  } else {
    fields.push_back(Member{"\"extra\"", "[0,{\"k\":1,\"j\":null,\"k\":[2]}]"});
  }
  return with_fields(p, i, fields, among_fields ? "unknown field 'extra' twice" : "key 'k' twice inside an unknown field");
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
  p.tensors.push_back(tensor_entry(fresh_name(p, "unaligned"), d, {count}, begin, begin + count * size));
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
    Mutation{"duplicate-nested-key", DuplicateNestedKey, Expect::Error, duplicate_nested_key},
    Mutation{"leading-space", HeaderLeadingSpace, Expect::Warning, leading_space},
    Mutation{"header-unaligned", HeaderUnaligned, Expect::Warning, header_unaligned},
    Mutation{"metadata-null", MetadataNull, Expect::Warning, metadata_null},
    Mutation{"unknown-field", TensorUnknownField, Expect::Warning, unknown_field},
    Mutation{"tensor-unaligned", TensorUnaligned, Expect::Warning, tensor_unaligned},
};

}  // namespace
}  // namespace detail

std::span<const Mutation> mutation_catalogue() { return detail::kCatalogue; }

Layout decorated(const Plan& valid) {
  using detail::decoy_value;
  using detail::pick;
  using rc::gen::element;
  using rc::gen::inRange;
  Plan p = valid;
  if (*inRange(0, 4) == 0 && p.metadata_state == MetadataState::Absent) p.metadata_state = MetadataState::Null;
  Layout l = layout_of(p);
  if (*rc::gen::arbitrary<bool>()) l.leading = *element<std::string>(" ", "\n", "\t\r\n ", "        ");
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    if (*inRange(0, 3) != 0) continue;
    auto fields = tensor_fields(p.tensors[i]);
    std::string key = json_string(*utf8_text());
    if (key == "\"dtype\"" || key == "\"shape\"" || key == "\"data_offsets\"") key = "\"x\"";
    const std::size_t at = pick(4);  // drawn before the value, for every compiler
    fields.insert(fields.begin() + static_cast<std::ptrdiff_t>(at), Member{key, *json_value(2, true)});
    l.members[tensor_member(p, i)].value = object_text(fields);
  }
  if (!p.tensors.empty() && *inRange(0, 4) == 0) {  // a duplicate whose survivor tiles
    const std::size_t m = tensor_member(p, pick(p.tensors.size()));
    const std::size_t at = pick(m + 1);  // drawn before the decoy, for every compiler
    l.members.insert(l.members.begin() + static_cast<std::ptrdiff_t>(at), Member{l.members[m].key, decoy_value()});
  }
  if (*inRange(0, 3) == 0) {
    l.padding = std::string();
    const std::size_t pad = *inRange<std::size_t>(0, 12);
    for (std::size_t k = 0; k < pad; ++k) *l.padding += *element(' ', '\t', '\n', '\r');
  }
  return l;
}

}  // namespace safespec::gen
