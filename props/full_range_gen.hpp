// Generators for the fast-path properties (prop_dequant_fast_test.cpp,
// prop_w4a8_dump_fast_test.cpp): values drawn from whole ranges at every
// size, and the size cap those properties run under.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <utility>

#include <rapidcheck.h>

#include "props/catch.hpp"

namespace safespec::test::full_range {

// RapidCheck scales integer ranges (inRange, element, arbitrary) with the
// test size, small values first, and the properties cap the size: these draw
// from the whole range at every size, so every code, shape and option
// appears (shrinking still goes toward the first).
template <class T>
inline T pick(T lo, T hi_exclusive) {
  return *rc::gen::resize(100, rc::gen::inRange(lo, hi_exclusive));
}
template <class T, class... Ts>
inline T one_of(T first, Ts... rest) {
  return *rc::gen::resize(100, rc::gen::element(first, static_cast<T>(rest)...));
}
inline bool coin() { return pick(0, 2) == 1; }
// Bulk data (codes, bit patterns) does not shrink: a failure then shrinks
// its shape and options in seconds instead of every byte for minutes.
template <class T>
inline T bulk(T lo, T hi_exclusive) {
  return *rc::gen::noShrink(rc::gen::resize(100, rc::gen::inRange(lo, hi_exclusive)));
}
template <class T, class... Ts>
inline T bulk_one_of(T first, Ts... rest) {
  return *rc::gen::noShrink(rc::gen::resize(100, rc::gen::element(first, static_cast<T>(rest)...)));
}
inline std::uint8_t any_byte() { return static_cast<std::uint8_t>(bulk(0, 256)); }
inline float any_float() {
  const auto hi = static_cast<std::uint32_t>(bulk(0, 65536)), lo = static_cast<std::uint32_t>(bulk(0, 65536));
  return std::bit_cast<float>(hi << 16 | lo);
}

template <class Testable>
inline void prop(const std::string& description, int cases, Testable&& testable) {
  test::small_prop(description, cases, std::forward<Testable>(testable));
}

}  // namespace safespec::test::full_range
