#include "spec/numerics/int_linear.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "spec/numerics/hadamard_blocks.hpp"
#include "spec/numerics/rounding.hpp"

namespace safespec::deq {

namespace {

const float kR = std::bit_cast<float>(0x3C010204u);  // f32(1/127), §0.2
const float kF = std::bit_cast<float>(0x0DA24260u);  // f32(1e-30), §0.2

// torch.clamp(v, min=lo): NaN propagates.
float clamp_min(float v, float lo) { return std::isnan(v) ? v : (v < lo ? lo : v); }

// The checks every linear makes before computing: T, x's shape and values,
// x's K against the weight's, the bias length, the int32 bound.
Status check_input(const LinearInput& in, std::uint64_t n, std::uint64_t k, std::uint64_t bound, RuleId rule) {
  if (!is_compute_dtype(in.t))
    return Error{rule, Place::argument("x"), "expected an activation dtype F32, BF16 or F16, found " + std::string(dtype_name(in.t))};
  if (!in.x.shape_ok()) return Error{rule, Place::argument("x"), "expected rows * cols values"};
  if (in.x.cols != k)
    return Error{rule, Place::argument("x"),
                 "expected x [M, K] with K = " + std::to_string(k) + " for the weight [N, K] = " + shape_str(n, k) +
                     ", found x " + shape_str(in.x.rows, in.x.cols)};
  for (float v : in.x.v)
    if (!is_t_value(in.t, v))
      return Error{rule, Place::argument("x"), "expected values of " + std::string(dtype_name(in.t)) + ", found " + std::to_string(v)};
  if (in.bias && in.bias->size() != n)
    return Error{rule, Place::argument("bias"), "expected N = " + std::to_string(n) + " values, found " + std::to_string(in.bias->size())};
  if (k > bound)
    return Error{RuleId::QuantKInt32, Place::argument("x"),
                 "expected K <= " + std::to_string(bound) + " so that the int32 accumulator cannot overflow, found K = " +
                     std::to_string(k)};
  return ok_status();
}

// xr: x rotated per C-block (C = 0: not rotated).
Result<Mat<float>> rotate_or_copy(const LinearInput& in, std::uint64_t c, RuleId rule) {
  if (c == 0) return in.x;
  return hadamard_blocks(in.x, c, in.t, rule);
}

// eager.2-eager.6 on every row.
void eager_quantize(LinearTrace& tr, Dtype t, Device device) {
  tr.x_scale.assign(static_cast<std::size_t>(tr.xr.rows), 0.0f);
  tr.xq = Mat<std::int8_t>::zeros(tr.xr.rows, tr.xr.cols);
  for (std::uint64_t m = 0; m < tr.xr.rows; ++m) {
    const float xs = eager_xs(eager_row_amax(tr.xr, m), device);
    const float d = eager_divisor(xs, t);
    tr.x_scale[m] = xs;
    for (std::uint64_t k = 0; k < tr.xr.cols; ++k) tr.xq.at(m, k) = eager_code(tr.xr.at(m, k), d, t);
  }
}

// eager.7 / cuda.7: acc[m, n] = sum_k xq[m, k] * w[n, k], exact.
Mat<std::int64_t> integer_gemm(const Mat<std::int8_t>& xq, const Mat<std::int8_t>& w) {
  auto acc = Mat<std::int64_t>::zeros(xq.rows, w.rows);
  for (std::uint64_t m = 0; m < xq.rows; ++m)
    for (std::uint64_t n = 0; n < w.rows; ++n) {
      std::int64_t s = 0;
      for (std::uint64_t k = 0; k < xq.cols; ++k) s += std::int64_t{xq.at(m, k)} * std::int64_t{w.at(n, k)};
      acc.at(m, n) = s;
    }
  return acc;
}

// f32(acc): exact below 2^24, RNE above (§1.4).
float f32_of(std::int64_t acc) { return static_cast<float>(acc); }

// eager.8: p = f32(xs * s_w), v = T(f32(f32(acc) * p)), y = T(f32(v + T(bias))).
float eager_epilogue(std::int64_t acc, float xs, float s_w, const float* bias, Dtype t) {
  const float p = xs * s_w;
  const float v = round_t(t, f32_of(acc) * p);
  if (!bias) return v;
  return round_t(t, v + round_t(t, *bias));
}

// §6.3 CUDA, presumably of the cuda.9 form (⚠ not separately recorded):
// t0 = f32(f32(acc) * xs), t1 = f32(t0 * s_w), y = T(f32(t1 + f32(bias))) or
// T(t1); position: no FMA (U2 option (b)).
float cuda9_epilogue(std::int64_t acc, float xs, float s_w, const float* bias, Dtype t) {
  const float t0 = f32_of(acc) * xs;
  const float t1 = t0 * s_w;
  if (!bias) return round_t(t, t1);
  const float sum = t1 + *bias;
  return round_t(t, sum);
}

// §6.2 int4 path, "in T floats" (⚠ U4). Position: every elementwise operation
// rounds to T, scales cast to T, left to right as the formula reads:
// x_scale = T(f32(max(amax, f32(1e-10)) / 7)); q = T(f32(xr / x_scale));
// y = T(T(T(T(acc) * x_scale) * T(w_scale)) + T(bias)).
float w4a4_int4_x_scale(float amax, Dtype t) { return round_t(t, clamp_min(amax, 1e-10f) / 7.0f); }
std::int8_t w4a4_int4_code(float xr, float x_scale, Dtype t) {
  return static_cast<std::int8_t>(clamp_rne(round_t(t, xr / x_scale), -7, 7));
}
float w4a4_int4_epilogue(std::int64_t acc, float x_scale, float w_scale, const float* bias, Dtype t) {
  const float a = round_t(t, f32_of(acc));
  const float t1 = round_t(t, a * x_scale);
  const float t2 = round_t(t, t1 * round_t(t, w_scale));
  if (!bias) return t2;
  return round_t(t, t2 + round_t(t, *bias));
}

const float* bias_at(const LinearInput& in, std::uint64_t n) { return in.bias ? &(*in.bias)[n] : nullptr; }

}  // namespace

// ---- shared steps ----

float eager_row_amax(const Mat<float>& xr, std::uint64_t m) {
  float amax = 0.0f;
  for (std::uint64_t k = 0; k < xr.cols; ++k) {
    const float a = std::fabs(xr.at(m, k));
    if (std::isnan(a)) return a;
    if (a > amax) amax = a;
  }
  return amax;
}

float eager_xs(float amax, Device device) {
  const float q = device == Device::Cpu ? amax / 127.0f : amax * kR;
  return clamp_min(q, kF);
}

float eager_divisor(float xs, Dtype t) {
  const float d = round_t(t, xs);
  return d == 0.0f ? tiny_t(t) : d;
}

std::int8_t eager_code(float xr, float d, Dtype t) {
  return static_cast<std::int8_t>(clamp_rne(round_t(t, xr / d), -128, 127));
}

int clamp_rne(float q, int lo, int hi) {
  if (std::isnan(q)) return 0;
  const float r = std::nearbyint(q);  // default rounding mode: ties to even
  if (r <= static_cast<float>(lo)) return lo;
  if (r >= static_cast<float>(hi)) return hi;
  return static_cast<int>(r);
}

std::uint64_t k_bound(int a, int w) {
  return static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()) / static_cast<std::uint64_t>(a * w);
}

