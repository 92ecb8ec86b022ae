// The fast W4A8 path (src/numerics/w4a8_fast.hpp) is the reference
// (spec/numerics/w4a8_reference.hpp) bit for bit, so the fast path may stand
// in for the reference: random layers and inputs in both semantics, every
// T_x / T_o, with and without codebook, correction and bias, M including 1,
// K beyond and not a multiple of the GEMM's K block, scales and inputs of any
// bit pattern (NaN, infinities, subnormals), every kernel and thread count,
// 4-bit and 6-bit (W6A8) storage.
// A NaN matches any NaN (src/oracles/oracles_w4a8.hpp, w4a8_fast_differs).
// Also its two building blocks: the int8 GEMM against a naive sum, and the
// binary64-to-T rounding against ExactSum.
#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <sstream>
#include <vector>

#include "props/catch.hpp"
#include "spec/number_formats.hpp"
#include "spec/numerics/exact_sum.hpp"
#include "src/numerics/int8_gemm.hpp"
#include "src/numerics/w4a8_fast.hpp"
#include "src/oracles/oracles_w4a8.hpp"

using namespace safespec;
using namespace safespec::numerics;

namespace {

FloatType gen_fast_type() { return *rc::gen::element(FloatType::F32, FloatType::BF16, FloatType::F16); }

// Mostly ordinary magnitudes, sometimes any bit pattern (NaN, ±inf,
// subnormals, huge), sometimes zero.
float gen_scale(float typical) {
  switch (*rc::gen::inRange(0, 16)) {
    case 0: return std::bit_cast<float>(*rc::gen::arbitrary<std::uint32_t>());
    case 1: return *rc::gen::element(0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -1e-45f, 3e38f);
    default: return typical * static_cast<float>(*rc::gen::inRange(-64, 65)) / 32.0f;
  }
}

// A T value: dyadic of random magnitude, or any bit pattern rounded to T.
float gen_x(FloatType t) {
  if (*rc::gen::inRange(0, 32) == 0) return round_to(t, std::bit_cast<float>(*rc::gen::arbitrary<std::uint32_t>()));
  const float v = static_cast<float>(*rc::gen::inRange(-4096, 4097));
  return round_to(t, std::ldexp(v, *rc::gen::inRange(-14, 6)));
}

struct FastCase {
  W4a8Layer layer;
  Activations x;
  W4a8Options options;
  W4a8FastConfig config;
};

FastCase gen_case(Semantics semantics) {
  FastCase c;
  W4a8Layer& l = c.layer;
  W4a8Options& o = c.options;
  o.semantics = semantics;
  o.record_trace = *rc::gen::arbitrary<bool>();
  o.cuda_any_block_size = *rc::gen::inRange(0, 3) == 0;
  o.cuda_fma_epilogue = *rc::gen::arbitrary<bool>();
  o.cuda_flush_subnormals = *rc::gen::arbitrary<bool>();
  o.eager_scale = *rc::gen::element(EagerScale::Divide, EagerScale::Reciprocal);
  c.x.dtype = gen_fast_type();
  if (*rc::gen::arbitrary<bool>()) o.out_dtype = gen_fast_type();
  const FloatType to = o.out_dtype.value_or(c.x.dtype);
  l.convrot_groupsize =
      semantics == Semantics::Cuda && !o.cuda_any_block_size ? 256 : *rc::gen::element<std::size_t>(4, 16, 64, 256);
  l.group_size = *rc::gen::element<std::size_t>(4, 8, 16, 32, 64);
  // W6A8 needs G a multiple of 16 and K of 32, and takes no codebook or correction.
  l.bits = l.group_size % 16 == 0 && *rc::gen::inRange(0, 3) == 0 ? 6 : 4;
  // K up to 5 · 256 = 1280: past the GEMM's 1024-wide K block and not a multiple of it.
  const std::size_t unit =
      std::lcm(std::lcm(std::size_t{l.bits == 6 ? 32u : 16u}, l.group_size), l.convrot_groupsize);
  const std::size_t k_limit = semantics == Semantics::Eager && unit == 256 ? 3 : 6;  // the reference's eager rotation is O(C²)
  l.k = unit * *rc::gen::inRange<std::size_t>(1, unit >= 256 ? k_limit : 9);
  l.n = *rc::gen::inRange<std::size_t>(1, 10);
  c.x.m = *rc::gen::element<std::size_t>(1, 1, 2, 3, 4, 5, 7);
  for (std::size_t i = 0; i < l.n * l.k * l.bits / 8; ++i) l.weight.push_back(*rc::gen::arbitrary<std::uint8_t>());
  const bool e4m3 = *rc::gen::arbitrary<bool>();
  for (std::size_t i = 0; i < l.n * (l.k / l.group_size); ++i)
    l.s_rel.push_back(e4m3 ? num::decode_e4m3fn(*rc::gen::arbitrary<std::uint8_t>()) : gen_scale(2.0f));
  for (std::size_t i = 0; i < l.n; ++i) l.s_channel.push_back(gen_scale(1.0f / 512));
  if (l.bits == 4 && *rc::gen::arbitrary<bool>()) {
    std::array<float, 16> cb{};
    for (float& v : cb) v = gen_scale(1.0f);
    l.codebook = cb;
  }
  if (l.bits == 4 && *rc::gen::arbitrary<bool>()) {
    l.correction.emplace();
    for (std::size_t i = 0; i < (l.k / l.group_size) * l.n; ++i) l.correction->push_back(gen_scale(1.0f / 64));
  }
  if (*rc::gen::arbitrary<bool>()) {
    l.bias.emplace();
    for (std::size_t i = 0; i < l.n; ++i) l.bias->push_back(round_to(to, gen_scale(1.0f)));
  }
  for (std::size_t m = 0; m < c.x.m; ++m) {
    const bool zero_row = *rc::gen::inRange(0, 8) == 0;
    for (std::size_t k = 0; k < l.k; ++k) c.x.values.push_back(zero_row ? 0.0f : gen_x(c.x.dtype));
  }
  c.config.threads = *rc::gen::inRange(1u, 4u);
  c.config.kernel = *rc::gen::element(GemmKernel::Auto, GemmKernel::Scalar, GemmKernel::Avx2, GemmKernel::Avx512Vnni);
  return c;
}

}  // namespace

