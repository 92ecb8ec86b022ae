// Dequantization of every comfy_quant weight format except W4A8 (which has its
// own reference): the stored tensors in, the weight in the original
// (un-rotated) basis out, as binary32 values of the output dtype T
// (quant-numerics.md §6.1, §7.2, §8.1, §9.1, §10.1, §11; layouts L10-L17).
//
// Every rounding is written out. Where the document leaves the order of a
// T-typed computation open (⚠ U5, U7, U10, §8.1), the position taken is stated
// at the function and is the same everywhere: each PyTorch elementwise
// operation is one binary32 operation rounded once to T (§1.3), a scale held
// as a binary32 tensor enters as is, and T-typed matrix products (the ConvRot
// un-rotation) are the exact sum rounded once to T (§3.3, ⚠ U1).
//
// Inputs are plain values: packed and fp8 codes as bytes (read unsigned),
// int8 weights as int8, scales as binary32. Wrong sizes, K not divisible, a
// ConvRot size that is not a power of 4 or an output dtype other than F32,
// BF16, F16 are errors; NaN and infinite scales propagate as IEEE arithmetic
// does.
#pragma once

#include <cstdint>
#include <vector>

#include "spec/dtype.hpp"
#include "spec/number_formats.hpp"
#include "spec/numerics/matrix.hpp"
#include "spec/result.hpp"

namespace safespec::deq {

// L10/L11, §8.1. `codes` [N, K]; `scale` the one-element weight_scale.
enum class Fp8 : unsigned char { E4M3, E5M2 };
struct Fp8Weight {
  Fp8 kind = Fp8::E4M3;
  Mat<std::uint8_t> codes;
  float scale = 1.0f;
};
// W = T(f32(decode(q) * T(s))): the scale is rounded to T first, as sglang's
// full-precision path does (T(weight) * T(weight_scale[0])); kitchen's own
// dequant is recorded only as "in the output dtype" (⚠ §8.1), which this
// matches whenever s is a T value.
Result<Mat<float>> dequant_fp8(const Fp8Weight& w, Dtype t);
// Its checks (T, the shape), in its order: a fast path returns their Error.
Status check_fp8(const Fp8Weight& w, Dtype t);

// L14, §7.2. `q` [N, K]; `scale` one value (tensor-wise, shape ()) or N values
// (row-wise, shape [N, 1]); `convrot_groupsize` 0 for a plain weight.
struct Int8Weight {
  Mat<std::int8_t> q;
  std::vector<float> scale;
  std::uint64_t convrot_groupsize = 0;
};
// Wrot = T(f32(q * s)) (⚠ U5: the dtype of q * s is not recorded; the output
// dtype, as the document presumes), then with ConvRot W = T(Wrot * H_C) per
// block of C columns.
Result<Mat<float>> dequant_int8(const Int8Weight& w, Dtype t);
// Its checks before the ConvRot step (whose own are hadamard_blocks's).
Status check_int8(const Int8Weight& w, Dtype t);

// L15, §6.1. `packed` [N, K/2] bytes, signed low-nibble-first codes (L2);
// `scale` [N]; C a power of 4 (sglang: 16, 64, 256).
struct W4a4Weight {
  Mat<std::uint8_t> packed;
  std::vector<float> scale;
  std::uint64_t convrot_groupsize = 256;
};
// The signed codes v[n, k] (-8..7), K = 2 * packed columns.
Result<Mat<std::int8_t>> w4a4_codes(const W4a4Weight& w);
// Wrot = T(f32(v * scale[n])), then W = T(Wrot * H_C) per block.
Result<Mat<float>> dequant_convrot_w4a4(const W4a4Weight& w, Dtype t);
// Its checks before the ConvRot step (whose own are hadamard_blocks's).
Status check_convrot_w4a4(const W4a4Weight& w, Dtype t);

// L12, §9.1. `packed` [N16, K16/2] bytes, E2M1 codes high nibble first (L1);
// `block_scales` the stored, swizzled E4M3 bytes
// [roundup(N16, 128), roundup(K16/16, 4)]; `global_scale` weight_scale_2;
// `rows`, `cols` the logical N <= N16, K <= K16 the result is sliced to.
struct Nvfp4Weight {
  Mat<std::uint8_t> packed;
  Mat<std::uint8_t> block_scales;
  float global_scale = 1.0f;
  std::uint64_t rows = 0, cols = 0;
};
// W[n, k] = T(f32(e2m1(q) * T(f32(s2 * bs[n, k/16])))) (⚠ U7: the position
// taken is that the 0-d binary32 global scale times the T block scale is one
// T-typed product, then the product with the E2M1 value, exact in T, another).
Result<Mat<float>> dequant_nvfp4(const Nvfp4Weight& w, Dtype t);
// Its checks, then its step 3 (the stored block scales un-swizzled to
// [N16, K16/16], or the layout Error), in its order.
Status check_nvfp4(const Nvfp4Weight& w, Dtype t);
Result<Mat<std::uint8_t>> nvfp4_block_scales(const Nvfp4Weight& w);

// L13, §10.1. `codes` [N32, K32] E4M3 bytes; `block_scales` the stored,
// swizzled E8M0 bytes [roundup(N32, 128), roundup(K32/32, 4)]; `rows`,
// `cols` the logical N <= N32, K <= K32. E8M0 code 0 decodes as 0 and 255 as
// +inf under comfy-kitchen's decoder (§2.3, the default), as 2^-127 and NaN
// under the OCP one.
struct Mxfp8Weight {
  Mat<std::uint8_t> codes;
  Mat<std::uint8_t> block_scales;
  std::uint64_t rows = 0, cols = 0;
  num::E8M0 e8m0 = num::E8M0::Kitchen;
};
// W[n, k] = T(f32(decode_E4M3(q) * E8M0(e[n, k/32]))): one binary32 product,
// exact unless it underflows, rounded once to T. The document gives no dtype
// for this product; the position taken keeps the scale binary32 (an F16 cast
// of the scale would flush 2^-25 and below to 0 and overflow 2^16 and above).
Result<Mat<float>> dequant_mxfp8(const Mxfp8Weight& w, Dtype t);
// Its checks, then the un-swizzled E8M0 bytes [N32, K32/32] (or the layout
// Error), in its order.
Status check_mxfp8(const Mxfp8Weight& w, Dtype t);
Result<Mat<std::uint8_t>> mxfp8_block_scales(const Mxfp8Weight& w);

// L17, §11. `packed` [N, K/2] bytes, unsigned low-nibble-first codes;
// `scale`, `zeros` [K/G, N] values of `scale_dtype` (the dtype the result is
// computed and returned in).
struct AwqWeight {
  Mat<std::uint8_t> packed;
  Mat<float> scale, zeros;
  std::uint64_t group_size = 64;
  Dtype scale_dtype = Dtype::F16;
};
// W[n, k] = S(S((u4 - 8) * scale[g, n]) + zeros[g, n]), g = k / G: two
// elementwise operations in the scale dtype S, each rounded once, no fused
// multiply-add (⚠ U10: the order is not recorded; this is the formula's
// left-to-right order as PyTorch evaluates it).
Result<Mat<float>> dequant_awq_w4a16(const AwqWeight& w);
// Its checks (shapes, G, every scale and zero a value of S), in its order.
Status check_awq_w4a16(const AwqWeight& w);

}  // namespace safespec::deq
