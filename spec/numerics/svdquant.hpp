// The svdquant_w4a4 weight (docs/spec/quant-layers.md L20; comfy-quants
// docs/formats/svdquant_w4a4_kitchen_tilepack.md and its reference math,
// algorithms/int4_svdquant/reference.py @ 55f0a26): signed int4 codes times
// a per-group scale, plus the low-rank branch proj_up @ proj_down^T.
//
// The effective weight is what comfy-quants' dequantize_svdquant_w4a4_effective_weight
// returns, computed in binary32: main[n, k] = f32(v * scale[k/64, n]), the
// branch L[n, k] = the exact sum over r of up[n, r] * down[k, r] rounded once
// to binary32 (the position every T-typed matrix product takes here, §3.3
// U1: a BLAS may differ by one ulp), and W = f32(main + L), then rounded to
// the output dtype T. The tile-packed layout is un-tiled first; it is a
// permutation of the same values (kitchen_tilepack.py's pack/unpack).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "spec/dtype.hpp"
#include "spec/numerics/matrix.hpp"
#include "spec/result.hpp"

namespace safespec::deq {

inline constexpr std::uint64_t kSvdquantGroup = 64;
inline constexpr std::uint64_t kSvdquantTileN = 128;

// Natural operands: `packed` [N, K/2] signed low-nibble-first codes;
// `scale` [K/64, N]; `proj_down` [K, R]; `proj_up` [N, R] (all binary32
// values of their stored dtypes).
struct SvdquantWeight {
  Mat<std::uint8_t> packed;
  Mat<float> scale;
  Mat<float> proj_down;
  Mat<float> proj_up;
};

Status check_svdquant_w4a4(const SvdquantWeight& w, Dtype t);
Result<Mat<float>> dequant_svdquant_w4a4(const SvdquantWeight& w, Dtype t);

// comfy-quants' reference_svdquant_w4a4_linear, all binary32:
// xs[m, k] = f32(x[m, k] / smooth[k]); y[m, n] = the exact sum over k of
// xs[m, k] * W[n, k] rounded once to binary32 (W = the effective weight
// above; the U1 position), then f32(y + bias[n]). A zero smoothing factor is
// an Error, as there. Its `xs` and `w` are kept for --dump.
struct SvdquantLinear {
  Mat<float> xs;
  Mat<float> w;
  Mat<float> y;
};
Result<SvdquantLinear> linear_svdquant_w4a4(const Mat<float>& x, std::span<const float> smooth, const SvdquantWeight& w,
                                           const std::vector<float>* bias);

// The tile-packed layout back to natural: a weight stored as
// (N/128, K/64, 32, 128) bytes, where natural code (n, k) sits in byte
// [n/128, k/64, (n%128)/4, (n%4)*32 + (k%64)/2], low nibble for even k;
// a scale (N/128, K/64, 128) to [K/64, N]; proj_up (N/128, R, 128) to [N, R].
// `shape` is the stored shape; a wrong shape or size is an Error.
Result<Mat<std::uint8_t>> svdquant_untile_weight(std::span<const std::uint64_t> shape, std::span<const std::uint8_t> bytes);
Result<Mat<float>> svdquant_untile_scale(std::span<const std::uint64_t> shape, std::span<const float> values);
Result<Mat<float>> svdquant_untile_proj_up(std::span<const std::uint64_t> shape, std::span<const float> values);

}  // namespace safespec::deq