TEST_CASE("W4A8 fast path: bit-identical to the reference (§5.3 cuda, §5.4 eager)", "[prop][numerics]") {
  test::small_prop("cuda semantics", 250, [] {
    const FastCase c = gen_case(Semantics::Cuda);
    const auto d = w4a8_fast_differs(c.layer, c.x, c.options, c.config);
    RC_ASSERT(d.value_or("") == "");
  });
  test::small_prop("eager semantics", 150, [] {
    const FastCase c = gen_case(Semantics::Eager);
    const auto d = w4a8_fast_differs(c.layer, c.x, c.options, c.config);
    RC_ASSERT(d.value_or("") == "");
  });
  test::small_prop("the linear fuzzer's oracle on random bytes", 300, [] {
    const auto bytes = *rc::gen::container<std::vector<std::uint8_t>>(*rc::gen::inRange<std::size_t>(0, 3000),
                                                                       rc::gen::arbitrary<std::uint8_t>());
    const auto d = w4a8_fast_differs(bytes);
    RC_ASSERT(d.value_or("") == "");
  });
}

TEST_CASE("W4A8 fast path: invalid layers give the reference's Error (§5.1)", "[prop][numerics]") {
  W4a8Layer l;
  l.n = 2;
  l.k = 256;
  l.group_size = 64;
  l.convrot_groupsize = 256;
  l.weight.assign(256, 0x88);
  l.s_rel.assign(8, 1.0f);
  l.s_channel.assign(2, 1.0f);
  Activations x;
  x.m = 1;
  x.values.assign(256, 1.0f);
  CHECK_FALSE(w4a8_fast_differs(l, x, {}).has_value());
  l.group_size = 3;  // G < 4
  CHECK_FALSE(w4a8_fast_differs(l, x, {}).has_value());
  CHECK_FALSE(w4a8_linear_fast(l, x).ok());
  l.group_size = 64;
  x.values.pop_back();  // x [1, 255]
  CHECK_FALSE(w4a8_linear_fast(l, x).ok());
  CHECK_FALSE(w4a8_fast_differs(l, x, {}).has_value());
}

