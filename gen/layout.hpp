// Valid files as editable parts, at two levels:
//   Plan   the meaning: tensors with offsets, metadata, the byte buffer. Model
//          rules (F8-F13, X3) are broken by editing a Plan.
//   Layout the text: raw JSON members ("key": value texts), whitespace around
//          the object, padding, an optional length override. Text rules
//          (F1-F6, X1, W5) are broken by editing a Layout or the final bytes.
// Rendering is deterministic: nothing here draws from a generator.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gen/models.hpp"
#include "spec/model.hpp"

namespace safespec::gen {

struct Plan {
  std::vector<TensorEntry> tensors;  // rendering order; offsets as written
  MetadataState metadata_state = MetadataState::Absent;
  Metadata metadata;  // rendering order
  std::vector<std::uint8_t> data;  // the byte buffer
};

// One "key":value member of the top-level object, both raw JSON text.
struct Member {
  std::string key;
  std::string value;
};

struct Layout {
  std::string leading;  // before '{'
  std::vector<Member> members;
  std::string between;  // after '}' and before the padding
  std::optional<std::string> padding;  // nullopt: spaces to the next multiple of 8 (W5)
  std::vector<std::uint8_t> data;
  std::optional<std::uint64_t> length;  // N override; nullopt: the header's size
};

// A TensorEntry field by field, so callers survive members being added to it.
TensorEntry tensor_entry(std::string name, Dtype d, std::vector<std::uint64_t> shape, std::uint64_t begin,
                         std::uint64_t end);

// The canonical plan of a spec: tensors in W1 order with contiguous offsets,
// metadata sorted. Rendered, it is byte-identical to serialize(spec).
Plan plan_of(const FileSpec& spec);

// A raw JSON object from raw member texts.
std::string object_text(const std::vector<Member>& members);
// The three fields of a tensor entry, W4 order, raw texts.
std::vector<Member> tensor_fields(const TensorEntry& t);
std::string shape_text(std::span<const std::uint64_t> shape);
// Plan → Layout: metadata member first (if any), then one member per tensor.
Layout layout_of(const Plan& p);
// Index of tensor i's member in layout_of(p).members.
std::size_t tensor_member(const Plan& p, std::size_t i);
// The N header bytes (padding included).
std::string header_text(const Layout& l);
std::vector<std::uint8_t> bytes_of(const Layout& l);
std::vector<std::uint8_t> bytes_of(const Plan& p);

}  // namespace safespec::gen
