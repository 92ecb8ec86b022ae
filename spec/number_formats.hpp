// The small number formats of quantized checkpoints, decoded and encoded
// exactly (quant-numerics.md §1-§2). Decoders return binary32, which holds
// every value of these formats exactly (§1.5).
//
// Out-of-range behaviour of each encoder, and the upstream cast it stands for:
// - f32 -> BF16 (§1.1): RNE; a value that rounds past the largest finite bf16
//   (at or above 0x7F7F + half an ulp = 3.3961775e38) gives +-inf, as the
//   formula (u + 0x7FFF + lsb) >> 16 does.
// - f32 -> F16 (§1.2): RNE; magnitudes >= 65520 give +-inf.
// - f32 -> E4M3FN (§2.1): the upstream paths clamp to +-448 before the cast,
//   so the cast's own overflow never arises there; safespec saturates to
//   +-448 (0x7E / 0xFE) and says so (the document's stated position).
// - f32 -> E2M1 (§2.4): the encoder itself clamps to +-6 first.
// NaN: a quiet NaN of the same sign for BF16, F16 and E4M3FN (0x7F / 0xFF);
// E2M1 has no NaN and upstream does not define it (safespec: code 0).
#pragma once

#include <cstdint>

namespace safespec::num {

// §2.1 F8_E4M3 / float8_e4m3fn: bias 7, no infinities, NaN at 0x7F and 0xFF.
float decode_e4m3fn(std::uint8_t code);
// §2.2 F8_E5M2: bias 15, infinities at 0x7C/0xFC, NaN above them.
float decode_e5m2(std::uint8_t code);

// §2.3 E8M0 scales. The OCP MX definition (PyTorch float8_e8m0fnu) and
// comfy-kitchen's decoder differ at both ends: code 0 is 2^-127 vs 0.0, code
// 255 is NaN vs +inf.
enum class E8M0 : unsigned char { Ocp, Kitchen };
float decode_e8m0(std::uint8_t code, E8M0 semantics);

// §2.4 FP4 E2M1: codes 0..7 are 0, 0.5, 1, 1.5, 2, 3, 4, 6; 8..15 their
// negatives (8 is -0). Only the low four bits of `code` are read.
float decode_e2m1(std::uint8_t code);

// §1.1, §1.2: binary16 and bfloat16 bit patterns to binary32 (exact).
float f16_to_f32(std::uint16_t bits);
float bf16_to_f32(std::uint16_t bits);

// §1.1: binary32 to bfloat16, round to nearest even; overflow gives +-inf;
// NaN gives a quiet NaN of the same sign (payload not specified).
std::uint16_t f32_to_bf16(float value);
// §1.2: binary32 to binary16, round to nearest even through the subnormal
// range; magnitudes >= 65520 give +-inf; NaN gives a quiet NaN.
std::uint16_t f32_to_f16(float value);

// §2.1 encoding as the upstream quantizers do it: round to nearest even on
// the E4M3FN grid, saturating to +-448 (the documented paths clamp before the
// cast, so saturation is safespec's choice for the cast itself); NaN gives
// 0x7F with the sign bit of the input.
std::uint8_t f32_to_e4m3fn(float value);

// §2.4 encoding (comfy-kitchen's eager encoder): clamp to +-6, then nearest
// grid value, ties to the even code; NaN is not defined upstream and gives 0.
std::uint8_t f32_to_e2m1(float value);

// §2.5 packed 4-bit codes: element 2j in the low nibble (W4A8, AWQ, W4A4) or
// the high nibble (nvfp4, "hi_first").
inline std::uint8_t low_nibble(std::uint8_t b) { return b & 0xF; }
inline std::uint8_t high_nibble(std::uint8_t b) { return b >> 4; }
// convrot_w4a4's signed reading of a code: c - 16 for c >= 8 (range -8..7).
inline int signed_int4(std::uint8_t code) { return (code & 0xF) >= 8 ? (code & 0xF) - 16 : (code & 0xF); }

}  // namespace safespec::num
