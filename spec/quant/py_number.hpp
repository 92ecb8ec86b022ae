// A marker's Python int (or bool) held exactly enough for the arithmetic the
// consumers do on it with a layer's K (K < 2^66): magnitudes up to 38 digits
// exactly, larger ones by their residue mod 16 only. Python ints are
// unbounded; a shape is up to 2^64-1 and K = 2 * packed may pass 2^64.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "spec/python/python_repr.hpp"

namespace safespec::quant {

__extension__ typedef unsigned __int128 u128;

struct Num {
  bool neg = false;
  bool huge = false;  // |value| >= 10^38 (more than 38 decimal digits)
  u128 mag = 0;
  unsigned mod16 = 0;  // |value| % 16
  std::string text;    // str(value), as f-strings print it
};

// nullopt for anything but a bool, an int or a big int.
std::optional<Num> num_of(const py::Value& v);
// ComfyUI's value of a marker key (top level, then "params", else
// `fallback`) as a Num; nullopt when it is not an int or a bool.
std::optional<Num> comfy_num(const py::Value& marker, std::string_view key, std::int64_t fallback);
std::string dec(u128 v);  // decimal

inline bool at_least(const Num& n, u128 v) { return !n.neg && (n.huge || n.mag >= v); }
inline bool is_zero(const Num& n) { return !n.huge && n.mag == 0; }
inline bool equals(const Num& n, u128 v) { return !n.neg && !n.huge && n.mag == v; }
inline bool positive(const Num& n) { return !n.neg && !is_zero(n); }
// Python's k % n == 0 for a nonzero n (the sign of n does not matter).
inline bool divides(const Num& n, u128 k) { return k == 0 || (!n.huge && k % n.mag == 0); }
// Python's k // n for n > 0.
inline u128 floor_div(u128 k, const Num& n) { return n.huge ? 0 : k / n.mag; }
// A regular Hadamard size: a power of 4, at least 4 (L4, K6).
bool power_of_4(const Num& n);

}  // namespace safespec::quant
