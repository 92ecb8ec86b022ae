// Properties of the reference W4A8 linear (quant-numerics.md §3, §5):
// (1) H_C · H_C = I (§3.1), and rotating twice gives the input back;
// (2) packing round-trips for all 256 bytes (§2.5);
// (3) scaling x by a power of two leaves xq unchanged and scales y exactly
//     (no bias, no correction, no overflow or underflow);
// (4) permuting the weight rows permutes the output columns, bit for bit;
// (5) the output lies within an error bound derived from the steps of §5.3 /
//     §5.4 around the ideal output of §5.10.
#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <span>
#include <sstream>
#include <vector>

#include "props/catch.hpp"
#include "spec/number_formats.hpp"
#include "spec/numerics/exact_sum.hpp"
#include "spec/numerics/w4a8_reference.hpp"

using namespace safespec;
using namespace safespec::numerics;

namespace {

// Unit roundoff of T: half an ulp of 1.
double unit(FloatType t) { return std::ldexp(1.0, -significand_bits(t)); }
// Half the subnormal spacing of T: the absolute error of one rounding near 0.
double underflow(FloatType t) { return std::ldexp(1.0, min_normal_exponent(t) - significand_bits(t)); }

FloatType gen_type() { return *rc::gen::element(FloatType::F32, FloatType::BF16, FloatType::F16); }

// A T value k · 2^-8 with |k| <= limit (dyadic, so exact sums stay exact in binary64).
float gen_value(FloatType t, int limit) {
  return round_to(t, std::ldexp(static_cast<float>(*rc::gen::inRange(-limit, limit + 1)), -8));
}

struct Case {
  W4a8Layer layer;
  Activations x;
  W4a8Options options;
};

// A valid small layer: C in {4, 16, 64, 256}, G in {4, 8, 16, 32, 64},
// K = lcm(16, G, C) · (1 or 2), N in 1..4, M in 1..3; E4M3 group scales
// 0.125 .. 15, s_channel about 2^-9, optional codebook, correction and bias.
Case gen_case(Semantics semantics, bool with_extras) {
  Case c;
  W4a8Layer& l = c.layer;
  c.options.semantics = semantics;
  c.options.record_trace = true;
  c.options.cuda_any_block_size = *rc::gen::arbitrary<bool>();
  l.convrot_groupsize = semantics == Semantics::Cuda && !c.options.cuda_any_block_size
                            ? 256
                            : *rc::gen::element<std::size_t>(4, 16, 64, 256);
  l.group_size = *rc::gen::element<std::size_t>(4, 8, 16, 32, 64);
  l.k = std::lcm(std::lcm(std::size_t{16}, l.group_size), l.convrot_groupsize) * *rc::gen::inRange<std::size_t>(1, 3);
  l.n = *rc::gen::inRange<std::size_t>(1, 5);
  c.x.m = *rc::gen::inRange<std::size_t>(1, 4);
  c.x.dtype = gen_type();
  c.options.out_dtype = *rc::gen::arbitrary<bool>() ? c.x.dtype : gen_type();
  c.options.eager_scale = *rc::gen::element(EagerScale::Divide, EagerScale::Reciprocal);
  c.options.cuda_fma_epilogue = *rc::gen::arbitrary<bool>();
  const FloatType to = *c.options.out_dtype;
  for (std::size_t i = 0; i < l.n * l.k / 2; ++i) l.weight.push_back(*rc::gen::arbitrary<std::uint8_t>());
  for (std::size_t i = 0; i < l.n * (l.k / l.group_size); ++i)
    l.s_rel.push_back(num::decode_e4m3fn(*rc::gen::inRange<std::uint8_t>(0x20, 0x59)));
  for (std::size_t i = 0; i < l.n; ++i)
    l.s_channel.push_back(std::ldexp(1.0f + static_cast<float>(*rc::gen::inRange(0, 1024)) / 1024.0f, -9));
  if (with_extras && *rc::gen::arbitrary<bool>()) {
    std::array<float, 16> cb{};
    for (float& v : cb) v = static_cast<float>(*rc::gen::inRange(-100, 101)) / 100.0f;  // binary32 roundings
    l.codebook = cb;
  }
  if (with_extras && *rc::gen::arbitrary<bool>()) {
    std::vector<float> corr;
    for (std::size_t i = 0; i < (l.k / l.group_size) * l.n; ++i) corr.push_back(round_to(to, gen_value(to, 64) / 16));
    l.correction = corr;
  }
  if (with_extras && *rc::gen::arbitrary<bool>()) {
    std::vector<float> bias;
    for (std::size_t i = 0; i < l.n; ++i) bias.push_back(gen_value(to, 1024));
    l.bias = bias;
  }
  for (std::size_t i = 0; i < c.x.m * l.k; ++i) c.x.values.push_back(gen_value(c.x.dtype, 4096));
  return c;
}

Semantics gen_semantics() { return *rc::gen::element(Semantics::Cuda, Semantics::Eager); }

W4a8Output run(const Case& c) {
  auto r = w4a8_linear(c.layer, c.x, c.options);
  RC_ASSERT(r.ok());
  return r.value();
}

// ---- Error bound of (5), derived from the steps; u(T) = 2^-p(T) ----
//
// Quantized paths (cuda; eager without correction). With xr* the exact
// rotation, r the rotation the semantics computes (|r - xr*| <= δ_r; cuda:
// four binary32 additions per output per stage, δ_r <= 16·stages·2^-24·ℓ1 of
// the block; eager: one T_x rounding, δ_r <= u_x·|xr*|), e = T_x(r),
// d = T_x(xs) with |xs/d - 1| <= 2u_x, q = T_x(e/d) and amax/d <= 127(1+3u_x):
//   |xq·xs - xr*| <= xs·(0.5 + 1300·u_x) + 2δ_r
// (0.5 from rne_int; clamping a q above 127.5 costs at most 127·6u_x; the
// roundings of e, e/d and q cost 128·4u_x·xs; e·(xs/d - 1) costs 260u_x·xs).
// A degenerate divisor (cuda's kept zero, eager's tiny(T_x) replacement)
// gives |xq·xs - xr*| <= 128·xs + |xr*| + δ_r. Each activation error meets
// the weight |Wq|·s_channel (+ |correction| for cuda.10's term). The
// epilogue adds at most (2^-21 + 3u_o)·(|acc·xs·s_channel| + |b|) (three
// binary32 and two T_o roundings in eager.8; fewer in cuda.9), cuda.10 adds
// 4u_o·|S_g·xs·corr| per group plus one final T_o rounding. Every rounding
// near zero may instead err by half T's subnormal spacing.
double quantized_bound(const Case& c, const W4a8Trace& t, const std::vector<double>& xr, const std::vector<double>& l1,
                       std::size_t m, std::size_t n) {
  const W4a8Layer& l = c.layer;
  const FloatType tx = c.x.dtype, to = *c.options.out_dtype;
  const double ux = unit(tx), uo = unit(to), u32 = std::ldexp(1.0, -24);
  const double xs = t.xs[m], d = t.divisor[m];
  const bool cuda = c.options.semantics == Semantics::Cuda;
  const bool degenerate = d == 0.0 || d != static_cast<double>(round_to(tx, t.xs[m]));
  const int stages = *log4_exact(l.convrot_groupsize);
  const double s = l.s_channel[n], b = l.bias ? std::fabs((*l.bias)[n]) : 0.0;
  double bound = 0, magnitude = b;
  for (std::size_t k = 0; k < l.k; ++k) {
    const double dr = cuda ? 16 * stages * u32 * l1[k / l.convrot_groupsize] : ux * std::fabs(xr[k]);
    const double e = degenerate ? 128 * xs + std::fabs(xr[k]) + dr : xs * (0.5 + 1300 * ux) + 2 * dr;
    double w = std::fabs(static_cast<double>(t.wq[n * l.k + k])) * s;
    if (cuda && l.correction) w += std::fabs((*l.correction)[(k / l.group_size) * l.n + n]);
    bound += e * w;
    magnitude += std::fabs(xr[k]) * w;
  }
  const double y_epi = std::fabs(static_cast<double>(t.acc[m * l.n + n])) * xs * s + b;
  bound += (std::ldexp(1.0, -21) + 3 * uo) * y_epi * 1.01;
  if (cuda && l.correction) {
    double corr_sum = 0;
    for (std::size_t g = 0; g < l.k / l.group_size; ++g) {
      double sg = 0;
      for (std::size_t k = g * l.group_size; k < (g + 1) * l.group_size; ++k) sg += t.xq[m * l.k + k];
      corr_sum += std::fabs(sg) * xs * std::fabs((*l.correction)[g * l.n + n]);
    }
    bound += 4 * uo * corr_sum * 1.01 + uo * (y_epi + corr_sum) * 1.1;
  }
  // Near zero a rounding is absolute, not relative; then the binary64 ideal's own rounding.
  return bound + 8 * (underflow(tx) + underflow(to)) + 1e-12 * magnitude;
}

// eager.C1-C4: Wrot' = T_x(f32(f32(Wq·s) + corr)) is within
// (u_x + 2^-22)·(|Wq·s| + |corr|) of Wrot; the un-rotation adds that error
// through |H| = 2^-stages and one T_x rounding; F.linear one T_x rounding of
// the sum and the cast one T_o rounding.
double eager_correction_bound(const Case& c, const std::vector<double>& x, std::size_t n, double ideal) {
  const W4a8Layer& l = c.layer;
  const FloatType tx = c.x.dtype, to = *c.options.out_dtype;
  const double ux = unit(tx), uo = unit(to);
  const std::size_t cs = l.convrot_groupsize;
  const double h = std::ldexp(1.0, -*log4_exact(cs));
  std::vector<double> wrot(l.k), dwrot(l.k);
  for (std::size_t k = 0; k < l.k; ++k) {
    const std::uint8_t byte = l.weight[n * l.k / 2 + k / 2];
    const std::uint8_t code = k % 2 ? unpack_codes(byte).second : unpack_codes(byte).first;
    const double ws = decode_weight_element(code, l.s_rel[n * (l.k / l.group_size) + k / l.group_size], l.codebook) *
                      static_cast<double>(l.s_channel[n]);
    const double corr = (*l.correction)[(k / l.group_size) * l.n + n];
    wrot[k] = ws + corr;
    dwrot[k] = (ux + std::ldexp(1.0, -22)) * (std::fabs(ws) + std::fabs(corr));
  }
  double err = 0, magnitude = 0;
  for (std::size_t b0 = 0; b0 < l.k; b0 += cs) {
    const std::vector<double> w = rotate_ideal(std::span<const double>(wrot).subspan(b0, cs));
    double spread = 0;
    for (std::size_t i = 0; i < cs; ++i) spread += dwrot[b0 + i] * h;
    for (std::size_t j = 0; j < cs; ++j) {
      const double dw = ux * (std::fabs(w[j]) + spread) + spread;
      err += std::fabs(x[b0 + j]) * dw;
      magnitude += std::fabs(x[b0 + j] * w[j]);
    }
  }
  const double b = l.bias ? std::fabs((*l.bias)[n]) : 0.0;
  err += ux * b;
  const double y = std::fabs(ideal) + err;
  return err + (ux + uo) * y * 1.01 + 8 * (underflow(tx) + underflow(to)) + 1e-12 * (magnitude + b);
}

}  // namespace

