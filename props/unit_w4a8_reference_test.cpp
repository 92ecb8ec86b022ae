// The reference W4A8 linear (quant-numerics.md §5): hand-computed tiny
// cases for each step, the derived facts §5.3/§5.4 state, and the worked
// examples of §5.12 verbatim.
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "props/catch.hpp"
#include "spec/number_formats.hpp"
#include "spec/numerics/exact_sum.hpp"
#include "spec/numerics/w4a8_reference.hpp"

using namespace safespec;
using namespace safespec::numerics;

namespace {

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
float from_bits(std::uint32_t u) { return std::bit_cast<float>(u); }
const CudaF32 kFtz{true};
const CudaF32 kIeee{false};

template <class T>
std::vector<T> slice(const std::vector<T>& v, std::size_t from, std::size_t n) {
  return std::vector<T>(v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(from + n));
}

// §5.12.1 Example A.
W4a8Layer example_a_layer() {
  W4a8Layer l;
  l.n = 2, l.k = 16, l.group_size = 8, l.convrot_groupsize = 4;
  l.weight = {0x9F, 0x08, 0x7A, 0x31, 0xF0, 0x88, 0x5C, 0xE6, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0};
  for (std::uint8_t b : {0x48, 0x40, 0x38, 0x44}) l.s_rel.push_back(num::decode_e4m3fn(b));
  l.s_channel = {0.015625f, 0.0234375f};
  l.bias = std::vector<float>{0.5f, -0.333984375f};
  return l;
}
Activations example_a_x() {
  return {1, FloatType::BF16, {1, -3, 0.5, 2, 1.25, 0, -0.25, 0.875, 3, 3, -2, 0.125, -1, 2, 0.5, -1.5}};
}

// §5.12.2 Example B, built from its formulas.
W4a8Layer example_b_layer() {
  W4a8Layer l;
  l.n = 3, l.k = 256, l.group_size = 16, l.convrot_groupsize = 256;
  for (unsigned n = 0; n < 3; ++n)
    for (unsigned j = 0; j < 128; ++j) l.weight.push_back(static_cast<std::uint8_t>((53 * n + 29 * j + 7) % 256));
  for (unsigned n = 0; n < 3; ++n)
    for (unsigned g = 0; g < 16; ++g) l.s_rel.push_back(num::decode_e4m3fn(static_cast<std::uint8_t>(0x48 + (3 * n + 5 * g) % 16)));
  l.s_channel = {std::ldexp(1.0f, -12), 3 * std::ldexp(1.0f, -13), 3 * std::ldexp(1.0f, -14)};
  l.bias = std::vector<float>{0.25f, -0.333984375f, 3.0f};
  return l;
}
Activations example_b_x() {
  Activations x{1, FloatType::BF16, {}};
  for (int k = 0; k < 256; ++k) {
    const int e = (5 * k) % 21 - 10, m = (29 * k + 3) % 128;
    const float v = std::ldexp(1.0f + static_cast<float>(m) / 128.0f, e);
    x.values.push_back(k % 3 == 1 ? -v : v);
  }
  return x;
}

W4a8Options eager(EagerScale scale = EagerScale::Divide) {
  W4a8Options o;
  o.semantics = Semantics::Eager;
  o.eager_scale = scale;
  return o;
}

// cuda, optionally without FMA (U2) or on a C != 256 block (the test-only extension).
W4a8Options cuda(bool fma = true, bool any_block_size = false) {
  W4a8Options o;
  o.cuda_fma_epilogue = fma;
  o.cuda_any_block_size = any_block_size;
  return o;
}

W4a8Output run(const W4a8Layer& l, const Activations& x, W4a8Options o) {
  o.record_trace = true;
  auto r = w4a8_linear(l, x, o);
  REQUIRE(r.ok());
  return r.value();
}

}  // namespace

TEST_CASE("W4A8 §2.5: low nibble is the even column", "[numerics]") {
  CHECK(unpack_codes(0x9F) == std::pair<std::uint8_t, std::uint8_t>{15, 9});
  CHECK(pack_codes(15, 9) == 0x9F);
}

