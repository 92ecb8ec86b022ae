#include "src/parse/tensor_values.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "spec/dtype.hpp"
#include "spec/limits.hpp"
#include "spec/number_formats.hpp"

namespace safespec {

namespace {

// Little-endian unsigned integer of `n` bytes at `at`.
std::uint64_t le(std::span<const std::uint8_t> b, std::size_t at, unsigned n) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= std::uint64_t{b[at + i]} << (8 * i);
  return v;
}

// Element i of a little-endian bit stream of w-bit codes (w <= 8).
std::uint8_t bits_at(std::span<const std::uint8_t> b, std::uint64_t i, unsigned w) {
  const std::uint64_t pos = i * w;
  const std::size_t byte = static_cast<std::size_t>(pos / 8);
  const unsigned shift = static_cast<unsigned>(pos % 8);
  unsigned v = b[byte];
  if (shift + w > 8) v |= unsigned{b[byte + 1]} << 8;  // the code spans two bytes (F6)
  return static_cast<std::uint8_t>((v >> shift) & ((1u << w) - 1));
}

// A sign-exponent-mantissa code without infinities or NaN (OCP FP6 E2M3 and
// E3M2): exponent 0 is subnormal.
double minifloat(unsigned code, unsigned e, unsigned m, int bias) {
  const bool neg = (code >> (e + m)) & 1;
  const unsigned exp = (code >> m) & ((1u << e) - 1);
  const unsigned man = code & ((1u << m) - 1);
  const double v = exp == 0 ? std::ldexp(double(man), 1 - bias - int(m))
                            : std::ldexp(1.0 + std::ldexp(double(man), -int(m)), int(exp) - bias);
  return neg ? -v : v;
}

// The fnuz fp8 formats (PyTorch float8_e4m3fnuz, float8_e5m2fnuz): no
// infinities, no negative zero, NaN only at 0x80, bias one more than IEEE's.
double fnuz(std::uint8_t code, unsigned e, unsigned m, int bias) {
  if (code == 0x80) return std::nan("");
  return minifloat(code, e, m, bias);
}

// Floats print in their shortest round-tripping form for their own width
// (fmt's "{}" of a float or a double); JSON has no NaN or infinity, so those
// are strings there.
void add_float(TensorValues& v, double x, bool single) {
  std::string t = single ? fmt::format("{}", static_cast<float>(x)) : fmt::format("{}", x);
  v.json.push_back(std::isfinite(x) ? t : "\"" + t + "\"");
  v.text.push_back(std::move(t));
}

void add_int(TensorValues& v, std::string t) {
  v.json.push_back(t);
  v.text.push_back(std::move(t));
}

}  // namespace

std::uint64_t value_bytes(Dtype d, std::uint64_t count) { return (count * dtype_bits(d) + 7) / 8; }

