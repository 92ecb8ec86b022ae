// Overflow-checked arithmetic on input-controlled 64-bit numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace safespec {

inline std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// F9: the element count, folded left to right starting from 1, failing at the
// first partial product that overflows; a zero does not short-circuit
// (safetensors-format.md §2.1). Returns the index of the failing dimension.
struct ShapeProduct {
  std::optional<std::uint64_t> count;
  std::size_t failed_at = 0;
};

inline ShapeProduct shape_product(std::span<const std::uint64_t> shape) {
  std::uint64_t n = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    auto next = checked_mul(n, shape[i]);
    if (!next) return {std::nullopt, i};
    n = *next;
  }
  return {n, 0};
}

}  // namespace safespec
