#include "spec/numerics/hadamard.hpp"

#include <cmath>

#include "spec/numerics/exact_sum.hpp"

namespace safespec::numerics {

std::optional<int> log4_exact(std::size_t c) {
  int k = 0;
  while (c > 1 && c % 4 == 0) { c /= 4; ++k; }
  if (c != 1 || k == 0) return std::nullopt;
  return k;
}

double hadamard_entry(std::size_t c, std::size_t i, std::size_t j) {
  int k = 0, threes = 0;
  for (; c > 1; c /= 4, i /= 4, j /= 4, ++k)
    if (i % 4 + j % 4 == 3) ++threes;
  return std::ldexp(threes % 2 ? -1.0 : 1.0, -k);
}

float CudaF32::flush(float v) const {
  if (flush_subnormals && std::fpclassify(v) == FP_SUBNORMAL) return std::copysign(0.0f, v);
  return v;
}
float CudaF32::add(float a, float b) const { return flush(flush(a) + flush(b)); }
float CudaF32::sub(float a, float b) const { return flush(flush(a) - flush(b)); }
float CudaF32::mul(float a, float b) const { return flush(flush(a) * flush(b)); }
float CudaF32::div(float a, float b) const { return flush(flush(a) / flush(b)); }
float CudaF32::fma(float a, float b, float c) const { return flush(std::fma(flush(a), flush(b), flush(c))); }

namespace {

// S_d: row d of H4 (§3.1) applied to (a0, a1, a2, a3), left to right, as
// h4_row_dot does (§3.3). -a0 + a1 is computed as a1 - a0 (exactly equal).
float h4_row(int d, const float a[4], const CudaF32& f) {
  switch (d) {
    case 0: return f.sub(f.add(f.add(a[0], a[1]), a[2]), a[3]);
    case 1: return f.add(f.sub(f.add(a[0], a[1]), a[2]), a[3]);
    case 2: return f.add(f.add(f.sub(a[0], a[1]), a[2]), a[3]);
    default: return f.add(f.add(f.sub(a[1], a[0]), a[2]), a[3]);
  }
}

// One radix-4 stage with stride s: every output reads the previous stage's
// complete output (the kernel's barrier).
std::vector<float> fht_stage(const std::vector<float>& in, std::size_t s, const CudaF32& f) {
  std::vector<float> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::size_t d = (i / s) % 4, base = i - d * s;
    const float a[4] = {in[base], in[base + s], in[base + 2 * s], in[base + 3 * s]};
    out[i] = f.mul(0.5f, h4_row(static_cast<int>(d), a, f));
  }
  return out;
}

}  // namespace

std::vector<float> rotate_cuda(std::span<const float> block, const CudaF32& f32) {
  std::vector<float> r(block.begin(), block.end());  // cuda.2: f32(x), exact
  for (std::size_t s = 1; s < r.size(); s *= 4) r = fht_stage(r, s, f32);
  return r;
}

std::vector<float> rotate_eager(std::span<const float> block, FloatType t) {
  const std::size_t c = block.size();
  std::vector<float> xr(c);
  for (std::size_t j = 0; j < c; ++j) {
    ExactSum sum;
    for (std::size_t i = 0; i < c; ++i) sum.add(static_cast<double>(block[i]) * hadamard_entry(c, i, j));
    xr[j] = sum.rounded(t);
  }
  return xr;
}

std::vector<double> rotate_ideal(std::span<const double> block) {
  const std::size_t c = block.size();
  std::vector<double> out(c, 0.0);
  for (std::size_t j = 0; j < c; ++j)
    for (std::size_t i = 0; i < c; ++i) out[j] += block[i] * hadamard_entry(c, i, j);
  return out;
}

}  // namespace safespec::numerics
