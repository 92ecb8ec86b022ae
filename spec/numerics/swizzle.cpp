#include "spec/numerics/swizzle.hpp"

#include <string>

#include "spec/checked_math.hpp"

namespace safespec::deq {

namespace {

std::optional<std::uint64_t> roundup(std::uint64_t a, std::uint64_t m) {
  const std::uint64_t rem = a % m;
  if (rem == 0) return a;
  return checked_add(a, m - rem);
}

}  // namespace

std::optional<SwizzledShape> swizzled_shape(std::uint64_t rows, std::uint64_t blocks) {
  const auto r = roundup(rows, 128), c = roundup(blocks, 4);
  if (!r || !c) return std::nullopt;
  return SwizzledShape{*r, *c};
}

std::uint64_t swizzle_offset(std::uint64_t r, std::uint64_t c, std::uint64_t padded_cols) {
  return ((r / 128) * (padded_cols / 4) + c / 4) * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 + (c % 4);
}

std::pair<std::uint64_t, std::uint64_t> unswizzle_position(std::uint64_t offset, std::uint64_t padded_cols) {
  const std::uint64_t q = offset / 512, w = offset % 512, tiles = padded_cols / 4;
  return {(q / tiles) * 128 + ((w % 16) / 4) * 32 + w / 16, (q % tiles) * 4 + w % 4};
}

Result<Mat<std::uint8_t>> swizzle(const Mat<std::uint8_t>& logical, RuleId rule) {
  if (!logical.shape_ok()) return Error{rule, Place::argument("block scales"), "expected rows * cols values"};
  const auto shape = swizzled_shape(logical.rows, logical.cols);
  const auto bytes = shape ? checked_mul(shape->rows, shape->cols) : std::nullopt;
  if (!bytes) return Error{rule, Place::argument("block scales"), "the padded shape does not fit in 64 bits"};
  auto stored = Mat<std::uint8_t>::zeros(shape->rows, shape->cols);
  for (std::uint64_t r = 0; r < logical.rows; ++r)
    for (std::uint64_t c = 0; c < logical.cols; ++c) stored.v[swizzle_offset(r, c, shape->cols)] = logical.at(r, c);
  return stored;
}

Result<Mat<std::uint8_t>> unswizzle(const Mat<std::uint8_t>& stored, std::uint64_t rows, std::uint64_t blocks, RuleId rule) {
  if (!stored.shape_ok()) return Error{rule, Place::argument("block scales"), "expected rows * cols values"};
  const auto shape = swizzled_shape(rows, blocks);
  if (!shape || shape->rows != stored.rows || shape->cols != stored.cols)
    return Error{rule, Place::argument("block scales"),
                 "expected the swizzled shape of " + shape_str(rows, blocks) + " scales" +
                     (shape ? ", " + shape_str(shape->rows, shape->cols) : std::string()) + ", found " +
                     shape_str(stored.rows, stored.cols)};
  auto logical = Mat<std::uint8_t>::zeros(rows, blocks);
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < blocks; ++c) logical.at(r, c) = stored.v[swizzle_offset(r, c, shape->cols)];
  return logical;
}

}  // namespace safespec::deq
