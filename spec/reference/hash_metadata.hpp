// `serde_json::from_str::<HashMetadata>` of huggingface/safetensors (crate at
// 24b0b28, serde 1.0.228 derive, serde_json 1.0.150): the top-level object
// streamed, `__metadata__` read as Option<HashMap<String, String>>, every
// other member buffered as serde's Content (so every number in it is parsed
// and the recursion limit applies) and, once the object has closed, each one
// deserialized as a TensorInfo in document order. A tensor entry may be an
// object or, through serde's derived visit_seq, an array of exactly
// [dtype, shape, data_offsets]; a dtype may be a string or a one-key map whose
// value is null (serde's enum-from-map).
#pragma once

#include <cstdint>
#include <list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/dtype.hpp"
#include "spec/reference/serde_json_reader.hpp"

namespace safespec::reference {

struct TensorInfo {
  // The decoded name: a view into the header text (or into
  // HashMetadata::escaped_names) while the header is alive; `name` owns a
  // copy only when the caller asked to keep the model.
  std::string_view name_view;
  std::string name;
  Dtype dtype = Dtype::U8;
  std::vector<std::uint64_t> shape;  // kept only with keep_model
  // Metadata::validate's per-tensor verdict after the offset check, worked
  // out while the shape is at hand: 0 passes, else ValidationOverflow (1),
  // MisalignedSlice (2), TensorInvalidInfo (3).
  std::uint8_t size_status = 0;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  bool array_form = false;     // written as [dtype, shape, data_offsets]
  bool dtype_map_form = false;  // dtype written as {"NAME": null}
};

struct HashMetadata {
  // Survivors of repeated names (the HashMap keeps the last value); in the
  // order of their first occurrence.
  std::vector<TensorInfo> tensors;
  std::optional<std::vector<std::pair<std::string, std::string>>> metadata;
  // Decoded names whose spelling used escapes. A list: the views above stay
  // valid as it grows, and it moves without allocating (noexcept), which a
  // vector of reports needs to move, not copy, them when it grows.
  std::list<std::string> escaped_names;
};

// keep_model: also keep shapes and owned names (for a model built from what
// the reference read); without it the result holds what validate needs, in
// a fraction of the header's size.
SerdeResult<HashMetadata> deserialize_hash_metadata(std::string_view header, bool keep_model);

// Metadata::validate's per-tensor verdict after the offset check (see
// TensorInfo::size_status), from a tensor's shape, dtype and offsets.
std::uint8_t size_status(std::span<const std::uint64_t> shape, Dtype dtype, std::uint64_t begin, std::uint64_t end);

}  // namespace safespec::reference