// ---- §7.1 int8_tensorwise ----

Result<LinearTrace> int8_linear(const LinearInput& in, const Int8Weight& w) {
  constexpr RuleId rule = RuleId::QuantInt8Shapes;
  if (!w.q.shape_ok()) return Error{rule, Place::argument("weight"), "expected rows * cols values"};
  const std::uint64_t n = w.q.rows, k = w.q.cols;
  if (auto s = check_input(in, n, k, k_bound(128, 128), rule); !s) return s.error();
  if (w.scale.size() != 1 && w.scale.size() != n)
    return Error{rule, Place::argument("weight_scale"),
                 "expected 1 or N = " + std::to_string(n) + " scale values, found " + std::to_string(w.scale.size())};
  LinearTrace tr;
  auto xr = rotate_or_copy(in, w.convrot_groupsize, RuleId::QuantInt8ConvrotGroupsize);  // step 2
  if (!xr) return xr.error();
  tr.xr = std::move(xr).value();
  eager_quantize(tr, in.t, in.device);  // step 3
  tr.acc = integer_gemm(tr.xq, w.q);     // step 4
  tr.y = Mat<float>::zeros(in.x.rows, n);
  for (std::uint64_t m = 0; m < in.x.rows; ++m)  // step 5
    for (std::uint64_t j = 0; j < n; ++j) {
      const float s_w = w.scale.size() == 1 ? w.scale[0] : w.scale[j];
      tr.y.at(m, j) = eager_epilogue(tr.acc.at(m, j), tr.x_scale[m], s_w, bias_at(in, j), in.t);
    }
  return tr;
}

