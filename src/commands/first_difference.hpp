// Where two tensors of one dtype first differ, for reports that must say
// more than a maximum (`safespec conformance numeric`): the element, its
// position, and both values with their bits. Extends src/commands/compare.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "spec/dtype.hpp"

namespace safespec {

struct FirstDifference {
  std::uint64_t index = 0;  // flat, row-major
  std::uint64_t differing = 0;  // how many elements differ in their bytes
  std::string position;     // "[1, 4]": the index in the shape
  std::string expected;     // "0.5 (0x3f000000)"
  std::string actual;
};

// nullopt when the bytes are equal. Sub-byte dtypes are compared byte by
// byte (the position is then a byte offset). Both spans have the same size.
std::optional<FirstDifference> first_difference(Dtype dtype, const std::vector<std::uint64_t>& shape,
                                                std::span<const std::uint8_t> expected,
                                                std::span<const std::uint8_t> actual);

// The element at `index` (flat, row-major) described as a FirstDifference
// is (its position and both values); `differing` is left 0. Whole-byte
// dtypes only; index < the element count.
FirstDifference difference_at(Dtype dtype, const std::vector<std::uint64_t>& shape,
                              std::span<const std::uint8_t> expected, std::span<const std::uint8_t> actual,
                              std::uint64_t index);

}  // namespace safespec
