// The reference W4A8 linear (asym_w4a8_int8): what comfy-kitchen's
// w4a8_int8_linear returns, step by step, in the two semantics of
// quant-numerics.md §5: `cuda` (§5.3, the CUDA kernels) and `eager` (§5.4,
// the PyTorch backend, also the CUDA entry point's fallback, §5.5).
//
// Written for reading, not speed: every numbered step of §5 is one small
// function below, named after it. Values of T_x / T_o are carried as binary32
// (which holds them exactly); integers as int8 / int32 in wider C++ types.
// Errors are data: invalid shapes and the documented rejections come back as
// an Error, never as undefined behaviour.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/numerics/float_type.hpp"
#include "spec/numerics/hadamard.hpp"
#include "spec/result.hpp"

namespace safespec::numerics {

// One W4A8 layer as comfy-kitchen receives it (§5.1), already decoded from
// its checkpoint tensors.
struct W4a8Layer {
  std::size_t n = 0;                  // output features N
  std::size_t k = 0;                  // input features K (logical, unpacked)
  std::size_t group_size = 0;         // G
  std::size_t convrot_groupsize = 0;  // C
  // 4, or 6 (W6A8): comfy-kitchen 2a6f4ef's reading of a row K * 6 / 8 bytes
  // wide (spec/quant/w4a8_geometry.hpp). Its codes are uniform, no codebook.
  std::size_t bits = 4;
  // [N, K * bits / 8]: a K/2-byte nibble plane, low nibble = column 2j
  // (§2.5); at 6 bits then a K/4-byte plane of each code's top 2 bits,
  // column c in byte c / 4 at bit 2 * (c % 4) (weight_code).
  std::vector<std::uint8_t> weight;
  std::vector<float> s_rel;           // [N, K/G], decode_e4m3fn of the stored bytes (or F32 values)
  std::vector<float> s_channel;       // [N]
  std::optional<std::array<float, 16>> codebook;
  std::optional<std::vector<float>> correction;  // [K/G, N]
  std::optional<std::vector<float>> bias;        // [N]; f32 values (cuda.8 widens, eager rounds to T_o)
};

// x [M, K] of dtype T_x, each value exactly representable in T_x.
struct Activations {
  std::size_t m = 0;
  FloatType dtype = FloatType::BF16;
  std::vector<float> values;
};

enum class Semantics : unsigned char { Cuda, Eager };
inline constexpr std::string_view semantics_name(Semantics s) { return s == Semantics::Eager ? "eager" : "cuda"; }

// eager.4: the CPU divides amax by 127; PyTorch on a CUDA device multiplies by
// R = f32(1/127) instead (D9). Default: the source as written (division).
enum class EagerScale : unsigned char { Divide, Reciprocal };

// The undetermined points of §5.13 that change values, each with safespec's
// default first.
struct W4a8Options {
  Semantics semantics = Semantics::Cuda;
  std::optional<FloatType> out_dtype;  // T_o; defaults to T_x (sglang's out_dtype = x.dtype)
  // U2: nvcc contracts cuda.9's t0 · s_channel + b into one FMA (option (a),
  // "the likely code generation" under --fmad=true). false: two roundings.
  bool cuda_fma_epilogue = true;
  // U12: --use_fast_math implies --ftz=true, so the cuda steps flush binary32
  // subnormals (option (a)). false: IEEE gradual underflow.
  bool cuda_flush_subnormals = true;
  EagerScale eager_scale = EagerScale::Divide;
  // The CUDA kernel rejects C != 256 (§5.1, D3). true runs the same butterfly
  // stages for any C = 4^k: an extension for hand-sized tests, not upstream.
  bool cuda_any_block_size = false;
  bool record_trace = false;
};

// Every intermediate of one call, row-major, for dumping and diffing. Steps
// a path does not take stay empty (eager with a correction has no xq).
struct W4a8Trace {
  std::vector<std::int8_t> wq;       // [N, K] W4A8.1
  std::vector<float> rotated;        // [M, K] cuda: binary32 r (cuda.3); eager: T_x values xr (eager.2)
  std::vector<float> amax;           // [M]
  std::vector<float> xs;             // [M] binary32 row scale
  std::vector<float> divisor;        // [M] d = T_x(xs) (eager: after the zero replacement)
  std::vector<std::int8_t> xq;       // [M, K]
  std::vector<std::int32_t> acc;     // [M, N]
  std::vector<float> y_epilogue;     // [M, N] cuda.9 / eager.8 before any correction
  std::vector<float> w_dequant;      // [N, K] eager.C3: the T_x weight in the original basis
  std::vector<float> y;              // [M, N] final output, T_o values
};

struct W4a8Output {
  std::vector<float> y;  // [M, N], values of T_o
  FloatType out_dtype = FloatType::BF16;
  std::optional<W4a8Trace> trace;
};

// cuda.7: |xq · Wq| <= 128 · 127, so int32 cannot overflow for K <= 132104.
inline constexpr std::size_t kW4a8MaxK = 132104;

// §5.1 validity (shapes, divisibility, G, C a power of 4, the K bound of
// cuda.7, and the CUDA kernel's C == 256) plus x [M, K] of values of T_x.
Status validate(const W4a8Layer& layer, const Activations& x, const W4a8Options& options);

// The whole linear in the chosen semantics.
Result<W4a8Output> w4a8_linear(const W4a8Layer& layer, const Activations& x, const W4a8Options& options = {});

// §5.10 with T = F32, as comfy-kitchen's eager dequantize computes it:
// Wrot = f32(Wq · s_channel) (with a correction: f32(that + correction),
// eager.C2), then W = F32(Wrot · H_C) per block (eager.C3, the exact sum
// rounded once). [N, K], the original basis. Any C = 4^k (eager's rule).
Result<std::vector<float>> w4a8_dequant(const W4a8Layer& layer);

// §5.10: x · Wᵀ + bias in binary64, W the un-rotated dequantized weight
// (W = (Wq · s_channel + correction) · H_C per block). For error bounds.
Result<std::vector<double>> w4a8_ideal(const W4a8Layer& layer, const Activations& x);

// §5.5: the semantics the CUDA entry point's result follows for this layer.
// CUTLASS declines N % (128 / bits(T_o)) != 0 and the entry point returns the
// eager backend's result, computed on the GPU (reciprocal scale, eager.4).
W4a8Options cuda_entry_point(const W4a8Layer& layer, W4a8Options options, FloatType x_dtype);

// The frozen 16-level Lloyd-Max table of comfy-kitchen (_FIXED_LUT,
// tensor/w4a8_stream.py 2b710abb; backends/eager/w4a8_int8.py 7d86acf:13-16):
// what its quantizer stores as weight_codebook when a layer's rotated groups
// are not heavy-tailed, and "the CUDA streamed decode kernel's built-in LUT".
// torch.tensor(_FIXED_LUT, dtype=float32) rounds each Python float (binary64)
// to binary32, so each entry is the binary64 literal rounded once more. Not
// symmetric: -0.980602 against 0.980671. `dequant`/`linear --codebook frozen`
// decode a layer without a weight_codebook through it (numerics.md §W6A8).
inline constexpr std::array<float, 16> kW4a8FrozenCodebook = {
    static_cast<float>(-0.980602), static_cast<float>(-0.794529), static_cast<float>(-0.638165),
    static_cast<float>(-0.500986), static_cast<float>(-0.377321), static_cast<float>(-0.263187),
    static_cast<float>(-0.155210), static_cast<float>(-0.050720), static_cast<float>(0.052541),
    static_cast<float>(0.156985),  static_cast<float>(0.265284),  static_cast<float>(0.379533),
    static_cast<float>(0.502636),  static_cast<float>(0.638953),  static_cast<float>(0.794876),
    static_cast<float>(0.980671)};

// ---- The steps, exposed for tests and for a fast path to reuse ----

// §2.5: byte = even code | odd code << 4.
std::pair<std::uint8_t, std::uint8_t> unpack_codes(std::uint8_t byte);  // (column 2j, column 2j+1)
std::uint8_t pack_codes(std::uint8_t even, std::uint8_t odd);

// The code of column `col` of a packed row of K columns at `bits` (4 or 6):
// nibble(row[col / 2], col % 2), at 6 bits | ((row[K/2 + col/4] >> 2(col % 4)) & 3) << 4.
std::uint8_t weight_code(std::span<const std::uint8_t> row, std::size_t k, std::size_t col, std::size_t bits);

// W4A8.1 (§5.2) for one element: level = codebook[c] or c - 2^(bits-1)
// (c - 8; c - 32 at 6 bits), p = f32(level · s), clamp(rne_int(p), -127, 127).
// NaN p (NaN scale or codebook entry, or 0 · inf) gives 0 (U8, safespec's choice).
std::int8_t decode_weight_element(std::uint8_t code, float s, const std::optional<std::array<float, 16>>& codebook,
                                  std::size_t bits = 4);
std::vector<std::int8_t> decode_weight(const W4a8Layer& layer);  // [N, K]

// cuda.4: max |r| over binary32 values, from 0 with fmaxf (NaN skipped).
float amax_cuda(std::span<const float> r);
// cuda.5: max(f32(min(amax, Tmax(T_x)) · R), F).
float activation_scale_cuda(float amax, FloatType x_dtype, const CudaF32& f32);
// cuda.6: clamp(rne_int(T_x(T_x(r) ⊘ d)), -128, 127) with d = T_x(xs) kept
// even when 0; NaN codes as -128 (fmaxf(-128, NaN)).
std::int8_t quantize_cuda(float r, float d, FloatType x_dtype, const CudaF32& f32);

// eager.3: max |xr| over T_x values; a NaN propagates.
float amax_eager(std::span<const float> xr);
// eager.4: max(f32(amax / 127), F) (or · R); a NaN propagates (torch.clamp).
float activation_scale_eager(float amax, EagerScale scale);
// eager.5: d = T_x(xs), replaced by tiny(T_x) when 0.
float divisor_eager(float xs, FloatType x_dtype);
// eager.6: clamp(rne_int(T_x(xr / d)), -128, 127); NaN codes as 0 (U8: the
// int8 cast of NaN is PyTorch-defined; safespec's choice; the row's xs is
// NaN then, so y does not depend on it).
std::int8_t quantize_eager(float xr, float d, FloatType x_dtype);

// cuda.7 / eager.7: Σ_k xq · Wq, exact (K is bounded, no overflow).
std::int32_t accumulate(std::span<const std::int8_t> xq, std::span<const std::int8_t> wq);

// cuda.8-cuda.9: one rounding to T_o; bias as f32 (nullopt: no bias).
float epilogue_cuda(std::int32_t acc, float xs, float s_channel, std::optional<float> bias, FloatType out,
                    bool fma, const CudaF32& f32);
// eager.8: p = f32(xs · s_channel), v = T_o(f32(f32(acc) · p)), y = T_o(v + T_o(bias)).
float epilogue_eager(std::int32_t acc, float xs, float s_channel, std::optional<float> bias, FloatType out);

// cuda.10 for one output: y + Σ_g T_o(T_o(S_g) · T_o(xs)) · T_o(corr[g, n]),
// with S_g = Σ_{k in g} xq. The addmm is modelled as one correctly rounded
// sum to T_o (U3: binary32 accumulation order not fixed upstream).
float correction_cuda(float y, std::span<const std::int8_t> xq_row, float xs, std::size_t group_size,
                      std::span<const float> correction_column, FloatType out);

// eager.C2: T_x(f32(f32(Wq · s_channel) + f32(corr))), two binary32 operations.
float rotated_weight_eager(std::int8_t wq, float s_channel, float correction, FloatType x_dtype);

}  // namespace safespec::numerics
