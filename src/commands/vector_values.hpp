// What the vector writers share (vectors.cpp for asym_w4a8_int8,
// svdquant_vectors.cpp for svdquant_w4a4): the value generator, so every
// format's vectors come from the same splitmix64 stream of their seed, and the
// size bound that keeps a vector replayable. Named, not anonymous: the
// library's unity build puts both writers in one translation unit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spec/checked_math.hpp"
#include "spec/limits.hpp"
#include "spec/numerics/float_type.hpp"

namespace safespec::vector_values {

struct Rng {
  std::uint64_t s;
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // A multiple of 2^-23 in [-1, 1): exact in binary32.
  float symmetric() { return static_cast<float>(static_cast<std::int32_t>(next() >> 40) - (1 << 23)) * 0x1p-23f; }
};

inline std::string text(std::size_t v) { return std::to_string(v); }

inline std::size_t float_bytes(numerics::FloatType t) { return t == numerics::FloatType::F32 ? 4 : 2; }

// A tensor of rows × cols values of `bytes` each must stay within what
// `linear` and `compare` read (kMaxTensorBytes), or the vector could not be
// replayed.
inline std::optional<std::string> too_big(const std::string& what, std::size_t rows, std::size_t cols, std::size_t bytes) {
  const auto values = checked_mul(rows, cols);
  const auto total = values ? checked_mul(*values, bytes) : std::nullopt;
  if (total && *total <= kMaxTensorBytes) return std::nullopt;
  return what + ": expected at most " + text(kMaxTensorBytes) + " bytes (what linear and compare read), found " +
         (total ? text(*total) : std::string("more than 2^64")) + " bytes";
}

}  // namespace safespec::vector_values