TEST_CASE("W4A8.1 (§5.2): level times scale, RNE, symmetric clamp", "[numerics]") {
  const std::optional<std::array<float, 16>> none;
  CHECK(decode_weight_element(15, 4.0f, none) == 28);   // level 7
  CHECK(decode_weight_element(9, 4.0f, none) == 4);     // level 1
  CHECK(decode_weight_element(0, 2.0f, none) == -16);   // level -8
  CHECK(decode_weight_element(0, 448.0f, none) == -127);  // never -128
  CHECK(decode_weight_element(15, 448.0f, none) == 127);
  std::array<float, 16> cb{};
  cb[3] = 0.5f, cb[4] = 0.75f, cb[5] = -0.5f;
  CHECK(decode_weight_element(3, 3.0f, cb) == 2);   // 1.5: tie to even
  CHECK(decode_weight_element(3, 5.0f, cb) == 2);   // 2.5: tie to even
  CHECK(decode_weight_element(4, 3.0f, cb) == 2);   // 2.25
  CHECK(decode_weight_element(5, 5.0f, cb) == -2);  // -2.5
  // U8 (NaN scale / codebook entry undetermined upstream): NaN products code as 0; ±inf clamps.
  CHECK(decode_weight_element(15, num::decode_e4m3fn(0x7F), none) == 0);
  CHECK(decode_weight_element(8, INFINITY, none) == 0);  // level 0 · inf = NaN
  CHECK(decode_weight_element(0, INFINITY, none) == -127);
}

TEST_CASE("W4A8 §3.1: closed-form H_4 is H4 / 2", "[numerics]") {
  const int h4[4][4] = {{1, 1, 1, -1}, {1, 1, -1, 1}, {1, -1, 1, 1}, {-1, 1, 1, 1}};
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j) CHECK(hadamard_entry(4, i, j) == h4[i][j] * 0.5);
  CHECK(hadamard_entry(16, 3, 0) == -0.25);  // one digit pair sums to 3
  CHECK(hadamard_entry(16, 15, 0) == 0.25);  // two
  CHECK(log4_exact(256) == 4);
  CHECK(!log4_exact(1));
  CHECK(!log4_exact(8));
  CHECK(!log4_exact(0));
}

TEST_CASE("cuda.3 (§3.3): one radix-4 stage, left to right in binary32", "[numerics]") {
  CHECK(rotate_cuda(std::vector<float>{1, 0, 0, 0}, kFtz) == std::vector<float>{0.5f, 0.5f, 0.5f, -0.5f});
  CHECK(rotate_cuda(std::vector<float>{1, 2, 3, 4}, kFtz) == std::vector<float>{1, 2, 3, 4});
  // S_0 = ((2^24 + 1) + 1) - 0 rounds twice to 2^24; the exact half would be 2^23 + 1.
  const float big = std::ldexp(1.0f, 24);
  CHECK(rotate_cuda(std::vector<float>{big, 1, 1, 0}, kFtz)[0] == std::ldexp(1.0f, 23));
  CHECK(rotate_eager(std::vector<float>{big, 1, 1, 0}, FloatType::F32)[0] == std::ldexp(1.0f, 23) + 1);
  // U12: a binary32 subnormal operand is flushed with --ftz, kept without.
  const float sub = std::ldexp(1.0f, -127);
  CHECK(rotate_cuda(std::vector<float>{sub, 0, 0, 0}, kFtz)[0] == 0.0f);
  CHECK(rotate_cuda(std::vector<float>{sub, 0, 0, 0}, kIeee)[0] == std::ldexp(1.0f, -128));
}

