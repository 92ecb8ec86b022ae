// A row-major matrix of plain values: the operands and results of the
// numeric reference (quant-numerics.md). Sizes are checked by the functions
// that take a Mat (`shape_ok`), never assumed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "spec/checked_math.hpp"

namespace safespec::deq {

// "[rows, cols]", as the numerics' messages print a matrix shape.
inline std::string shape_str(std::uint64_t rows, std::uint64_t cols) {
  return "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
}

template <class V>
struct Mat {
  std::uint64_t rows = 0, cols = 0;
  std::vector<V> v;  // rows * cols values, row after row

  Mat() = default;
  Mat(std::uint64_t r, std::uint64_t c, std::vector<V> values) : rows(r), cols(c), v(std::move(values)) {}
  // A zero-filled matrix; the caller has checked that r * c fits in memory.
  static Mat zeros(std::uint64_t r, std::uint64_t c) { return Mat(r, c, std::vector<V>(static_cast<std::size_t>(r * c))); }

  // rows * cols == v.size(), computed without overflow.
  bool shape_ok() const {
    const auto n = checked_mul(rows, cols);
    return n && *n == v.size();
  }
  const V& at(std::uint64_t r, std::uint64_t c) const { return v[static_cast<std::size_t>(r * cols + c)]; }
  V& at(std::uint64_t r, std::uint64_t c) { return v[static_cast<std::size_t>(r * cols + c)]; }

  friend bool operator==(const Mat&, const Mat&) = default;
};

}  // namespace safespec::deq
