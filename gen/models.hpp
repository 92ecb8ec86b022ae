// RapidCheck generators of valid safetensors content: dtypes, tensor names
// that need escaping, shapes with a whole number of bytes for their dtype, and
// whole file specs (tensors with data, optional metadata) that the canonical
// writer accepts. Valid by construction: no gen::suchThat anywhere.
//
// Definitions live in models.cpp (compiled once into safespec_gen).
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "spec/dtype.hpp"
#include "spec/model.hpp"
#include "spec/utf8.hpp"
#include "src/io/writer.hpp"

namespace safespec::gen {

// One tensor to write: its data holds exactly bytes(dtype, shape) bytes.
struct TensorSpec {
  std::string name;
  Dtype dtype = Dtype::U8;
  std::vector<std::uint64_t> shape;
  std::vector<std::uint8_t> data;

  friend bool operator==(const TensorSpec&, const TensorSpec&) = default;
};

// A file to write: names are distinct and never "__metadata__"; metadata keys
// are distinct. Tensor order is arbitrary (the writer sorts, W1).
struct FileSpec {
  std::vector<TensorSpec> tensors;
  std::optional<Metadata> metadata;

  friend bool operator==(const FileSpec&, const FileSpec&) = default;
};

// Views over the spec's data, for serialize(). Valid while `spec` lives.
std::vector<TensorView> views_of(const FileSpec& spec);

// Byte size of a (dtype, shape) pair whose element count passes F9-F11.
std::uint64_t byte_size(Dtype d, const std::vector<std::uint64_t>& shape);

// UTF-8 encoding of one code point: safespec::append_utf8 (spec/utf8.hpp).
using safespec::append_utf8;

// Any of the 22 dtypes.
rc::Gen<Dtype> dtype();
// Valid UTF-8 text of 0-12 code points, biased toward what JSON escaping has to
// get right: '"', '\\', '/', C0 controls, NUL, DEL, U+2028, BOM, non-BMP.
rc::Gen<std::string> utf8_text();
// utf8_text plus a few fixed awkward names; never "__metadata__".
rc::Gen<std::string> tensor_name();
// A shape whose element count times the dtype's bits is a multiple of 8 and
// whose byte size is small (at most a few KiB): rank 0-4, dims 0-4, some 0s.
rc::Gen<std::vector<std::uint64_t>> shape_for(Dtype d);
// A tensor with random data of the right length.
rc::Gen<TensorSpec> tensor_spec();
// Absent, or 0-4 distinct keys with arbitrary text values.
rc::Gen<std::optional<Metadata>> metadata();
// 0-6 tensors with distinct names, optional metadata.
rc::Gen<FileSpec> file_spec();

void showValue(const TensorSpec& t, std::ostream& os);
void showValue(const FileSpec& f, std::ostream& os);

// Printable form of bytes: printable ASCII as is, everything else as \xNN.
std::string escaped_bytes(const std::vector<std::uint8_t>& bytes);
std::string escaped_text(std::string_view text);

}  // namespace safespec::gen

namespace safespec {
void showValue(Dtype d, std::ostream& os);
}  // namespace safespec

namespace rc {
template <>
struct Arbitrary<safespec::Dtype> {
  static Gen<safespec::Dtype> arbitrary();
};
}  // namespace rc