TEST_CASE("eager.2 (§3.3): one correctly rounded T_x result per output", "[numerics]") {
  // 1 + 2^-8 + 2^-8 + 0 over 2: exact 0.5 + 2^-8, a bf16 value.
  const float a = 1.0f, e = std::ldexp(1.0f, -8);
  CHECK(rotate_eager(std::vector<float>{a, e, e, 0}, FloatType::BF16)[0] == 0.5f + e);
  // (1 + 2^-8) / 2 = 0.5 + 2^-9: a bf16 tie between 0.5 and 0.5 + 2^-8 -> 0.5.
  CHECK(rotate_eager(std::vector<float>{a, e, 0, 0}, FloatType::BF16)[0] == 0.5f);
  ExactSum s;
  s.add(1.0), s.add(std::ldexp(1.0, -200)), s.add(-1.0);
  CHECK(s.rounded(FloatType::F32) == 0.0f);  // 2^-200 underflows binary32 to +0
  ExactSum z;
  z.add(-0.0), z.add(-0.0);
  CHECK(std::signbit(z.rounded(FloatType::BF16)));
  ExactSum o;
  o.add(65504.0), o.add(16.0);
  CHECK(std::isinf(o.rounded(FloatType::F16)));  // 65520 rounds past Tmax
  ExactSum p;
  p.add(65504.0), p.add(15.5);
  CHECK(p.rounded(FloatType::F16) == 65504.0f);
  ExactSum q;
  q.add(std::ldexp(1.0, -25)), q.add(std::ldexp(1.0, -40));
  CHECK(q.rounded(FloatType::F16) == std::ldexp(1.0f, -24));  // just above half the smallest subnormal
}

TEST_CASE("cuda.4-cuda.6 (§5.3): maximum, scale, quotient", "[numerics]") {
  CHECK(amax_cuda(std::vector<float>{1, NAN, -3}) == 3.0f);  // NaN skipped
  CHECK(std::isnan(amax_eager(std::vector<float>{1, NAN, -3})));  // eager.3: NaN propagates
  CHECK(activation_scale_cuda(4.0625f, FloatType::BF16, kFtz) == 0.03198818862438202f);
  CHECK(bits(activation_scale_cuda(0.0f, FloatType::BF16, kFtz)) == 0x0DA24260u);  // F
  CHECK(activation_scale_cuda(INFINITY, FloatType::F16, kFtz) == 65504.0f * from_bits(0x3C010204));
  // d == 0 is kept: ±inf and NaN quotients clamp to 127 / -128 / -128.
  CHECK(quantize_cuda(1e-6f, 0.0f, FloatType::F16, kFtz) == 127);
  CHECK(quantize_cuda(-1e-6f, 0.0f, FloatType::F16, kFtz) == -128);
  CHECK(quantize_cuda(0.0f, 0.0f, FloatType::F16, kFtz) == -128);
  CHECK(quantize_cuda(NAN, 1.0f, FloatType::BF16, kFtz) == -128);
  CHECK(quantize_cuda(128.4f, 1.0f, FloatType::F32, kFtz) == 127);
  CHECK(quantize_cuda(-130.0f, 1.0f, FloatType::F32, kFtz) == -128);
  CHECK(quantize_cuda(2.5f, 1.0f, FloatType::F32, kFtz) == 2);  // rne_int
  // T_x(r) before the division: bf16(2.5 + 2^-10) = 2.5, a tie -> 2 (unrounded it would give 3).
  CHECK(quantize_cuda(2.5f + std::ldexp(1.0f, -10), 1.0f, FloatType::BF16, kFtz) == 2);
}

TEST_CASE("eager.4-eager.6 (§5.4): scale by division or reciprocal, zero divisor replaced", "[numerics]") {
  CHECK(activation_scale_eager(4.0625f, EagerScale::Divide) == 0.03198818862438202f);
  CHECK(activation_scale_eager(0.0f, EagerScale::Divide) == 1e-30f);
  CHECK(std::isnan(activation_scale_eager(NAN, EagerScale::Divide)));
  CHECK(divisor_eager(1e-9f, FloatType::F16) == std::ldexp(1.0f, -14));  // fp16(1e-9) == 0
  CHECK(divisor_eager(1e-9f, FloatType::BF16) == num::bf16_to_f32(num::f32_to_bf16(1e-9f)));
  CHECK(quantize_eager(NAN, 1.0f, FloatType::BF16) == 0);  // U8 choice
  CHECK(quantize_eager(INFINITY, 1.0f, FloatType::BF16) == 127);
  CHECK(quantize_eager(-200.0f, 1.0f, FloatType::BF16) == -128);
}

