#include "spec/numerics/float_type.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "spec/number_formats.hpp"

namespace safespec::numerics {

std::string_view name(FloatType t) {
  switch (t) {
    case FloatType::F32: return "F32";
    case FloatType::BF16: return "BF16";
    case FloatType::F16: return "F16";
  }
  return "?";
}

float round_to(FloatType t, float v) {
  switch (t) {
    case FloatType::F32: return v;
    case FloatType::BF16: return num::bf16_to_f32(num::f32_to_bf16(v));
    case FloatType::F16: return num::f16_to_f32(num::f32_to_f16(v));
  }
  return v;
}

bool representable(FloatType t, float v) {
  if (std::isnan(v)) return true;
  return std::bit_cast<std::uint32_t>(round_to(t, v)) == std::bit_cast<std::uint32_t>(v);
}

float max_finite(FloatType t) {
  switch (t) {
    case FloatType::F32: return std::numeric_limits<float>::max();
    case FloatType::BF16: return num::bf16_to_f32(0x7F7F);
    case FloatType::F16: return 65504.0f;
  }
  return 0.0f;
}

float min_normal(FloatType t) { return std::ldexp(1.0f, min_normal_exponent(t)); }

int significand_bits(FloatType t) {
  switch (t) {
    case FloatType::F32: return 24;
    case FloatType::BF16: return 8;
    case FloatType::F16: return 11;
  }
  return 24;
}

int min_normal_exponent(FloatType t) { return t == FloatType::F16 ? -14 : -126; }

}  // namespace safespec::numerics