TEST_CASE("W4A8 §3.1: H_C · H_C = I and rotating twice is the identity", "[numerics][prop]") {
  for (std::size_t c : {4u, 16u, 64u}) {
    bool identity = true;
    for (std::size_t i = 0; i < c; ++i)
      for (std::size_t j = 0; j < c; ++j) {
        double s = 0;
        for (std::size_t t = 0; t < c; ++t) s += hadamard_entry(c, i, t) * hadamard_entry(c, t, j);
        identity = identity && s == (i == j ? 1.0 : 0.0) && hadamard_entry(c, i, j) == hadamard_entry(c, j, i);
      }
    CHECK(identity);
  }
  test::small_prop("H_256 rows are orthonormal", 100, [] {
    const auto i = *rc::gen::inRange<std::size_t>(0, 256), j = *rc::gen::inRange<std::size_t>(0, 256);
    double s = 0;
    for (std::size_t t = 0; t < 256; ++t) s += hadamard_entry(256, i, t) * hadamard_entry(256, t, j);
    RC_ASSERT(s == (i == j ? 1.0 : 0.0));
  });
  test::small_prop("rotate twice gives the input (exact, eager in F32; cuda FHT on small integers)", 100, [] {
    const std::size_t c = *rc::gen::element<std::size_t>(4, 16, 64, 256);
    std::vector<float> v;
    for (std::size_t i = 0; i < c; ++i) v.push_back(static_cast<float>(*rc::gen::inRange(-100, 101)));
    RC_ASSERT(rotate_eager(rotate_eager(v, FloatType::F32), FloatType::F32) == v);
    // Every butterfly value is a small dyadic number, so the binary32 FHT is exact too.
    RC_ASSERT(rotate_cuda(rotate_cuda(v, CudaF32{}), CudaF32{}) == v);
  });
}

