#include "src/commands/first_difference.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "src/commands/compare.hpp"

namespace safespec {

namespace {

// "1.5 (0x3fc0)": the value as %.9g (enough for F32) and the stored bits.
std::string element_text(Dtype dtype, std::span<const std::uint8_t> b) {
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < b.size() && i < 8; ++i) bits |= std::uint64_t{b[i]} << (8 * i);
  char buf[80];
  const int digits = static_cast<int>(b.size() * 2);
  if (const auto v = element_value(dtype, b))
    std::snprintf(buf, sizeof buf, "%.9g (0x%0*" PRIx64 ")", *v, digits, bits);
  else
    std::snprintf(buf, sizeof buf, "0x%0*" PRIx64, digits, bits);
  return buf;
}

std::string position_text(std::uint64_t index, const std::vector<std::uint64_t>& shape) {
  std::vector<std::uint64_t> at(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) return "[" + std::to_string(index) + "]";
    at[d] = index % shape[d];
    index /= shape[d];
  }
  std::string out = "[";
  for (std::size_t d = 0; d < at.size(); ++d) out += (d ? ", " : "") + std::to_string(at[d]);
  return out + "]";
}

}  // namespace

std::optional<FirstDifference> first_difference(Dtype dtype, const std::vector<std::uint64_t>& shape,
                                                std::span<const std::uint8_t> expected,
                                                std::span<const std::uint8_t> actual) {
  const std::uint32_t bits = dtype_bits(dtype);
  const bool whole = bits % 8 == 0 && bits > 0;
  const std::size_t w = whole ? bits / 8 : 1;
  const std::size_t n = std::min(expected.size(), actual.size()) / w;
  std::optional<FirstDifference> first;
  for (std::size_t i = 0; i < n; ++i) {
    const auto e = expected.subspan(i * w, w), a = actual.subspan(i * w, w);
    if (std::equal(e.begin(), e.end(), a.begin())) continue;
    if (!first) {
      first = FirstDifference{};
      first->index = i;
      first->position = whole ? position_text(i, shape) : "byte " + std::to_string(i);
      first->expected = whole ? element_text(dtype, e) : element_text(Dtype::U8, e);
      first->actual = whole ? element_text(dtype, a) : element_text(Dtype::U8, a);
    }
    ++first->differing;
  }
  return first;
}

FirstDifference difference_at(Dtype dtype, const std::vector<std::uint64_t>& shape,
                              std::span<const std::uint8_t> expected, std::span<const std::uint8_t> actual,
                              std::uint64_t index) {
  const std::size_t w = dtype_bits(dtype) / 8;
  FirstDifference d;
  d.index = index;
  d.position = position_text(index, shape);
  d.expected = element_text(dtype, expected.subspan(index * w, w));
  d.actual = element_text(dtype, actual.subspan(index * w, w));
  return d;
}

}  // namespace safespec
