// The W4A8 linear assembled from the steps of w4a8_reference.cpp, in the order
// of quant-numerics.md §5.3 (cuda.1-cuda.11), §5.4 (eager.1-eager.9 and
// eager.C1-eager.C4) and §5.10 (dequantization and ideal).
#include <algorithm>
#include <span>

#include "spec/numerics/exact_sum.hpp"
#include "spec/numerics/w4a8_reference.hpp"

namespace safespec::numerics {

namespace {

struct QuantizedRow {
  std::vector<float> rotated;  // cuda: binary32 r; eager: T_x values xr
  float amax = 0, xs = 0, divisor = 0;
  std::vector<std::int8_t> xq;
};

// cuda.2-cuda.6 for one row. cuda.2 (f32(x), exact) is the identity on the
// binary32 carriers of T_x values.
QuantizedRow quantize_row_cuda(std::span<const float> x_row, std::size_t c, FloatType tx, const CudaF32& f32) {
  QuantizedRow row;
  for (std::size_t b = 0; b < x_row.size(); b += c) {
    const std::vector<float> r = rotate_cuda(x_row.subspan(b, c), f32);  // cuda.3
    row.rotated.insert(row.rotated.end(), r.begin(), r.end());
  }
  row.amax = amax_cuda(row.rotated);                       // cuda.4
  row.xs = activation_scale_cuda(row.amax, tx, f32);       // cuda.5
  row.divisor = round_to(tx, row.xs);                      // cuda.6, zero kept
  for (float r : row.rotated) row.xq.push_back(quantize_cuda(r, row.divisor, tx, f32));
  return row;
}

// eager.2-eager.6 for one row.
QuantizedRow quantize_row_eager(std::span<const float> x_row, std::size_t c, FloatType tx, EagerScale scale) {
  QuantizedRow row;
  for (std::size_t b = 0; b < x_row.size(); b += c) {
    const std::vector<float> xr = rotate_eager(x_row.subspan(b, c), tx);  // eager.2
    row.rotated.insert(row.rotated.end(), xr.begin(), xr.end());
  }
  row.amax = amax_eager(row.rotated);                     // eager.3
  row.xs = activation_scale_eager(row.amax, scale);       // eager.4
  row.divisor = divisor_eager(row.xs, tx);                // eager.5
  for (float xr : row.rotated) row.xq.push_back(quantize_eager(xr, row.divisor, tx));  // eager.6
  return row;
}

std::optional<float> bias_at(const W4a8Layer& l, std::size_t n) {
  if (!l.bias) return std::nullopt;
  return (*l.bias)[n];
}

// correction[g, n] for g = 0 .. K/G - 1.
std::vector<float> correction_column(const W4a8Layer& l, std::size_t n) {
  std::vector<float> col;
  for (std::size_t g = 0; g < l.k / l.group_size; ++g) col.push_back((*l.correction)[g * l.n + n]);
  return col;
}

// cuda.2-cuda.11, and eager.2-eager.9 (eager without a correction).
void linear_quantized(const W4a8Layer& l, const Activations& x, const W4a8Options& o, FloatType to,
                      const std::vector<std::int8_t>& wq, W4a8Trace& t) {
  const bool cuda = o.semantics == Semantics::Cuda;
  const CudaF32 f32{o.cuda_flush_subnormals};
  const std::span<const float> xv(x.values);
  const std::span<const std::int8_t> wv(wq);
  for (std::size_t m = 0; m < x.m; ++m) {
    const auto x_row = xv.subspan(m * l.k, l.k);
    const QuantizedRow row = cuda ? quantize_row_cuda(x_row, l.convrot_groupsize, x.dtype, f32)
                                  : quantize_row_eager(x_row, l.convrot_groupsize, x.dtype, o.eager_scale);
    t.rotated.insert(t.rotated.end(), row.rotated.begin(), row.rotated.end());
    t.amax.push_back(row.amax);
    t.xs.push_back(row.xs);
    t.divisor.push_back(row.divisor);
    t.xq.insert(t.xq.end(), row.xq.begin(), row.xq.end());
    for (std::size_t n = 0; n < l.n; ++n) {
      const std::int32_t acc = accumulate(row.xq, wv.subspan(n * l.k, l.k));  // cuda.7 / eager.7
      const float y = cuda ? epilogue_cuda(acc, row.xs, l.s_channel[n], bias_at(l, n), to, o.cuda_fma_epilogue, f32)
                           : epilogue_eager(acc, row.xs, l.s_channel[n], bias_at(l, n), to);
      t.acc.push_back(acc);
      t.y_epilogue.push_back(y);
      // cuda.10 runs on the T_o output of cuda.9; eager never gets here with a correction.
      t.y.push_back(cuda && l.correction
                        ? correction_cuda(y, row.xq, row.xs, l.group_size, correction_column(l, n), to)
                        : y);
    }
  }
}

// eager.C2-eager.C4: no activation quantization. F.linear is modelled as one
// correctly rounded T_x sum of x · W and the bias (U1 option (a)), the bias
// entering as a T_x value (F.linear takes it in x's dtype).
void linear_eager_correction(const W4a8Layer& l, const Activations& x, FloatType to,
                             const std::vector<std::int8_t>& wq, W4a8Trace& t) {
  const FloatType tx = x.dtype;
  const std::size_t c = l.convrot_groupsize;
  for (std::size_t n = 0; n < l.n; ++n) {
    const std::vector<float> corr = correction_column(l, n);
    std::vector<float> wrot(l.k);
    for (std::size_t k = 0; k < l.k; ++k)  // eager.C2
      wrot[k] = rotated_weight_eager(wq[n * l.k + k], l.s_channel[n], corr[k / l.group_size], tx);
    for (std::size_t b = 0; b < l.k; b += c) {  // eager.C3: H_C is symmetric, un-rotation = rotation
      const std::vector<float> w = rotate_eager(std::span<const float>(wrot).subspan(b, c), tx);
      t.w_dequant.insert(t.w_dequant.end(), w.begin(), w.end());
    }
  }
  for (std::size_t m = 0; m < x.m; ++m)
    for (std::size_t n = 0; n < l.n; ++n) {  // eager.C4
      ExactSum sum;
      for (std::size_t k = 0; k < l.k; ++k) sum.add_product(x.values[m * l.k + k], t.w_dequant[n * l.k + k]);
      if (l.bias) sum.add(round_to(tx, (*l.bias)[n]));
      t.y.push_back(round_to(to, sum.rounded(tx)));
    }
}

}  // namespace

Result<W4a8Output> w4a8_linear(const W4a8Layer& l, const Activations& x, const W4a8Options& o) {
  if (Status s = validate(l, x, o); !s) return s.error();
  const FloatType to = o.out_dtype.value_or(x.dtype);
  W4a8Trace t;
  t.wq = decode_weight(l);  // cuda.1 / eager.1 / eager.C1: W4A8.1
  if (o.semantics == Semantics::Eager && l.correction)
    linear_eager_correction(l, x, to, t.wq, t);
  else
    linear_quantized(l, x, o, to, t.wq, t);
  W4a8Output out;
  out.y = t.y;
  out.out_dtype = to;
  if (o.record_trace) out.trace = std::move(t);
  return out;
}

Result<std::vector<float>> w4a8_dequant(const W4a8Layer& l) {
  W4a8Options eager;  // the dequantization has no C == 256 restriction
  eager.semantics = Semantics::Eager;
  if (Status s = validate(l, Activations{0, FloatType::F32, {}}, eager); !s) return s.error();
  const std::vector<std::int8_t> wq = decode_weight(l);
  const std::size_t K = l.k, C = l.convrot_groupsize;
  std::vector<float> out(l.n * K);
  std::vector<float> wrot(K);
  for (std::size_t n = 0; n < l.n; ++n) {
    for (std::size_t k = 0; k < K; ++k) {  // eager.C2
      const float s = l.s_channel[n];
      wrot[k] = l.correction ? rotated_weight_eager(wq[n * K + k], s, (*l.correction)[(k / l.group_size) * l.n + n],
                                                    FloatType::F32)
                             : static_cast<float>(wq[n * K + k]) * s;
    }
    for (std::size_t b = 0; b < K; b += C) {  // eager.C3: H_C is symmetric, the un-rotation is the rotation
      const std::vector<float> w = rotate_eager(std::span<const float>(wrot).subspan(b, C), FloatType::F32);
      std::copy(w.begin(), w.end(), out.begin() + static_cast<std::ptrdiff_t>(n * K + b));
    }
  }
  return out;
}

Result<std::vector<double>> w4a8_ideal(const W4a8Layer& l, const Activations& x) {
  W4a8Options eager;  // the ideal has no CUDA-only shape limits
  eager.semantics = Semantics::Eager;
  if (Status s = validate(l, x, eager); !s) return s.error();
  const std::vector<std::int8_t> wq = decode_weight(l);
  const std::size_t c = l.convrot_groupsize;
  std::vector<double> w(l.n * l.k);
  for (std::size_t n = 0; n < l.n; ++n) {
    std::vector<double> wrot(l.k);
    for (std::size_t k = 0; k < l.k; ++k) {
      wrot[k] = static_cast<double>(wq[n * l.k + k]) * l.s_channel[n];
      if (l.correction) wrot[k] += (*l.correction)[(k / l.group_size) * l.n + n];
    }
    for (std::size_t b = 0; b < l.k; b += c) {
      const std::vector<double> block = rotate_ideal(std::span<const double>(wrot).subspan(b, c));
      std::copy(block.begin(), block.end(), w.begin() + static_cast<std::ptrdiff_t>(n * l.k + b));
    }
  }
  std::vector<double> y(x.m * l.n, 0.0);
  for (std::size_t m = 0; m < x.m; ++m)
    for (std::size_t n = 0; n < l.n; ++n) {
      double s = l.bias ? double{(*l.bias)[n]} : 0.0;
      for (std::size_t k = 0; k < l.k; ++k) s += double{x.values[m * l.k + k]} * w[n * l.k + k];
      y[m * l.n + n] = s;
    }
  return y;
}

W4a8Options cuda_entry_point(const W4a8Layer& l, W4a8Options o, FloatType x_dtype) {
  const FloatType to = o.out_dtype.value_or(x_dtype);
  const std::size_t align = to == FloatType::F32 ? 4 : 8;  // AlignC = 128 / bits(T_o)
  if (l.n % align == 0) {
    o.semantics = Semantics::Cuda;
  } else {
    o.semantics = Semantics::Eager;
    o.eager_scale = EagerScale::Reciprocal;  // the fallback runs on the GPU
  }
  return o;
}

}  // namespace safespec::numerics