TEST_CASE("ExactSum: one correct rounding of an exact sum (the eager matmul model)", "[numerics][prop]") {
  test::small_prop("binary32 results match a binary64 sum that is exact, from subnormals to 2^127", 300, [] {
    // Terms within a 2^25 window of one another: their binary64 sum is exact.
    const int base = *rc::gen::inRange(-172, 76);  // below 2^128: the cast stays defined
    const std::size_t count = *rc::gen::inRange<std::size_t>(1, 9);
    ExactSum sum;
    double exact = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const double term = std::ldexp(static_cast<double>(*rc::gen::inRange(-(1 << 24), 1 << 24)), base + *rc::gen::inRange(0, 25));
      sum.add(term);
      exact += term;
    }
    RC_ASSERT(std::bit_cast<std::uint32_t>(sum.rounded(FloatType::F32)) ==
              std::bit_cast<std::uint32_t>(exact == 0 ? 0.0f : static_cast<float>(exact)));
  });
}

TEST_CASE("W4A8 §2.5: packing round-trips for all 256 bytes", "[numerics][prop]") {
  for (unsigned b = 0; b < 256; ++b) {
    const auto [even, odd] = unpack_codes(static_cast<std::uint8_t>(b));
    CHECK(pack_codes(even, odd) == b);
    CHECK(even < 16);
    CHECK(odd < 16);
  }
  for (std::uint8_t e = 0; e < 16; ++e)
    for (std::uint8_t o = 0; o < 16; ++o) CHECK(unpack_codes(pack_codes(e, o)) == std::pair{e, o});
}

