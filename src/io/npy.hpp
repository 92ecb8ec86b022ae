// A small, strict reader and writer of NumPy's .npy format (format versions
// 1.0 and 2.0) for the arrays `linear` and `dequant` take and give: C order,
// little-endian float32 ('<f4'), float16 ('<f2') and 16-bit patterns ('<u2').
// .npy has no bfloat16, so bf16 travels as '<u2' bit patterns and the caller
// says which dtype they are. Anything else (other dtypes, Fortran order, a
// header that is not the dict numpy writes, a size that does not match the
// file) is refused with a message that says what was expected and what was
// found. Errors are data; every size is checked for overflow.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spec/result.hpp"

namespace safespec {

enum class NpyType : unsigned char { F32, F16, U16 };

std::string_view npy_descr(NpyType t);  // "<f4", "<f2", "<u2"

struct NpyArray {
  NpyType type = NpyType::F32;
  std::vector<std::uint64_t> shape;
  std::vector<std::uint8_t> data;  // little-endian, C order
};

// A whole .npy file's bytes.
Result<NpyArray, std::string> parse_npy(std::span<const std::uint8_t> file);

// Version 1.0 (2.0 when the header needs more than 65535 bytes), header
// padded to a multiple of 64 bytes as numpy pads it. Refuses data whose size
// is not the shape's.
Result<std::vector<std::uint8_t>, std::string> serialize_npy(const NpyArray& a);
// What serialize_npy writes before the data, from the type and shape alone:
// a writer that streams the data (dequant's row blocks) writes this first.
Result<std::vector<std::uint8_t>, std::string> npy_header(NpyType type, const std::vector<std::uint64_t>& shape);

// Whether a path names an .npy file (by its extension, as the commands pick
// their format).
bool is_npy_path(std::string_view path);

// The file, bounded by kMaxTensorBytes of data; messages start with the path.
Result<NpyArray, std::string> read_npy_file(const std::string& path);
Result<Unit, std::string> write_npy_file(const std::string& path, const NpyArray& a);

}  // namespace safespec
