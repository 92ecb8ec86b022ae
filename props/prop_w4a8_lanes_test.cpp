// The W4A8 fast path's AVX2 loops (src/numerics/w4a8_lanes.hpp) give the
// bits of their portable loops for every input: any binary32 bit pattern
// (NaN of either sign and any payload, signalling ones included, infinities,
// subnormals, zeros of both signs), quotients on the rounding ties of the
// quantizer, divisors that are zero, subnormal, infinite or NaN, both
// flushes, and lengths that leave every tail. The linear as a whole is
// checked against the reference by prop_w4a8_fast_test.cpp; these pin each
// kernel alone, so a failure names the kernel. The cuda.3 rotation's SSE
// and AVX-512 stages (src/numerics/rotate_cuda_fast.hpp) are pinned the same way.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "props/full_range_gen.hpp"
#include "src/numerics/epilogue_lanes.hpp"
#include "src/numerics/rotate_cuda_fast.hpp"
#include "src/numerics/w4a8_lanes.hpp"

using namespace safespec;
using namespace safespec::numerics;
using namespace safespec::test::full_range;

namespace {

float any_bits() { return std::bit_cast<float>(static_cast<std::uint32_t>(bulk<std::uint64_t>(0, std::uint64_t{1} << 32))); }

float special() {
  return bulk_one_of(0.0f, -0.0f, INFINITY, -INFINITY, std::numeric_limits<float>::quiet_NaN(),
                     std::bit_cast<float>(0xFF800001u), std::bit_cast<float>(0x7F800001u),  // signalling, tiny payload
                     std::bit_cast<float>(0x7FFFFFFFu), 1e-40f, -1e-45f, 3.4e38f, -3.4e38f);
}

// A value for a row quantized by divisor d: mostly q · d near the int8
// range, some exactly on a tie (k + 0.5) · d, some anything.
float gen_value(float d) {
  switch (bulk(0, 10)) {
    case 0: return any_bits();
    case 1: return special();
    case 2: return std::bit_cast<float>(static_cast<std::uint32_t>(bulk(1, 0x800000)) | (coin() ? 0x80000000u : 0u));
    case 3:
    case 4: return d * (static_cast<float>(bulk(-140, 140)) + 0.5f);
    default: return d * static_cast<float>(bulk(-20000, 20000)) / 128.0f;
  }
}

std::vector<float> gen_row(float d) {
  std::vector<float> r(static_cast<std::size_t>(pick(0, 200)));
  for (float& v : r) v = gen_value(d);
  return r;
}

bool same_bits(float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }

bool have_avx2() { return lanes::use_avx2(GemmKernel::Avx2); }

}  // namespace

TEST_CASE("W4A8 lanes: AVX2 quantization is the portable loop's, bit for bit", "[prop][numerics]") {
  if (!have_avx2()) return;
  prop("F32 and BF16, both flushes, any divisor", 400, [] {
    const FloatType t = one_of(FloatType::F32, FloatType::BF16);
    const bool flush = coin();
    const float d = pick(0, 8) == 0 ? special() : std::ldexp(1.0f + static_cast<float>(pick(0, 128)) / 128.0f, pick(-140, 20));
    const std::vector<float> r = gen_row(d);
    std::vector<std::int8_t> scalar(r.size(), 55), vec(r.size(), 77);
    lanes::quantize_cuda_scalar(r, d, t, flush, scalar);
    RC_ASSERT(lanes::quantize_cuda_avx2(r, d, t, flush, vec));
    for (std::size_t i = 0; i < r.size(); ++i) {
      RC_LOG() << "i " << i << " r bits " << std::bit_cast<std::uint32_t>(r[i]) << " d " << d << "\n";
      RC_ASSERT(int{scalar[i]} == int{vec[i]});
    }
  });
  prop("F16 is left to the portable loop", 20, [] {
    std::vector<float> r(40, 1.0f);
    std::vector<std::int8_t> xq(40, 9);
    RC_ASSERT(!lanes::quantize_cuda_avx2(r, 1.0f, FloatType::F16, coin(), xq));
    RC_ASSERT(xq == std::vector<std::int8_t>(40, 9));
  });
}

