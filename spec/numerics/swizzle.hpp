// The block-scale swizzle of nvfp4 and mxfp8 (comfy-quant-markers.md L3;
// quant-numerics.md §4): a logical scale matrix S[R][Cb] stored zero-padded as
// [roundup(R, 128), roundup(Cb, 4)] with its bytes permuted.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "spec/numerics/matrix.hpp"
#include "spec/result.hpp"

namespace safespec::deq {

// The stored shape [R', C'] for a logical R x Cb, or nullopt past 2^64.
struct SwizzledShape {
  std::uint64_t rows, cols;
};
std::optional<SwizzledShape> swizzled_shape(std::uint64_t rows, std::uint64_t blocks);

// §4 flat byte offset of S[r][c] in the stored tensor, C' = padded_cols (a
// multiple of 4):
// ((r/128)*(C'/4) + c/4)*512 + (r%32)*16 + ((r%128)/32)*4 + c%4.
std::uint64_t swizzle_offset(std::uint64_t r, std::uint64_t c, std::uint64_t padded_cols);
// §4 inverse (bijective on [0, R'*C')): the (r, c) stored at byte `offset`.
std::pair<std::uint64_t, std::uint64_t> unswizzle_position(std::uint64_t offset, std::uint64_t padded_cols);

// Logical [R, Cb] to the stored [R', C'] bytes, padding cells zero.
Result<Mat<std::uint8_t>> swizzle(const Mat<std::uint8_t>& logical, RuleId rule);
// Stored [R', C'] to the logical [R, Cb]; padding cells are not read (a
// nonzero padding cell is CQ-DATA-SWIZZLE-PADDING's business, not a decode
// error). Error when `stored` is not exactly [roundup(R, 128), roundup(Cb, 4)].
Result<Mat<std::uint8_t>> unswizzle(const Mat<std::uint8_t>& stored, std::uint64_t rows, std::uint64_t blocks, RuleId rule);

}  // namespace safespec::deq