TEST_CASE("W4A8: scaling x by a power of two keeps xq and scales y exactly", "[numerics][prop]") {
  test::small_prop("cuda and eager, F32 and BF16, no bias, no correction", 200, [] {
    Case c = gen_case(gen_semantics(), false);
    c.x.dtype = *rc::gen::element(FloatType::F32, FloatType::BF16);
    c.options.out_dtype = c.x.dtype;
    for (float& v : c.x.values) v = round_to(c.x.dtype, v);
    const int s = *rc::gen::inRange(-20, 21);
    Case scaled = c;
    for (float& v : scaled.x.values) v = std::ldexp(v, s);
    const W4a8Output a = run(c), b = run(scaled);
    // A zero row has xs = F, which does not scale; the property is about non-degenerate rows.
    for (std::size_t m = 0; m < c.x.m; ++m) RC_PRE(a.trace->amax[m] > 0.0f);
    RC_ASSERT(a.trace->xq == b.trace->xq);
    RC_ASSERT(a.trace->acc == b.trace->acc);
    for (std::size_t i = 0; i < a.y.size(); ++i) RC_ASSERT(std::ldexp(a.y[i], s) == b.y[i]);
  });
}

TEST_CASE("W4A8: permuting weight rows permutes output columns", "[numerics][prop]") {
  test::small_prop("every semantics and option, bit for bit", 200, [] {
    const Case c = gen_case(gen_semantics(), true);
    const W4a8Layer& l = c.layer;
    std::vector<std::size_t> perm(l.n);
    std::iota(perm.begin(), perm.end(), 0);
    for (std::size_t i = l.n; i > 1; --i) std::swap(perm[i - 1], perm[*rc::gen::inRange<std::size_t>(0, i)]);
    Case p = c;
    const std::size_t half = l.k / 2, groups = l.k / l.group_size;
    for (std::size_t n = 0; n < l.n; ++n) {
      const std::size_t from = perm[n];
      std::copy_n(l.weight.begin() + static_cast<std::ptrdiff_t>(from * half), half,
                  p.layer.weight.begin() + static_cast<std::ptrdiff_t>(n * half));
      std::copy_n(l.s_rel.begin() + static_cast<std::ptrdiff_t>(from * groups), groups,
                  p.layer.s_rel.begin() + static_cast<std::ptrdiff_t>(n * groups));
      p.layer.s_channel[n] = l.s_channel[from];
      if (l.bias) (*p.layer.bias)[n] = (*l.bias)[from];
      if (l.correction)
        for (std::size_t g = 0; g < groups; ++g) (*p.layer.correction)[g * l.n + n] = (*l.correction)[g * l.n + from];
    }
    const W4a8Output a = run(c), b = run(p);
    for (std::size_t m = 0; m < c.x.m; ++m)
      for (std::size_t n = 0; n < l.n; ++n)
        RC_ASSERT(std::bit_cast<std::uint32_t>(b.y[m * l.n + n]) == std::bit_cast<std::uint32_t>(a.y[m * l.n + perm[n]]));
  });
}

