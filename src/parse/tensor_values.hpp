// `inspect --values NAME`: the first elements of one tensor decoded to
// numbers, for every dtype safetensors has. Only the bytes those elements
// occupy are read, and only when they lie inside the tensor's data_offsets
// and inside the file: a hostile header (a huge shape, offsets past the end)
// costs nothing and is reported as data, never read out of bounds.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "spec/model.hpp"
#include "spec/result.hpp"
#include "src/io/byte_file.hpp"

namespace safespec {

struct TensorValues {
  // The tensor's element count, nullopt when the shape's product overflows 64 bits.
  std::optional<std::uint64_t> elements;
  // One per decoded element, as text ("1.5", "-7", "true", "nan", "(1+2j)")
  // and as a JSON value (numbers; non-finite floats and BOOL bytes other than
  // 0 and 1 as strings; C64 as [re, im]).
  std::vector<std::string> text;
  std::vector<std::string> json;
  // Fewer elements were decoded than the tensor has.
  bool truncated = false;
};

// Decodes the first `count` elements of dtype `d` from `bytes`, which hold at
// least value_bytes(d, count). Sub-byte dtypes are read as a little-endian bit
// stream, element i at bits [w*i, w*i + w): for F4 element 2j is the low
// nibble of byte j (safespec's position: safetensors counts F4 and F6 sizes
// in bits but does not state the order within a byte). E8M0 is read as the
// OCP MX definition (code 0 is 2^-127, 255 is NaN).
TensorValues decode_values(Dtype d, std::span<const std::uint8_t> bytes, std::uint64_t count);

// Bytes the first `count` elements occupy: ceil(count * bits / 8).
std::uint64_t value_bytes(Dtype d, std::uint64_t count);

// The first min(count, elements) elements of `t` read from `file` (whose
// header `m` describes): an error sentence when those bytes are not inside
// the tensor's data_offsets or the file, or the read fails.
Result<TensorValues, std::string> read_values(const ByteFile& file, const Model& m, const TensorEntry& t,
                                              std::uint64_t count);

}  // namespace safespec