TEST_CASE("cuda.5 vs eager.4 (§5.3): f32(a·R) and f32(a/127) differ for 1324 bf16 and 1434 fp16 values", "[numerics]") {
  auto differing = [](FloatType t, std::uint32_t codes, float (*decode)(std::uint16_t)) {
    int n = 0;
    for (std::uint32_t c = 1; c < codes; ++c) {
      const float a = decode(static_cast<std::uint16_t>(c));
      if (!std::isfinite(a) || a / 127.0 < 1e-30f) continue;
      if (activation_scale_cuda(a, t, kIeee) != activation_scale_eager(a, EagerScale::Divide)) ++n;
    }
    return n;
  };
  CHECK(differing(FloatType::BF16, 0x7F80, num::bf16_to_f32) == 1324);
  CHECK(differing(FloatType::F16, 0x7C00, num::f16_to_f32) == 1434);
}

TEST_CASE("cuda.7, cuda.9 (§5.3): exact accumulation, FMA or two roundings (U2)", "[numerics]") {
  const std::vector<std::int8_t> xq = {-128, 127, 3}, wq = {-127, -127, 5};
  CHECK(accumulate(xq, wq) == 128 * 127 - 127 * 127 + 15);
  // t0 = 1 + 2^-12; t0 · s = 1 + 2^-11 + 2^-24 (a binary32 tie); + (-1).
  const float s = 1.0f + std::ldexp(1.0f, -12);
  CHECK(epilogue_cuda(1, s, s, -1.0f, FloatType::F32, false, kFtz) == std::ldexp(1.0f, -11));
  CHECK(epilogue_cuda(1, s, s, -1.0f, FloatType::F32, true, kFtz) == std::ldexp(1.0f, -11) + std::ldexp(1.0f, -24));
  CHECK(epilogue_cuda(1, s, s, std::nullopt, FloatType::F32, true, kFtz) == 1.0f + std::ldexp(1.0f, -11));
}

TEST_CASE("cuda.10 (§5.3): correction term in T_o, S lossy above 256 in bf16", "[numerics]") {
  std::vector<std::int8_t> xq(16, 0);
  xq[0] = 127, xq[1] = 127, xq[2] = 3;  // group 0: S = 257 -> bf16 256
  xq[8] = 5;                            // group 1: S = 5
  const std::vector<float> corr = {1.0f, 2.0f};
  // 1 + 256·0.5·1 + 5·0.5·2 = 134
  CHECK(correction_cuda(1.0f, xq, 0.5f, 8, corr, FloatType::BF16) == 134.0f);
  CHECK(correction_cuda(1.0f, xq, 0.5f, 8, corr, FloatType::F32) == 134.5f);
}

TEST_CASE("eager.8, eager.C2 (§5.4): two roundings, separate binary32 operations", "[numerics]") {
  // acc · (xs · s) = 119.5, then + bias 0.25 = 119.75, a bf16 tie -> 120.
  CHECK(epilogue_eager(478, 1.0f, 0.25f, 0.25f, FloatType::BF16) == 120.0f);
  CHECK(epilogue_eager(478, 1.0f, 0.25f, std::nullopt, FloatType::BF16) == 119.5f);
  CHECK(epilogue_eager(479, 1.0f, 0.25f, std::nullopt, FloatType::BF16) == 120.0f);  // 119.75 -> 120
  CHECK(rotated_weight_eager(3, 0.5f, 0.25f, FloatType::BF16) == 1.75f);
  CHECK(rotated_weight_eager(3, 0.1f, 0.0f, FloatType::BF16) == num::bf16_to_f32(num::f32_to_bf16(3 * 0.1f)));
}

