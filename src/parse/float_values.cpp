// Stored float tensors as binary32 values and back (layer_io.hpp's
// float_type_of, decode_floats, encode_floats, dtype_of): the one codec the
// reader, `linear`'s inputs and outputs, and `dequant` share.
#include <bit>
#include <cstring>

#include "spec/number_formats.hpp"
#include "src/parse/layer_io.hpp"

namespace safespec {

using numerics::FloatType;

std::optional<FloatType> float_type_of(Dtype d) {
  switch (d) {
    case Dtype::F32: return FloatType::F32;
    case Dtype::BF16: return FloatType::BF16;
    case Dtype::F16: return FloatType::F16;
    default: return std::nullopt;
  }
}

Dtype dtype_of(FloatType t) {
  switch (t) {
    case FloatType::F32: return Dtype::F32;
    case FloatType::BF16: return Dtype::BF16;
    case FloatType::F16: return Dtype::F16;
  }
  return Dtype::F32;
}

std::vector<float> decode_floats(FloatType t, std::span<const std::uint8_t> b) {
  std::vector<float> out;
  if (t == FloatType::F32) {
    out.resize(b.size() / 4);
    if constexpr (std::endian::native == std::endian::little) {  // the file's byte order is the host's
      if (!out.empty()) std::memcpy(out.data(), b.data(), out.size() * 4);
    } else {
      for (std::size_t i = 0; i < out.size(); ++i) {
        const std::uint32_t u = std::uint32_t{b[4 * i]} | std::uint32_t{b[4 * i + 1]} << 8 |
                                std::uint32_t{b[4 * i + 2]} << 16 | std::uint32_t{b[4 * i + 3]} << 24;
        out[i] = std::bit_cast<float>(u);
      }
    }
    return out;
  }
  out.resize(b.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto u = static_cast<std::uint16_t>(b[2 * i] | b[2 * i + 1] << 8);
    out[i] = t == FloatType::BF16 ? num::bf16_to_f32(u) : num::f16_to_f32(u);
  }
  return out;
}

std::vector<std::uint8_t> encode_floats(FloatType t, std::span<const float> values) {
  if (t == FloatType::F32) {
    std::vector<std::uint8_t> out(values.size() * 4);
    if constexpr (std::endian::native == std::endian::little) {  // safetensors' byte order is the host's
      if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
    } else {
      for (std::size_t i = 0; i < values.size(); ++i) {
        const auto u = std::bit_cast<std::uint32_t>(values[i]);
        for (std::size_t b = 0; b < 4; ++b) out[4 * i + b] = static_cast<std::uint8_t>(u >> (8 * b));
      }
    }
    return out;
  }
  std::vector<std::uint8_t> out(values.size() * 2);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint16_t u = t == FloatType::BF16 ? num::f32_to_bf16(values[i]) : num::f32_to_f16(values[i]);
    out[2 * i] = static_cast<std::uint8_t>(u);
    out[2 * i + 1] = static_cast<std::uint8_t>(u >> 8);
  }
  return out;
}

}  // namespace safespec
