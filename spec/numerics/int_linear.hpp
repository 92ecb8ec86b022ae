// The reference linear layers of int8_tensorwise (quant-numerics.md §7.1) and
// convrot_w4a4 (§6.2, §6.3), written step by step for reading, not speed.
// Every intermediate is returned (LinearTrace) so a kernel author can find the
// first stage where a kernel departs.
//
// Scope: the eager backend's activation quantizer (eager.2-eager.6 of §5.4,
// which §7.1 and §6.3 reuse) with the T-typed rotation modelled as the exact
// sum rounded once to T (⚠ U1). comfy-kitchen's CUDA activation kernels for
// these formats (quantize_int8_rowwise_convrot64 and the shape-selected
// alternatives) are not recorded, so no CUDA activation path is modelled.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "spec/dtype.hpp"
#include "spec/numerics/dequant.hpp"
#include "spec/numerics/matrix.hpp"
#include "spec/result.hpp"

namespace safespec::deq {

// eager.4: PyTorch divides by 127 on the CPU and multiplies by f32(1/127) on
// a CUDA device. The caller names the device; GPU is what ComfyUI runs.
enum class Device : unsigned char { Cpu, Gpu };

// x: [M, K] values of T (F32, BF16 or F16); bias: N values (any binary32;
// each consumer rounds or widens it as its step says).
struct LinearInput {
  Mat<float> x;
  Dtype t = Dtype::BF16;
  std::optional<std::vector<float>> bias;
  Device device = Device::Gpu;
};

struct LinearTrace {
  Mat<float> xr;                 // rotated activations in T (x itself without ConvRot)
  std::vector<float> x_scale;    // per row: xs (binary32) or the W4A4 int4 x_scale (a T value)
  Mat<std::int8_t> xq;           // quantized activations
  Mat<std::int64_t> acc;         // exact integer products, |acc| <= INT32_MAX guaranteed by the K bound
  Mat<float> y;                  // [M, N] values of T
};

// ---- shared steps (eager.3-eager.6, §5.4) ----
// eager.3: max |xr| over a row of T values; NaN propagates.
float eager_row_amax(const Mat<float>& xr, std::uint64_t m);
// eager.4: max(f32(amax / 127), F) on the CPU, max(f32(amax * R), F) on a GPU,
// R = f32(1/127) = 0x3C010204, F = f32(1e-30) = 0x0DA24260. NaN stays NaN.
float eager_xs(float amax, Device device);
// eager.5: d = T(xs), replaced by tiny(T) when 0.
float eager_divisor(float xs, Dtype t);
// eager.6: clamp(rne_int(T(f32(xr / d))), -128, 127).
std::int8_t eager_code(float xr, float d, Dtype t);
// rne_int then clamp, as PyTorch round() + clamp + int cast; a NaN (⚠ U8: the
// int cast of NaN is PyTorch-defined) gives 0, the value CUDA's conversion and
// x86's truncating conversion narrowed to 8 bits both give.
int clamp_rne(float q, int lo, int hi);

// The K beyond which an int32 accumulator can overflow in some summation
// order, for |activation code| <= a and |weight code| <= w:
// floor(INT32_MAX / (a * w)). int8: 131071; W4A4 int4: 38347922; W4A4 int8:
// 2097151. Beyond it the GEMM is refused (NUM-K-INT32-OVERFLOW; ⚠ U9).
std::uint64_t k_bound(int a, int w);

// §7.1 (eager): rotate (when ConvRot), eager.3-eager.6, exact integer GEMM,
// eager.8 epilogue: p = f32(xs * s_w), v = T(f32(f32(acc) * p)),
// y = T(f32(v + T(bias))).
Result<LinearTrace> int8_linear(const LinearInput& in, const Int8Weight& w);

// §6.2 / §6.3. `linear_dtype` as the marker says; the eager backend ignores
// "int8" and runs the int4 path (§6.3, D4, G8).
enum class W4a4LinearDtype : unsigned char { Int4, Int8 };
enum class Backend : unsigned char { Cuda, Eager };
// The path `backend` actually takes for `linear_dtype`.
W4a4LinearDtype w4a4_effective_dtype(W4a4LinearDtype linear_dtype, Backend backend);
Result<LinearTrace> convrot_w4a4_linear(const LinearInput& in, const W4a4Weight& w, W4a4LinearDtype linear_dtype,
                                        Backend backend);

}  // namespace safespec::deq