TEST_CASE("§5.12.1 Example A: eager, C = 4, bf16", "[numerics]") {
  const W4a8Output out = run(example_a_layer(), example_a_x(), eager());
  const W4a8Trace& t = *out.trace;
  CHECK(t.wq == std::vector<std::int8_t>{28, 4, 0, -32, 8, -4, -28, -20, -16, 14, 0, 0, 8, -6, -4, 12,
                                         -6, -7, -4, -5, -2, -3, 0, -1, 6, 3, 12, 9, 18, 15, -24, 21});
  CHECK(t.rotated == std::vector<float>{-1.75f, -0.25f, 3.25f, -0.75f, 0.0625f, 1.1875f, 0.9375f, -0.3125f, 1.9375f,
                                        4.0625f, -0.9375f, -0.9375f, 1.5f, -0.5f, -2, 1});
  CHECK(t.amax == std::vector<float>{4.0625f});
  CHECK(t.xs == std::vector<float>{0.03198818862438202f});
  CHECK(t.xs[0] == std::ldexp(2146691.0f, -26));
  CHECK(t.divisor == std::vector<float>{0.031982421875f});
  CHECK(t.xq == std::vector<std::int8_t>{-55, -8, 102, -24, 2, 37, 29, -10, 60, 127, -29, -29, 47, -16, -62, 31});
  CHECK(t.acc == std::vector<std::int32_t>{362, 2870});
  CHECK(out.y == std::vector<float>{0.6796875f, 1.8203125f});
  // "CPU and GPU agree" here.
  CHECK(run(example_a_layer(), example_a_x(), eager(EagerScale::Reciprocal)).y ==
        out.y);
}

TEST_CASE("§5.12.1 Example A: cuda epilogue on the same acc and xs, with and without FMA", "[numerics]") {
  for (bool fma : {true, false}) {
    const W4a8Options o = cuda(fma, true);
    const W4a8Output out = run(example_a_layer(), example_a_x(), o);
    CHECK(out.trace->xq == std::vector<std::int8_t>{-55, -8, 102, -24, 2, 37, 29, -10, 60, 127, -29, -29, 47, -16, -62, 31});
    CHECK(out.trace->acc == std::vector<std::int32_t>{362, 2870});
    CHECK(out.y == std::vector<float>{0.6796875f, 1.8203125f});
  }
  // The kernel itself rejects C = 4 (§5.1, D3).
  auto r = w4a8_linear(example_a_layer(), example_a_x());
  REQUIRE(!r.ok());
  CHECK(r.error().rule == RuleId::QuantW4a8CudaGroupsize);
}

TEST_CASE("§5.12.1 Example A: float reference", "[numerics]") {
  auto ideal = w4a8_ideal(example_a_layer(), example_a_x());
  REQUIRE(ideal.ok());
  // Exact here: every product and sum is a short dyadic number.
  CHECK(ideal.value() == std::vector<double>{0.666015625, 1.828125});
}

TEST_CASE("§5.12.2 Example B: cuda on one 256-block", "[numerics]") {
  const W4a8Output out = run(example_b_layer(), example_b_x(), {});
  const W4a8Trace& t = *out.trace;
  REQUIRE(bits(example_b_x().values[0]) >> 16 == 0x3A83);
  CHECK(bits(example_b_x().values[7]) >> 16 == 0xC1CE);
  for (std::size_t n = 0; n < 3; ++n) {
    int sum = 0;
    for (std::size_t k = 0; k < 256; ++k) sum += t.wq[n * 256 + k];
    CHECK(sum == std::vector<int>{-1050, -1086, -1114}[n]);
  }
  CHECK(slice(t.wq, 0, 16) == std::vector<std::int8_t>{-4, -32, -16, -24, -28, -16, 24, -12, 12, -4, 0, 4, -12, 12, -24, 20});
  CHECK(bits(t.rotated[0]) == 0xC36EC9D6u);
  CHECK(bits(t.rotated[1]) == 0xC3A1A7E8u);
  CHECK(bits(t.rotated[2]) == 0x421042E4u);
  CHECK(bits(t.rotated[3]) == 0x4393656Fu);
  CHECK(bits(t.amax[0]) == 0x44A9B8CAu);
  CHECK(std::fabs(t.rotated[154]) == t.amax[0]);
  CHECK(bits(t.xs[0]) == 0x412B0EE8u);
  CHECK(t.divisor[0] == 10.6875f);
  CHECK(slice(t.xq, 0, 16) == std::vector<std::int8_t>{-22, -30, 3, 28, 3, -32, -62, -13, -41, 47, -25, -28, -54, -48, 33, 8});
  long s1 = 0, sk = 0, s2 = 0;
  for (long k = 0; k < 256; ++k) s1 += t.xq[k], sk += k * t.xq[k], s2 += t.xq[k] * t.xq[k];
  CHECK(s1 == -635);
  CHECK(sk == -68826);
  CHECK(s2 == 373507);
  CHECK(t.xq[154] == 127);
  CHECK(t.acc == std::vector<std::int32_t>{45741, 42022, -19421});
  CHECK(out.y == std::vector<float>{119.5f, 164, -35});
  CHECK(run(example_b_layer(), example_b_x(), cuda(false)).y == out.y);
  W4a8Layer nb = example_b_layer();
  nb.bias.reset();
  CHECK(run(nb, example_b_x(), {}).y == std::vector<float>{119.5f, 165, -38});
  // The intermediate binary32 values the document lists.
  const std::vector<float> t0 = {489023.40625f, 449263.0625f, -207632.609375f};
  const std::vector<float> t1 = {119.3904800415039f, 164.52505493164062f, -38.0186653137207f};
  const std::vector<float> sb = {119.6404800415039f, 164.19107055664062f, -35.0186653137207f};
  const W4a8Layer l = example_b_layer();
  for (std::size_t n = 0; n < 3; ++n) {
    CHECK(static_cast<float>(t.acc[n]) * t.xs[0] == t0[n]);
    CHECK(t0[n] * l.s_channel[n] == t1[n]);
    CHECK(t1[n] + (*l.bias)[n] == sb[n]);
  }
}

