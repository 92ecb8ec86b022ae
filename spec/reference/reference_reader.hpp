// The reference reader's whole answer on a file: what
// `SafeTensors::read_metadata` of huggingface/safetensors (crate at 24b0b28,
// release 0.8.0-rc.0; serde 1.0.228, serde_json 1.0.150) returns, as its error
// variant and Display text, and what a Python consumer's `safe_open` raises.
// This is the one place that decides the reference's verdict.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spec/model.hpp"
#include "spec/reference/hash_metadata.hpp"

namespace safespec::reference {

enum class Variant : unsigned char {
  InvalidHeader,                 // header is not UTF-8
  InvalidHeaderDeserialization,  // serde_json / serde said no
  HeaderTooLarge,
  HeaderTooSmall,
  InvalidHeaderLength,
  TensorInvalidInfo,
  InvalidOffset,
  MetadataIncompleteBuffer,
  ValidationOverflow,
  MisalignedSlice,
};

std::string_view variant_name(Variant v);

struct Failure {
  Variant variant;
  std::string display;  // the error's Display text

  // What safe_open raises in Python: SafetensorError with this text.
  std::string python_message() const { return "Error while deserializing header: " + display; }
  friend bool operator==(const Failure&, const Failure&) = default;
};

struct Answer {
  std::optional<Failure> failure;  // nullopt: the reference accepts the file
  // Other answers the reference gives on the same bytes in other processes:
  // it sorts tensors by data_offsets and breaks ties in HashMap order, which
  // is random per process (X13). Empty when the answer is deterministic.
  std::vector<Failure> alternatives;
  // Set when the header deserialized and keep_model was asked: what the
  // reference read (owned names and shapes).
  std::optional<HashMetadata> metadata;
};

// `head` holds the first min(file_size, 8 + N) bytes of the file (fewer when
// the file is shorter); `file_size` is the whole file's length.
Answer read_metadata(std::span<const std::uint8_t> head, std::uint64_t file_size, bool keep_model = false);
// The same after a valid length prefix: N and the N header bytes.
Answer read_header(std::uint64_t n, std::string_view text, std::uint64_t file_size, bool keep_model = false);

// The same answer (without the model) for a header whose text is plain: valid
// UTF-8 and JSON that serde_json reads as written, an object whose members are
// each a tensor object of exactly "dtype" (a name), "shape" and "data_offsets"
// (arrays of integers in 0..2^64-1 written without sign, fraction or
// exponent, two offsets), plus at most one "__metadata__" (null, or an object
// of strings), no key repeated at any level, no lone surrogate escape. `h`
// is that text read (in document order). For such a text the
// deserialization cannot fail and keeps every tensor, so only
// Metadata::validate is left to run, and it needs no second reading of the
// text (src/parse/plain_header.hpp reads plain texts; src/oracles/oracles.cpp checks that
// the two answers agree).
Answer read_plain_header(const Header& h, std::uint64_t n, std::uint64_t file_size);

}  // namespace safespec::reference