TEST_CASE("W4A8: the reference lies within a derived error bound of the ideal output", "[numerics][prop]") {
  test::small_prop("cuda and eager; every T_x, T_o; codebook, correction and bias or not", 200, [] {
    const Case c = gen_case(gen_semantics(), true);
    const W4a8Output out = run(c);
    const auto ideal = w4a8_ideal(c.layer, c.x);
    RC_ASSERT(ideal.ok());
    const W4a8Layer& l = c.layer;
    for (std::size_t m = 0; m < c.x.m; ++m) {
      std::vector<double> x(l.k), xr, l1;
      for (std::size_t k = 0; k < l.k; ++k) x[k] = c.x.values[m * l.k + k];
      for (std::size_t b0 = 0; b0 < l.k; b0 += l.convrot_groupsize) {
        const auto block = std::span<const double>(x).subspan(b0, l.convrot_groupsize);
        const std::vector<double> r = rotate_ideal(block);  // exact: short dyadic inputs
        xr.insert(xr.end(), r.begin(), r.end());
        double sum = 0;
        for (double v : block) sum += std::fabs(v);
        l1.push_back(sum);
      }
      for (std::size_t n = 0; n < l.n; ++n) {
        const double want = ideal.value()[m * l.n + n], got = out.y[m * l.n + n];
        const double bound = c.options.semantics == Semantics::Eager && l.correction
                                 ? eager_correction_bound(c, x, n, want)
                                 : quantized_bound(c, *out.trace, xr, l1, m, n);
        RC_LOG() << "m " << m << " n " << n << " y " << got << " ideal " << want << " bound " << bound << "\n";
        RC_ASSERT(std::fabs(got - want) <= bound);
      }
    }
  });
}