TEST_CASE("§5.12.2 Example B: eager on one 256-block", "[numerics]") {
  const W4a8Output on_cuda = run(example_b_layer(), example_b_x(), {});
  for (EagerScale scale : {EagerScale::Divide, EagerScale::Reciprocal}) {  // "CPU and GPU agree here"
    const W4a8Output out = run(example_b_layer(), example_b_x(), eager(scale));
    const W4a8Trace& t = *out.trace;
    CHECK(slice(t.rotated, 0, 4) == std::vector<float>{-239, -324, 36, 294});
    for (std::size_t k = 0; k < 256; ++k) {  // every bf16(r) equals eager's xr; no r equals it
      CHECK(num::bf16_to_f32(num::f32_to_bf16(on_cuda.trace->rotated[k])) == t.rotated[k]);
      CHECK(on_cuda.trace->rotated[k] != t.rotated[k]);
    }
    CHECK(t.amax[0] == 1360.0f);
    CHECK(bits(t.xs[0]) == 0x412B56ADu);
    CHECK(t.divisor[0] == 10.6875f);
    CHECK(t.xq == on_cuda.trace->xq);
    CHECK(t.acc == std::vector<std::int32_t>{45741, 42022, -19421});
    CHECK(out.y == std::vector<float>{120, 165, -35});
    const W4a8Layer l = example_b_layer();
    const std::vector<float> p = {0.0026144192088395357f, 0.003921628929674625f, 0.0019608144648373127f};
    const std::vector<float> ap = {119.58615112304688f, 164.79469299316406f, -38.08097839355469f};
    for (std::size_t n = 0; n < 3; ++n) {
      CHECK(t.xs[0] * l.s_channel[n] == p[n]);
      CHECK(static_cast<float>(t.acc[n]) * p[n] == ap[n]);
    }
  }
  W4a8Layer nb = example_b_layer();
  nb.bias.reset();
  CHECK(run(nb, example_b_x(), eager()).y == std::vector<float>{119.5f, 165, -38});
}

TEST_CASE("§5.12.2 Example B: float reference", "[numerics]") {
  auto ideal = w4a8_ideal(example_b_layer(), example_b_x());
  REQUIRE(ideal.ok());
  CHECK(ideal.value()[0] == Approx(118.862).margin(0.001));
  CHECK(ideal.value()[1] == Approx(164.515).margin(0.001));
  CHECK(ideal.value()[2] == Approx(-34.636).margin(0.001));
}