TensorValues decode_values(Dtype d, std::span<const std::uint8_t> b, std::uint64_t count) {
  TensorValues v;
  const unsigned size = dtype_bits(d) / 8;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::size_t at = static_cast<std::size_t>(i * size);
    switch (d) {
      case Dtype::BOOL:
        if (b[at] <= 1) add_int(v, b[at] ? "true" : "false");
        else {
          // torch reads any other byte as a bool it never wrote: show the byte.
          const std::string t = fmt::format("0x{:02x}", b[at]);
          v.text.push_back(t + " (not 0 or 1)");
          v.json.push_back("\"" + t + "\"");
        }
        break;
      case Dtype::U8: case Dtype::U16: case Dtype::U32: case Dtype::U64:
        add_int(v, fmt::format("{}", le(b, at, size)));
        break;
      case Dtype::I8: case Dtype::I16: case Dtype::I32: case Dtype::I64: {
        const std::uint64_t u = le(b, at, size);
        const unsigned bits = 8 * size;
        // Two's complement of `bits` bits, sign-extended without overflow.
        const std::int64_t s = bits == 64 ? std::bit_cast<std::int64_t>(u)
                                          : static_cast<std::int64_t>(u) - ((u >> (bits - 1)) ? (std::int64_t{1} << bits) : 0);
        add_int(v, fmt::format("{}", s));
        break;
      }
      case Dtype::F16: add_float(v, num::f16_to_f32(static_cast<std::uint16_t>(le(b, at, 2))), true); break;
      case Dtype::BF16: add_float(v, num::bf16_to_f32(static_cast<std::uint16_t>(le(b, at, 2))), true); break;
      case Dtype::F32: add_float(v, std::bit_cast<float>(static_cast<std::uint32_t>(le(b, at, 4))), true); break;
      case Dtype::F64: add_float(v, std::bit_cast<double>(le(b, at, 8)), false); break;
      case Dtype::F8_E4M3: add_float(v, num::decode_e4m3fn(b[at]), true); break;
      case Dtype::F8_E5M2: add_float(v, num::decode_e5m2(b[at]), true); break;
      case Dtype::F8_E8M0: add_float(v, num::decode_e8m0(b[at], num::E8M0::Ocp), true); break;
      case Dtype::F8_E4M3FNUZ: add_float(v, fnuz(b[at], 4, 3, 8), true); break;
      case Dtype::F8_E5M2FNUZ: add_float(v, fnuz(b[at], 5, 2, 16), true); break;
      case Dtype::F4: add_float(v, num::decode_e2m1(bits_at(b, i, 4)), true); break;
      case Dtype::F6_E2M3: add_float(v, minifloat(bits_at(b, i, 6), 2, 3, 1), true); break;
      case Dtype::F6_E3M2: add_float(v, minifloat(bits_at(b, i, 6), 3, 2, 3), true); break;
      case Dtype::C64: {
        // Python's complex repr: (re+imj); JSON [re, im].
        const float re = std::bit_cast<float>(static_cast<std::uint32_t>(le(b, at, 4)));
        const float im = std::bit_cast<float>(static_cast<std::uint32_t>(le(b, at + 4, 4)));
        const auto part = [](float x) { return std::isfinite(x) ? fmt::format("{}", x) : fmt::format("\"{}\"", x); };
        v.text.push_back(fmt::format("({}{}{}j)", re, std::signbit(im) || std::isnan(im) ? "" : "+", im));
        v.json.push_back("[" + part(re) + "," + part(im) + "]");
        break;
      }
    }
  }
  return v;
}

Result<TensorValues, std::string> read_values(const ByteFile& file, const Model& m, const TensorEntry& t,
                                              std::uint64_t count) {
  std::optional<std::uint64_t> elements = 1;
  for (std::uint64_t s : t.shape) {
    if (!elements) break;
    if (s != 0 && *elements > UINT64_MAX / s) elements.reset();  // a shape no file can hold
    else *elements *= s;
  }
  count = std::min(count, kInspectValuesMax);
  const std::uint64_t n = elements ? std::min(count, *elements) : count;
  const std::uint64_t need = value_bytes(t.dtype, n);
  if (t.end < t.begin) return fmt::format("its data_offsets [{}, {}] are reversed", t.begin, t.end);
  if (need > t.end - t.begin)
    return fmt::format("its first {} elements need {} bytes, its data_offsets [{}, {}] hold {}", n, need, t.begin,
                       t.end, t.end - t.begin);
  // The buffer starts after the 8-byte length and the header.
  const std::uint64_t start = 8 + m.header_length;
  if (start > file.size() || t.begin > file.size() - start || need > file.size() - start - t.begin)
    return fmt::format("{} bytes at data_offsets [{}, {}] lie outside the file ({} bytes)", need, t.begin,
                       t.begin + need, file.size());
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(need));
  if (auto r = file.read_at(start + t.begin, bytes); !r) return r.error().message;
  TensorValues v = decode_values(t.dtype, bytes, n);
  v.elements = elements;
  v.truncated = !elements || n < *elements;
  return v;
}

}  // namespace safespec
