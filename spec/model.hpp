// The parsed model: plain data, what a header says. Rule functions read only
// this; they never touch bytes or files.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "spec/dtype.hpp"

namespace safespec {

struct TensorEntry {
  std::string name;  // decoded (F6.5)
  Dtype dtype = Dtype::U8;
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0;  // data_offsets, relative to the byte buffer
  std::uint64_t end = 0;

  friend bool operator==(const TensorEntry&, const TensorEntry&) = default;
};

enum class MetadataState : unsigned char { Absent, Null, Present };

enum class DuplicateKind : unsigned char { Tensor, MetadataKey };

// A key that appeared more than once. The reference keeps the last value
// (F6.9, F6.16); strict reports each repetition.
struct DuplicateKey {
  DuplicateKind kind;
  std::string name;     // decoded
  bool same_spelling;   // false: the raw JSON spellings differ (escapes, F6.5)

  friend bool operator==(const DuplicateKey&, const DuplicateKey&) = default;
};

// A field of a tensor entry other than dtype, shape and data_offsets; the
// reference ignores it (F6.11). Kept apart from TensorEntry: it is rare, and a
// million tensors should not each carry an empty list.
struct UnknownField {
  std::string tensor;
  std::string field;

  friend bool operator==(const UnknownField&, const UnknownField&) = default;
};

// What the header text says. Duplicates are collapsed the reference's way:
// the survivor keeps the first occurrence's position and the last one's value.
struct Header {
  std::vector<TensorEntry> tensors;  // document order
  MetadataState metadata_state = MetadataState::Absent;
  std::vector<std::pair<std::string, std::string>> metadata;  // document order
  std::vector<DuplicateKey> duplicates;
  std::vector<UnknownField> unknown_fields;  // document order
  std::uint64_t leading_whitespace = 0;  // bytes before the top-level '{'

  friend bool operator==(const Header&, const Header&) = default;
};

// A header plus the geometry of the file it came from.
struct Model {
  std::uint64_t file_size = 0;
  std::uint64_t header_length = 0;  // N
  Header header;

  std::uint64_t buffer_size() const { return file_size - 8 - header_length; }
  friend bool operator==(const Model&, const Model&) = default;
};

}  // namespace safespec