TEST_CASE("int8 GEMM: every kernel and thread split is the exact sum", "[prop][numerics]") {
  // m and n past two register blocks (VNNI's is 6 x 4, AVX2's 4 x 2) and every edge block; K past
  // one and two K blocks of either kernel (AVX2's 1024, VNNI's 4096), so later blocks add onto C.
  test::small_prop("random shapes, K not a multiple of 16, 64 or of the K block", 80, [] {
    const std::size_t m = *rc::gen::inRange<std::size_t>(0, 15), n = *rc::gen::inRange<std::size_t>(0, 12);
    const std::size_t k = *rc::gen::element<std::size_t>(0, 1, 15, 16, 17, 100, 1023, 1024, 1025, 2100, 4097, 8300);
    std::vector<std::int8_t> a(m * k), b(n * k);
    const bool extremes = *rc::gen::arbitrary<bool>();  // all -128: the largest products
    for (auto& v : a) v = extremes ? std::int8_t{-128} : *rc::gen::arbitrary<std::int8_t>();
    for (auto& v : b) v = extremes ? std::int8_t{-128} : *rc::gen::arbitrary<std::int8_t>();
    const unsigned threads = *rc::gen::inRange(1u, 5u);
    for (GemmKernel kernel : {GemmKernel::Auto, GemmKernel::Scalar, GemmKernel::Avx2, GemmKernel::Avx512Vnni}) {
      std::vector<std::int32_t> c(m * n, 12345);
      gemm_s8s8s32(a, b, c, m, n, k, GemmConfig{threads, kernel});
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          std::int64_t s = 0;
          for (std::size_t kk = 0; kk < k; ++kk) s += std::int64_t{a[i * k + kk]} * b[j * k + kk];
          RC_ASSERT(c[i * n + j] == s);
        }
    }
  });
}

TEST_CASE("round_double_to: one RNE to T, as ExactSum::rounded", "[prop][numerics]") {
  test::small_prop("products of two binary32 values and random binary64 bits", 2000, [] {
    const FloatType t = gen_fast_type();
    double e;
    if (*rc::gen::arbitrary<bool>()) {
      e = static_cast<double>(std::bit_cast<float>(*rc::gen::arbitrary<std::uint32_t>())) *
          static_cast<double>(std::bit_cast<float>(*rc::gen::arbitrary<std::uint32_t>()));
    } else {
      e = std::bit_cast<double>(*rc::gen::arbitrary<std::uint64_t>());
    }
    RC_PRE(std::isfinite(e));
    ExactSum sum;
    sum.add(e);
    RC_ASSERT(std::bit_cast<std::uint32_t>(round_double_to(t, e)) == std::bit_cast<std::uint32_t>(sum.rounded(t)));
  });
  // Ties and near-ties at T's precision and at its subnormal and overflow edges.
  for (FloatType t : {FloatType::BF16, FloatType::F16})
    for (double base : {1.0, 0x1.0p-126, 0x1.0p-133, 0x1.0p-14, 0x1.0p-24, 65504.0, 0x1.fep127})
      for (int sh = 0; sh < 40; ++sh)
        for (double sign : {1.0, -1.0}) {
          const double e = sign * base * (1.0 + std::ldexp(1.0, -sh) + std::ldexp(1.0, -52));
          const double f = sign * base * (1.0 + std::ldexp(1.0, -sh));
          for (double v : {e, f}) {
            ExactSum sum;
            sum.add(v);
            CHECK(std::bit_cast<std::uint32_t>(round_double_to(t, v)) == std::bit_cast<std::uint32_t>(sum.rounded(t)));
          }
        }
}
