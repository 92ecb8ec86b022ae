// The reference header reader: the definition of which header texts are
// accepted and what model they mean (F5, F6.1-F6.16). Written for clarity, not
// speed; the fast parser (src/parse/header_parser.hpp) is tested against it.
//
// Order of errors (a safespec decision; serde_json interleaves differently but
// every one of these is InvalidHeaderDeserialization to the reference):
//   1. UTF-8 over the whole header (F5).
//   2. Syntax and nesting of the whole text, first offending byte (F6.1-F6.6).
//   3. The model, top-level members in document order; inside a tensor entry,
//      fields in document order, then missing fields as dtype, shape,
//      data_offsets (F6.3, F6.7-F6.15).
// Every tensor entry is validated, also one a later duplicate replaces, since
// serde deserializes each before the map keeps the last (F6.16).
#pragma once

#include <cstdint>
#include <string_view>

#include "spec/model.hpp"
#include "spec/result.hpp"

namespace safespec {

// `text` is the N header bytes; `base` is their file offset (8) for messages.
Result<Header> read_header_reference(std::string_view text, std::uint64_t base = 8);

}  // namespace safespec