TEST_CASE("cuda.6 (§5.3): fp16 zero divisor, derived example", "[numerics]") {
  W4a8Layer l;
  l.n = 1, l.k = 256, l.group_size = 16, l.convrot_groupsize = 256;
  l.weight.assign(128, 0x99);  // level 1 everywhere
  l.s_rel.assign(16, 1.0f);
  l.s_channel = {1.0f};
  Activations x{1, FloatType::F16, std::vector<float>(256, 0.0f)};
  x.values[0] = std::ldexp(1.0f, -15);
  const W4a8Output on_cuda = run(l, x, {});
  CHECK(on_cuda.trace->divisor[0] == 0.0f);
  CHECK(on_cuda.trace->xs[0] == std::ldexp(1.0f, -19) * from_bits(0x3C010204));
  int pos = 0, neg = 0;
  for (std::size_t j = 0; j < 256; ++j) {
    int threes = 0;
    for (std::size_t v = j; v > 0; v /= 4) threes += v % 4 == 3;
    CHECK(on_cuda.trace->xq[j] == (threes % 2 == 0 ? 127 : -128));
    pos += on_cuda.trace->xq[j] == 127, neg += on_cuda.trace->xq[j] == -128;
  }
  CHECK(pos == 136);
  CHECK(neg == 120);
  const W4a8Output on_eager = run(l, x, eager());
  CHECK(on_eager.trace->divisor[0] == std::ldexp(1.0f, -14));
  CHECK(on_eager.trace->xq == std::vector<std::int8_t>(256, 0));
}

TEST_CASE("W4A8 with a correction: cuda.10 adds a quantized term, eager.C1-C4 run unquantized", "[numerics]") {
  W4a8Layer l;
  l.n = 1, l.k = 16, l.group_size = 8, l.convrot_groupsize = 4;
  l.weight.assign(8, 0x99);  // Wq = 1
  l.s_rel.assign(2, 1.0f);
  l.s_channel = {0.5f};
  l.correction = std::vector<float>{0.25f, 0.25f};
  l.bias = std::vector<float>{0.5f};
  const Activations x{1, FloatType::BF16, std::vector<float>(16, 1.0f)};
  // Wrot = 0.75 everywhere; un-rotated W = 0.75 (each H4 column sums to 2); x · W + b = 12.5.
  const W4a8Output on_eager = run(l, x, eager());
  CHECK(on_eager.trace->w_dequant == std::vector<float>(16, 0.75f));
  CHECK(on_eager.trace->xq.empty());
  CHECK(on_eager.y == std::vector<float>{12.5f});
  // cuda: r = 1, xs = R, xq = 127, y0 = bf16(2032 · R · 0.5 + 0.5) = 8.5;
  // S = 1016 per group, U = bf16(1016 · bf16(R)) = 8, correction 2 · 8 · 0.25 = 4.
  const W4a8Output on_cuda = run(l, x, cuda(true, true));
  CHECK(on_cuda.trace->xq == std::vector<std::int8_t>(16, 127));
  CHECK(on_cuda.trace->y_epilogue == std::vector<float>{8.5f});
  CHECK(on_cuda.y == std::vector<float>{12.5f});
  auto ideal = w4a8_ideal(l, x);
  REQUIRE(ideal.ok());
  CHECK(ideal.value()[0] == 12.5);
}

