// The parsed model: plain data, what a header says. Rule functions read only
// this; they never touch bytes or files.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "spec/dtype.hpp"
#include "spec/limits.hpp"
#include "spec/name.hpp"
#include "spec/place.hpp"
#include "spec/shape.hpp"

namespace safespec {

struct TensorEntry {
  Name name;  // decoded (F6.5); borrowed from the Header's arena when a reader made it
  Dtype dtype = Dtype::U8;
  Shape shape;
  std::uint64_t begin = 0;  // data_offsets, relative to the byte buffer
  std::uint64_t end = 0;

  friend bool operator==(const TensorEntry&, const TensorEntry&) = default;
};

enum class MetadataState : unsigned char { Absent, Null, Present };

// Tensor: a top-level key. MetadataKey: a key inside __metadata__. Nested: a
// key repeated among a tensor entry's unknown fields or inside an ignored
// value, which the reference never looks at (F6.11).
enum class DuplicateKind : unsigned char { Tensor, MetadataKey, Nested };

// A key that appeared more than once. The reference keeps the last value
// (F6.9, F6.16) or ignores it; strict reports each repetition.
struct DuplicateKey {
  DuplicateKind kind;
  std::string name;     // decoded; for Nested, the repeated key itself
  bool same_spelling;   // false: the raw JSON spellings differ (escapes, F6.5)
  Place nested{};       // Nested: where the repeated key is (tensor 'a' field 'x' key 'k')

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

// A header can repeat a key or an unknown field millions of times in a few
// megabytes; the model lists the first kMaxRecords (spec/limits.hpp) of each
// kind and counts the rest.

template <class T>
void record_capped(std::vector<T>& list, std::uint64_t& unlisted, T item) {
  if (list.size() < kMaxRecords) list.push_back(std::move(item));
  else ++unlisted;
}

// name_hash (spec/name_hash.hpp) of every tensor's name, in tensor order,
// when the reader was asked to keep them (the files of one checkpoint, whose
// names are checked against each other's: src/parse/name_repeats.hpp); else empty.
// Derived from the names under this process's key, not something the header
// says: it never makes two headers unequal. A user of the hashes checks that
// there is one per tensor, so a header that gained or lost tensors after it
// was read is hashed again; code that renames or reorders tensors clears it.
struct NameHashes {
  std::vector<std::uint64_t> values;

  friend bool operator==(const NameHashes&, const NameHashes&) { return true; }
};

// What the header text says. Duplicates are collapsed the reference's way:
// the survivor keeps the first occurrence's position and the last one's value.
struct Header {
  std::vector<TensorEntry> tensors;  // document order
  MetadataState metadata_state = MetadataState::Absent;
  std::vector<std::pair<std::string, std::string>> metadata;  // document order
  std::vector<DuplicateKey> duplicates;       // document order, at most kMaxRecords
  std::uint64_t duplicates_unlisted = 0;      // beyond those
  std::vector<UnknownField> unknown_fields;   // document order, at most kMaxRecords
  std::uint64_t unknown_fields_unlisted = 0;  // beyond those
  std::uint64_t leading_whitespace = 0;  // bytes before the top-level '{'
  NameArena name_text;  // what tensors' borrowed names point into (spec/name.hpp)
  NameHashes name_hashes;

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