TEST_CASE("W4A8 lanes: AVX2 amax is the portable loop's, bit for bit", "[prop][numerics]") {
  if (!have_avx2()) return;
  prop("any values", 400, [] {
    const std::vector<float> r = gen_row(std::ldexp(1.0f, pick(-20, 20)));
    RC_ASSERT(same_bits(lanes::amax_scalar(r), lanes::amax_avx2(r)));
  });
}

TEST_CASE("W4A8 lanes: AVX2 representability scan is validate's element loop", "[prop][numerics]") {
  if (!have_avx2()) return;
  prop("values of T with now and then one that is not", 400, [] {
    const FloatType t = one_of(FloatType::F32, FloatType::BF16, FloatType::F16);
    std::vector<float> x(static_cast<std::size_t>(pick(0, 200)));
    for (float& v : x) v = round_to(t, gen_value(1.0f));
    if (!x.empty() && coin()) x[static_cast<std::size_t>(pick<std::size_t>(0, x.size()))] = gen_value(1.0f);
    RC_ASSERT(lanes::all_representable_scalar(t, x) == lanes::all_representable_avx2(t, x));
  });
}

TEST_CASE("W4A8 lanes: AVX2 weight decode is the portable loop's", "[prop][numerics]") {
  if (!have_avx2()) return;
  prop("any table, any codes, any group length", 400, [] {
    std::int8_t table[16];
    for (std::int8_t& v : table) v = static_cast<std::int8_t>(bulk(-128, 128));
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(pick(0, 150)));
    for (std::uint8_t& b : bytes) b = any_byte();
    std::vector<std::int8_t> scalar(2 * bytes.size() + 1, 5), vec(2 * bytes.size() + 1, 5);
    lanes::decode_group_scalar(table, bytes.data(), bytes.size(), scalar.data());
    lanes::decode_group_avx2(table, bytes.data(), bytes.size(), vec.data());
    RC_ASSERT(scalar == vec);  // the byte past the group too: nothing written beyond it
  });
}

TEST_CASE("cuda.3 rotation: the SSE and AVX-512 stages give the portable stages' bits", "[prop][numerics]") {
  // Every C from 4 to 1024: below 16 all run the portable stages, below 64
  // AVX-512 runs SSE's; the values are any bit pattern, specials, subnormals
  // (both flushes), and ordinary magnitudes whose sums round. Any NaN
  // matches any NaN: its payload follows operand order, which the compiler
  // may swap in a commutative add (§1.1; the fast path's oracle agrees).
  prop("C = 4 .. 1024, both flushes", 300, [] {
    const std::size_t c = std::size_t{1} << (2 * pick(1, 6));
    const bool flush = coin();
    std::vector<float> block(c), scratch(c);
    // A quarter of the blocks only near the subnormal range (exponent field
    // 0 to 2), where the flush of each operand decides sums that cross 2^-126.
    // A NaN or an infinity reaches every output of its block (each output
    // sums every input), so only a quarter of the blocks may hold one; the
    // rest are finite, and their outputs are compared bit for bit.
    const bool tiny = pick(0, 4) == 0, specials = pick(0, 4) == 0;
    const float d = std::ldexp(1.0f, pick(-140, 20));
    for (float& v : block) {
      v = tiny ? std::bit_cast<float>(static_cast<std::uint32_t>(bulk(0, 0x01800000)) | (coin() ? 0x80000000u : 0u))
               : gen_value(d);
      if (!specials && !std::isfinite(v)) v = d * static_cast<float>(bulk(-20000, 20000)) / 128.0f;
    }
    std::vector<float> want = block;
    rotate_cuda_block(want, scratch, flush, RotateLanes::Portable);
    for (RotateLanes lanes : {RotateLanes::Sse, RotateLanes::Avx512}) {
      std::vector<float> got = block;
      rotate_cuda_block(got, scratch, flush, resolve_rotate_lanes(lanes));
      for (std::size_t i = 0; i < c; ++i) {
        RC_LOG() << "c " << c << " lanes " << static_cast<int>(lanes) << " i " << i << "\n";
        RC_ASSERT((std::isnan(got[i]) && std::isnan(want[i])) ||
                  std::bit_cast<std::uint32_t>(got[i]) == std::bit_cast<std::uint32_t>(want[i]));
      }
    }
  });
}

