// The three activation / output dtypes of the W4A8 linear (quant-numerics.md
// §0.2, §5.1) and the one operation the reference needs on them: T(v), the
// round-to-nearest-even conversion of a binary32 value (§1.1, §1.2). Values
// of every type are carried as binary32, which holds each of them exactly.
#pragma once

#include <string_view>

namespace safespec::numerics {

enum class FloatType : unsigned char { F32, BF16, F16 };

std::string_view name(FloatType t);  // "F32", "BF16", "F16" (safetensors dtype names)

// T(v): RNE to T; overflow gives +-inf (§1.1, §1.2); NaN stays NaN. The
// identity for F32.
float round_to(FloatType t, float v);

// v == T(v) bit for bit; a NaN counts as representable.
bool representable(FloatType t, float v);

float max_finite(FloatType t);    // Tmax(T) (§0.2)
float min_normal(FloatType t);    // tiny(T) (§0.2)
int significand_bits(FloatType t);  // 24, 8, 11 (including the implicit bit)
int min_normal_exponent(FloatType t);  // -126, -126, -14

}  // namespace safespec::numerics
