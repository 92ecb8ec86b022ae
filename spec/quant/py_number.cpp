#include "spec/quant/py_number.hpp"

#include "spec/quant/marker_values.hpp"

#include <algorithm>
#include <string_view>
#include <variant>

namespace safespec::quant {

std::optional<Num> num_of(const py::Value& v) {
  Num n;
  n.text = py::str(v);
  if (const bool* b = std::get_if<bool>(&v.data)) {
    n.mag = *b ? 1 : 0;
  } else if (const auto* i = std::get_if<py::Int>(&v.data)) {
    n.neg = i->negative;
    n.mag = i->magnitude;
  } else if (const auto* big = std::get_if<py::BigInt>(&v.data)) {
    std::string_view d = big->decimal;
    n.neg = !d.empty() && d[0] == '-';
    if (n.neg) d.remove_prefix(1);
    if (d.size() > 38) {
      n.huge = true;
      unsigned last4 = 0;
      for (char ch : d.substr(d.size() - 4)) last4 = last4 * 10 + static_cast<unsigned>(ch - '0');
      n.mod16 = last4 % 16;  // 10^4 is a multiple of 16
      return n;
    }
    for (char ch : d) n.mag = n.mag * 10 + static_cast<unsigned>(ch - '0');
  } else {
    return std::nullopt;
  }
  n.mod16 = static_cast<unsigned>(n.mag % 16);
  return n;
}

std::string dec(u128 v) {
  std::string s;
  do {
    s += static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v);
  std::reverse(s.begin(), s.end());
  return s;
}

bool power_of_4(const Num& n) {
  if (n.neg || n.huge || n.mag < 4 || (n.mag & (n.mag - 1)) != 0) return false;
  u128 m = n.mag;
  unsigned bit = 0;
  while (m >>= 1) ++bit;
  return bit % 2 == 0;
}

std::optional<Num> comfy_num(const py::Value& marker, std::string_view key, std::int64_t fallback) {
  const py::Value* v = comfy_get(marker, key);
  return v ? num_of(*v) : num_of(py::Value(fallback));
}

}  // namespace safespec::quant