TEST_CASE("W4A8 §5.1 validity: errors are data", "[numerics]") {
  const Activations x = example_a_x();
  auto rule_of = [&](auto mutate, W4a8Options o = eager()) {
    W4a8Layer l = example_a_layer();
    Activations xx = x;
    mutate(l, xx);
    auto r = w4a8_linear(l, xx, o);
    REQUIRE(!r.ok());
    INFO(r.error().message);
    return r.error().rule;
  };
  CHECK(rule_of([](W4a8Layer& l, Activations&) { l.group_size = 0; }) == RuleId::QuantW4a8GroupSize);
  CHECK(rule_of([](W4a8Layer& l, Activations&) { l.group_size = 3; }) == RuleId::QuantW4a8GroupSize);
  CHECK(rule_of([](W4a8Layer& l, Activations&) { l.group_size = 12; }) == RuleId::QuantW4a8K);
  CHECK(rule_of([](W4a8Layer& l, Activations&) { l.group_size = 32; }) == RuleId::QuantW4a8K);
  CHECK(rule_of([](W4a8Layer& l, Activations&) { l.convrot_groupsize = 8; }) == RuleId::QuantW4a8Hadamard);
  CHECK(rule_of([](W4a8Layer& l, Activations&) { l.convrot_groupsize = 0; }) == RuleId::QuantW4a8Hadamard);
  CHECK(rule_of([](W4a8Layer& l, Activations&) { l.convrot_groupsize = 1; }) == RuleId::QuantW4a8Hadamard);
  CHECK(rule_of([](W4a8Layer& l, Activations&) { l.k = 20; }) == RuleId::QuantW4a8K);
  CHECK(rule_of([](W4a8Layer& l, Activations&) { l.k = 132112; }) == RuleId::QuantKInt32);
  CHECK(rule_of([](W4a8Layer& l, Activations&) { l.weight.pop_back(); }) == RuleId::QuantW4a8Shapes);
  CHECK(rule_of([](W4a8Layer& l, Activations&) { l.s_rel.pop_back(); }) == RuleId::QuantW4a8Shapes);
  CHECK(rule_of([](W4a8Layer& l, Activations&) { l.s_channel.pop_back(); }) == RuleId::QuantW4a8Shapes);
  CHECK(rule_of([](W4a8Layer& l, Activations&) { l.bias->pop_back(); }) == RuleId::QuantW4a8Shapes);
  CHECK(rule_of([](W4a8Layer& l, Activations&) { l.correction = std::vector<float>(3); }) == RuleId::QuantW4a8Correction);
  CHECK(rule_of([](W4a8Layer& l, Activations&) { l.n = SIZE_MAX; }) == RuleId::QuantW4a8Shapes);
  CHECK(rule_of([](W4a8Layer&, Activations& a) { a.m = 2; }) == RuleId::QuantW4a8Shapes);
  CHECK(rule_of([](W4a8Layer&, Activations& a) { a.values[3] = 0.1f; }) == RuleId::QuantW4a8Shapes);
  CHECK(rule_of([](W4a8Layer&, Activations&) {}, {}) == RuleId::QuantW4a8CudaGroupsize);
  auto r = w4a8_linear(example_a_layer(), x, eager());
  CHECK(r.ok());
  auto ideal = w4a8_ideal(example_a_layer(), Activations{2, FloatType::BF16, x.values});
  REQUIRE(!ideal.ok());
  CHECK(ideal.error().message == "expected 32 values, found 16");
  CHECK(ideal.error().where.text() == "x [M, K]");
}

TEST_CASE("W4A8 §5.5: the CUDA entry point falls back to eager when CUTLASS declines N", "[numerics]") {
  W4a8Layer l = example_b_layer();  // N = 3
  const W4a8Options bf = cuda_entry_point(l, {}, FloatType::BF16);
  CHECK(bf.semantics == Semantics::Eager);
  CHECK(bf.eager_scale == EagerScale::Reciprocal);
  l.n = 8;
  CHECK(cuda_entry_point(l, {}, FloatType::BF16).semantics == Semantics::Cuda);
  l.n = 4;
  CHECK(cuda_entry_point(l, {}, FloatType::F32).semantics == Semantics::Cuda);
  W4a8Options f16_out;
  f16_out.out_dtype = FloatType::F16;
  CHECK(cuda_entry_point(l, f16_out, FloatType::F32).semantics == Semantics::Eager);
}

TEST_CASE("W4A8 non-finite inputs (U8): IEEE results, no crash", "[numerics]") {
  W4a8Layer l = example_b_layer();
  Activations x = example_b_x();
  x.values[5] = NAN;
  const W4a8Output on_cuda = run(l, x, {});
  for (std::size_t k = 0; k < 256; ++k) CHECK(on_cuda.trace->xq[k] == -128);  // the whole block is NaN, coded -128
  CHECK(std::isfinite(on_cuda.trace->xs[0]));
  const W4a8Output on_eager = run(l, x, eager());
  CHECK(std::isnan(on_eager.trace->xs[0]));
  for (float y : on_eager.y) CHECK(std::isnan(y));
  x.values[5] = INFINITY;
  const W4a8Output inf_cuda = run(l, x, {});
  CHECK(inf_cuda.trace->xs[0] == 3.3895313892515355e38f * from_bits(0x3C010204));  // Tmax clamp
  l.s_rel[0] = num::decode_e4m3fn(0x7F);
  l.s_channel[1] = INFINITY;
  (void)run(l, example_b_x(), {});
  (void)run(l, example_b_x(), eager());
}
