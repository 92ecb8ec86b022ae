// The bit depth of asym_w4a8_int8 storage, as comfy-kitchen 2a6f4ef9 infers
// it (backends/eager/w4a8_int8.py, _w4a8_geometry): no marker key says 4 or
// 6 bits; K is the scale grid's, s_rel.shape[1] * group_size, and a row of
// K * bits / 8 bytes says the bits. One reading, shared by the rules and by
// `dequant`/`linear`, so a layer the rules call 6-bit is decoded as 6-bit.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "spec/checked_math.hpp"

namespace safespec::quant {

// K of a 6-bit (W6A8) weight: the weight [N, cols] and s_rel [N', groups]
// both 2-D, G >= 1, K = groups * G > 0 and cols * 8 == 6 * K. nullopt for
// any other shape, whatever 4-bit reading it has, and on overflow.
inline std::optional<std::uint64_t> six_bit_k(std::span<const std::uint64_t> weight_shape,
                                              std::span<const std::uint64_t> s_rel_shape, std::uint64_t group_size) {
  if (weight_shape.size() != 2 || s_rel_shape.size() != 2 || group_size == 0) return std::nullopt;
  const auto k = checked_mul(s_rel_shape[1], group_size);
  const auto row_bits = checked_mul(weight_shape[1], std::uint64_t{8});
  const auto k_bits = k ? checked_mul(*k, std::uint64_t{6}) : std::nullopt;
  if (!k || *k == 0 || !row_bits || !k_bits || *row_bits != *k_bits) return std::nullopt;
  return k;
}

}  // namespace safespec::quant