// ---- §6.2 / §6.3 convrot_w4a4 ----

W4a4LinearDtype w4a4_effective_dtype(W4a4LinearDtype linear_dtype, Backend backend) {
  return backend == Backend::Eager ? W4a4LinearDtype::Int4 : linear_dtype;
}

Result<LinearTrace> convrot_w4a4_linear(const LinearInput& in, const W4a4Weight& w, W4a4LinearDtype linear_dtype,
                                        Backend backend) {
  auto codes = w4a4_codes(w);
  if (!codes) return codes.error();
  const Mat<std::int8_t>& v = codes.value();
  const std::uint64_t n = v.rows, k = v.cols;
  const W4a4LinearDtype path = w4a4_effective_dtype(linear_dtype, backend);
  if (auto s = check_input(in, n, k, path == W4a4LinearDtype::Int4 ? k_bound(7, 8) : k_bound(128, 8), RuleId::QuantW4a4Shapes); !s)
    return s.error();
  if (w.scale.size() != n)
    return Error{RuleId::QuantW4a4Shapes, Place::argument("weight_scale"),
                 "expected N = " + std::to_string(n) + " scale values, found " + std::to_string(w.scale.size())};
  if (k % 64 != 0)  // the hard-wired quant_group_size (L15, K9)
    return Error{RuleId::QuantW4a4K, Place::argument("x"), "expected K divisible by 64 (quant_group_size), found K = " + std::to_string(k)};
  LinearTrace tr;
  auto xr = rotate_or_copy(in, w.convrot_groupsize, RuleId::QuantW4a4Groupsize);
  if (!xr) return xr.error();
  tr.xr = std::move(xr).value();
  if (path == W4a4LinearDtype::Int8) {
    eager_quantize(tr, in.t, in.device);
  } else {
    tr.x_scale.assign(static_cast<std::size_t>(tr.xr.rows), 0.0f);
    tr.xq = Mat<std::int8_t>::zeros(tr.xr.rows, tr.xr.cols);
    for (std::uint64_t m = 0; m < tr.xr.rows; ++m) {
      tr.x_scale[m] = w4a4_int4_x_scale(eager_row_amax(tr.xr, m), in.t);
      for (std::uint64_t j = 0; j < k; ++j) tr.xq.at(m, j) = w4a4_int4_code(tr.xr.at(m, j), tr.x_scale[m], in.t);
    }
  }
  tr.acc = integer_gemm(tr.xq, v);  // int4 codes widened to int8 on the int8 path: same integers
  tr.y = Mat<float>::zeros(in.x.rows, n);
  for (std::uint64_t m = 0; m < in.x.rows; ++m)
    for (std::uint64_t j = 0; j < n; ++j)
      tr.y.at(m, j) = path == W4a4LinearDtype::Int8
                          ? cuda9_epilogue(tr.acc.at(m, j), tr.x_scale[m], w.scale[j], bias_at(in, j), in.t)
                          : w4a4_int4_epilogue(tr.acc.at(m, j), tr.x_scale[m], w.scale[j], bias_at(in, j), in.t);
  return tr;
}

}  // namespace safespec::deq