TEST_CASE("cuda.8-cuda.9 epilogue: the AVX-512 row is the portable loop's, bit for bit", "[prop][numerics]") {
  // Sums of any int32, scales and biases of every class (any bits, specials,
  // subnormals, ordinary), both flushes, fma or not, every T_o, lengths that
  // leave a masked tail. The lanes give up (false) exactly where they must:
  // T_o = F16, no AVX-512F, or a NaN output.
  const bool avx512 = avx512f_available();
  prop("any row", 400, [avx512] {
    const std::size_t n = static_cast<std::size_t>(pick(0, 70));
    std::vector<std::int32_t> acc(n);
    std::vector<float> s(n), bias(n);
    // Half the rows exact: small sums and power-of-two scales, so BF16 ties
    // (a 9-bit odd sum) are common.
    const bool exact = coin();
    for (auto& a : acc)
      a = exact ? pick(-600, 600)
          : pick(0, 4) == 0 ? static_cast<std::int32_t>(bulk<std::uint64_t>(0, std::uint64_t{1} << 32))
                            : pick(-200000, 200000);
    for (float& v : s)
      v = exact ? std::ldexp(coin() ? 1.0f : -1.0f, pick(-20, 20)) : gen_value(std::ldexp(1.0f, pick(-140, 20)));
    const float xs = pick(0, 6) == 0 ? special()
                     : exact       ? std::ldexp(1.0f, pick(-140, 5))
                                   : std::ldexp(1.0f + static_cast<float>(pick(0, 128)) / 128.0f, pick(-140, 5));
    // Biases near -t0 · s (fma keeps the product's rounding error that the
    // sum then exposes) and near the subnormal range (their flush decides
    // the sum with a small product), as well as anything.
    for (std::size_t i = 0; i < n; ++i)
      switch (pick(0, 4)) {
        case 0: bias[i] = -(static_cast<float>(acc[i]) * xs * s[i]); break;
        case 1:
          bias[i] = std::bit_cast<float>(static_cast<std::uint32_t>(bulk(0, 0x01800000)) | (coin() ? 0x80000000u : 0u));
          break;
        default: bias[i] = gen_value(std::ldexp(1.0f, pick(-140, 5)));
      }
    const FloatType to = one_of(FloatType::F32, FloatType::BF16, FloatType::F16);
    for (int variant = 0; variant < 8; ++variant) {  // with and without bias, fma, flush
      const EpilogueRow row{acc, xs, s, variant & 1 ? bias.data() : nullptr, (variant & 2) != 0, (variant & 4) != 0, to};
      std::vector<float> want(n, 1.0f), got(n, 2.0f);
      epilogue_cuda_portable(row, want);
      const bool some_nan = std::any_of(want.begin(), want.end(), [](float v) { return std::isnan(v); });
      const bool ran = epilogue_cuda_avx512(row, got);
      RC_ASSERT(ran == (avx512 && to != FloatType::F16 && !some_nan));
      if (!ran) continue;
      for (std::size_t i = 0; i < n; ++i) {
        RC_LOG() << "variant " << variant << " i " << i << " acc " << acc[i] << " s " << s[i] << " xs " << xs << "\n";
        RC_ASSERT(std::bit_cast<std::uint32_t>(got[i]) == std::bit_cast<std::uint32_t>(want[i]));
      }
    }
  });
}
