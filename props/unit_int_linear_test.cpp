// quant-numerics.md §5.4 (eager.3-eager.8), §6.2, §6.3, §7.1: the reference
// int8_tensorwise and convrot_w4a4 linears on hand-computed tiny cases.
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "props/catch.hpp"
#include "spec/numerics/int_linear.hpp"
#include "spec/numerics/rounding.hpp"

using namespace safespec;
using namespace safespec::deq;

namespace {

float pow2(int e) { return std::ldexp(1.0f, e); }
template <class V>
Mat<V> make_mat(std::uint64_t r, std::uint64_t c, std::vector<V> v) { return Mat<V>(r, c, std::move(v)); }

// Packed W4A4 bytes with every code equal to `code` (low and high nibble).
W4a4Weight w4a4_uniform(std::uint64_t n, std::uint64_t k, std::vector<std::uint8_t> row_codes, std::vector<float> scale,
                        std::uint64_t c) {
  Mat<std::uint8_t> packed = Mat<std::uint8_t>::zeros(n, k / 2);
  for (std::uint64_t r = 0; r < n; ++r)
    for (std::uint64_t j = 0; j < k / 2; ++j) packed.at(r, j) = static_cast<std::uint8_t>(row_codes[r] | (row_codes[r] << 4));
  return {packed, std::move(scale), c};
}

}  // namespace

// ---- shared eager steps ----

TEST_CASE("numerics §5.4 eager.4: xs divides on the CPU and multiplies by f32(1/127) on a GPU", "[numerics]") {
  CHECK(eager_xs(127.0f, Device::Cpu) == 1.0f);
  CHECK(eager_xs(127.0f, Device::Gpu) == 1.0f);
  // amax = 0.03515625 (a bf16 value) is one of the ~4.6 % where the two differ by one ulp.
  const float cpu = eager_xs(0.03515625f, Device::Cpu), gpu = eager_xs(0.03515625f, Device::Gpu);
  CHECK(cpu == 0.03515625f / 127.0f);
  CHECK(gpu == 0.03515625f * std::bit_cast<float>(0x3C010204u));
  CHECK(std::bit_cast<std::uint32_t>(cpu) - std::bit_cast<std::uint32_t>(gpu) == 1);
  CHECK(eager_xs(0.0f, Device::Cpu) == std::bit_cast<float>(0x0DA24260u));  // F = f32(1e-30)
  CHECK(std::isnan(eager_xs(NAN, Device::Gpu)));
}

TEST_CASE("numerics §5.4 eager.5-eager.6: zero divisor becomes tiny(T) (fp16 only), codes clamp to [-128, 127]", "[numerics]") {
  const float f = std::bit_cast<float>(0x0DA24260u);
  CHECK(eager_divisor(f, Dtype::F16) == pow2(-14));
  CHECK(eager_divisor(f, Dtype::BF16) == round_t(Dtype::BF16, f));
  CHECK(eager_divisor(f, Dtype::F32) == f);
  CHECK(eager_code(127.5f, 1.0f, Dtype::F32) == 127);
  CHECK(eager_code(-200.0f, 1.0f, Dtype::F32) == -128);
  CHECK(eager_code(2.5f, 1.0f, Dtype::F32) == 2);     // ties to even
  CHECK(eager_code(-3.5f, 1.0f, Dtype::F32) == -4);
  CHECK(eager_code(2.505f, 1.0f, Dtype::BF16) == 2);  // T(2.505) = 2.5 first, then the tie
  CHECK(eager_code(2.505f, 1.0f, Dtype::F32) == 3);
  CHECK(eager_code(INFINITY, 1.0f, Dtype::F32) == 127);
  CHECK(eager_code(0.0f, 0.0f, Dtype::F32) == 0);     // NaN quotient: 0 (position, ⚠ U8)
  CHECK(clamp_rne(NAN, -7, 7) == 0);
  CHECK(clamp_rne(-1e30f, -7, 7) == -7);
}

TEST_CASE("numerics NUM-K-INT32-OVERFLOW: the K bounds of the integer GEMMs", "[numerics][NUM-K-INT32-OVERFLOW]") {
  CHECK(k_bound(128, 128) == 131071);
  CHECK(k_bound(7, 8) == 38347922);
  CHECK(k_bound(128, 8) == 2097151);
  // K = 131072 int8: refused before any work (M = N = 0, so nothing is allocated).
  LinearInput in{Mat<float>(0, 131072, {}), Dtype::F32, std::nullopt, Device::Cpu};
  auto r = int8_linear(in, {Mat<std::int8_t>(0, 131072, {}), {1.0f}, 0});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().rule == RuleId::QuantKInt32);
  CHECK(r.error().message == "expected K <= 131071 so that the int32 accumulator cannot overflow, found K = 131072");
  CHECK(int8_linear({Mat<float>(0, 131071, {}), Dtype::F32, std::nullopt, Device::Cpu},
                    {Mat<std::int8_t>(0, 131071, {}), {1.0f}, 0})
            .ok());
}

// ---- §7.1 int8_tensorwise ----

TEST_CASE("numerics §7.1: int8 linear, F32, tensor-wise scale, by hand", "[numerics]") {
  // amax = 127 -> xs = 1 (both devices), so xq = rne(x): [127, -2, 0, 4].
  // acc = [127 + -4 + 0 + 16, -127 + 0 + 0 - 512] = [139, -639]; y = acc * 0.5 + bias.
  const Int8Weight w{make_mat<std::int8_t>(2, 4, {1, 2, 3, 4, -1, 0, 1, -128}), {0.5f}, 0};
  for (Device d : {Device::Cpu, Device::Gpu}) {
    LinearInput in{make_mat<float>(1, 4, {127.0f, -2.5f, 0.5f, 3.5f}), Dtype::F32, std::vector<float>{1.0f, 0.25f}, d};
    auto r = int8_linear(in, w);
    REQUIRE(r.ok());
    CHECK(r.value().x_scale == std::vector<float>{1.0f});
    CHECK(r.value().xq.v == std::vector<std::int8_t>{127, -2, 0, 4});
    CHECK(r.value().acc.v == std::vector<std::int64_t>{139, -639});
    CHECK(r.value().y.v == std::vector<float>{70.5f, -319.25f});
  }
}

TEST_CASE("numerics §7.1 eager.8: int8 linear in BF16 rounds twice, row-wise scales", "[numerics]") {
  LinearInput in{make_mat<float>(1, 4, {127.0f, -2.5f, 0.5f, 3.5f}), Dtype::BF16, std::vector<float>{1.0f, 0.25f}, Device::Gpu};
  // v = bf16(-319.5) = -320 (step 2 in [256, 512)); -320 + 0.25 -> bf16 -320.
  auto r = int8_linear(in, {make_mat<std::int8_t>(2, 4, {1, 2, 3, 4, -1, 0, 1, -128}), {0.5f}, 0});
  REQUIRE(r.ok());
  CHECK(r.value().y.v == std::vector<float>{70.5f, -320.0f});
  in.t = Dtype::F32;
  in.bias.reset();
  auto rw = int8_linear(in, {make_mat<std::int8_t>(2, 4, {1, 2, 3, 4, -1, 0, 1, -128}), {0.5f, 0.25f}, 0});
  REQUIRE(rw.ok());
  CHECK(rw.value().y.v == std::vector<float>{69.5f, -159.75f});
}

TEST_CASE("numerics §7.1: int8 linear with ConvRot rotates the activations first", "[numerics]") {
  // x = [254, 0, 0, 0] -> xr = 254 * H4 row 0 / 2 = [127, 127, 127, -127]; xs = 1.
  // Stored (rotated) weight row [1, 1, 1, -1]: acc = 4 * 127 = 508; y = 508 * 0.5 = 254,
  // which is x . W for the un-rotated W = [1, 0, 0, 0] (dequant_int8 gives it).
  const Int8Weight w{make_mat<std::int8_t>(1, 4, {1, 1, 1, -1}), {0.5f}, 4};
  auto r = int8_linear({make_mat<float>(1, 4, {254.0f, 0.0f, 0.0f, 0.0f}), Dtype::BF16, std::nullopt, Device::Cpu}, w);
  REQUIRE(r.ok());
  CHECK(r.value().xr.v == std::vector<float>{127.0f, 127.0f, 127.0f, -127.0f});
  CHECK(r.value().xq.v == std::vector<std::int8_t>{127, 127, 127, -127});
  CHECK(r.value().y.v == std::vector<float>{254.0f});
  auto deq = dequant_int8(w, Dtype::F32);
  REQUIRE(deq.ok());
  CHECK(deq.value().v == std::vector<float>{1.0f, 0.0f, 0.0f, 0.0f});
}

TEST_CASE("numerics §7.1 U8: zero, NaN and infinite activations never crash", "[numerics]") {
  const Int8Weight w{make_mat<std::int8_t>(1, 4, {1, 1, 1, 1}), {1.0f}, 0};
  auto zero = int8_linear({make_mat<float>(1, 4, {0, 0, 0, 0}), Dtype::F16, std::vector<float>{3.0f}, Device::Cpu}, w);
  REQUIRE(zero.ok());
  CHECK(zero.value().xq.v == std::vector<std::int8_t>{0, 0, 0, 0});
  CHECK(zero.value().y.v == std::vector<float>{3.0f});
  auto nan = int8_linear({make_mat<float>(1, 4, {1, NAN, 0, 0}), Dtype::F32, std::nullopt, Device::Cpu}, w);
  REQUIRE(nan.ok());
  CHECK(std::isnan(nan.value().x_scale[0]));
  CHECK(nan.value().xq.v == std::vector<std::int8_t>{0, 0, 0, 0});
  CHECK(std::isnan(nan.value().y.v[0]));  // 0 * NaN
  auto inf = int8_linear({make_mat<float>(1, 4, {1, INFINITY, 0, 0}), Dtype::BF16, std::nullopt, Device::Gpu}, w);
  REQUIRE(inf.ok());
  CHECK(inf.value().x_scale[0] == INFINITY);
  CHECK(inf.value().xq.v == std::vector<std::int8_t>{0, 0, 0, 0});  // 1/inf = 0, inf/inf = NaN -> 0
}

TEST_CASE("numerics §7.1: int8 linear input errors name both shapes", "[numerics]") {
  const Int8Weight w{make_mat<std::int8_t>(2, 4, {1, 2, 3, 4, 5, 6, 7, 8}), {1.0f}, 0};
  auto k = int8_linear({make_mat<float>(1, 3, {1, 2, 3}), Dtype::F32, std::nullopt, Device::Cpu}, w);
  REQUIRE_FALSE(k.ok());
  CHECK(k.error().message == "expected x [M, K] with K = 4 for the weight [N, K] = [2, 4], found x [1, 3]");
  auto v = int8_linear({make_mat<float>(1, 4, {1, 2, 3, 0.1f}), Dtype::BF16, std::nullopt, Device::Cpu}, w);
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().rule == RuleId::QuantInt8Shapes);
  auto b = int8_linear({make_mat<float>(1, 4, {1, 2, 3, 4}), Dtype::F32, std::vector<float>{1.0f}, Device::Cpu}, w);
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().message == "expected N = 2 values, found 1");
  auto t = int8_linear({make_mat<float>(1, 4, {1, 2, 3, 4}), Dtype::I32, std::nullopt, Device::Cpu}, w);
  REQUIRE_FALSE(t.ok());
  auto c = int8_linear({make_mat<float>(1, 4, {1, 2, 3, 4}), Dtype::F32, std::nullopt, Device::Cpu}, {w.q, {1.0f}, 8});
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().rule == RuleId::QuantInt8ConvrotGroupsize);
}

// ---- §6.2 / §6.3 convrot_w4a4 ----

namespace {

// K = 64, C = 64: x = [56, 0, ..., 0] rotates to xr[j] = 56 * H_64[0][j] = +-7
// (k = 3: +-56/8), sign + for the 36 columns with an even number of base-4
// digits equal to 3 (sum_j H[0][j] * 8 = (3 - 1)^3 = 8).
LinearInput w4a4_input(Dtype t, std::optional<std::vector<float>> bias, Device d = Device::Gpu) {
  std::vector<float> x(64, 0.0f);
  x[0] = 56.0f;
  return {make_mat<float>(1, 64, std::move(x)), t, std::move(bias), d};
}
// Row 0 codes all 1, row 1 all -1 (0xF); scales 0.5, 0.25.
W4a4Weight w4a4_weight() { return w4a4_uniform(2, 64, {0x1, 0xF}, {0.5f, 0.25f}, 64); }

}  // namespace

TEST_CASE("numerics §6.2: convrot_w4a4 int4 linear by hand", "[numerics]") {
  for (Dtype t : {Dtype::F32, Dtype::BF16, Dtype::F16}) {
    auto r = convrot_w4a4_linear(w4a4_input(t, std::vector<float>{1.0f, 0.5f}), w4a4_weight(), W4a4LinearDtype::Int4, Backend::Cuda);
    REQUIRE(r.ok());
    // amax = 7 -> x_scale = 7 / 7 = 1, xq = xr = +-7; acc = +-7 * 8 = +-56.
    CHECK(r.value().x_scale == std::vector<float>{1.0f});
    int plus = 0;
    for (auto q : r.value().xq.v) plus += q == 7;
    CHECK(plus == 36);
    CHECK(r.value().acc.v == std::vector<std::int64_t>{56, -56});
    CHECK(r.value().y.v == std::vector<float>{56 * 0.5f + 1.0f, -56 * 0.25f + 0.5f});
  }
}

TEST_CASE("numerics §6.3 D4 G8: linear_dtype int8 on CUDA quantizes activations to int8, eager ignores it", "[numerics]") {
  CHECK(w4a4_effective_dtype(W4a4LinearDtype::Int8, Backend::Cuda) == W4a4LinearDtype::Int8);
  CHECK(w4a4_effective_dtype(W4a4LinearDtype::Int8, Backend::Eager) == W4a4LinearDtype::Int4);
  CHECK(w4a4_effective_dtype(W4a4LinearDtype::Int4, Backend::Cuda) == W4a4LinearDtype::Int4);
  // CUDA, int8: eager.4 on the GPU: xs = f32(7 * R) = 0x3D61C387; q = 7 / xs -> 127;
  // acc = 127 * 8 = 1016; cuda.9 form: f32(f32(1016 * xs) * 0.5) = 28 (worked in binary32).
  auto cuda = convrot_w4a4_linear(w4a4_input(Dtype::F32, std::nullopt), w4a4_weight(), W4a4LinearDtype::Int8, Backend::Cuda);
  REQUIRE(cuda.ok());
  CHECK(std::bit_cast<std::uint32_t>(cuda.value().x_scale[0]) == 0x3D61C387u);
  CHECK(cuda.value().acc.v == std::vector<std::int64_t>{1016, -1016});
  CHECK(cuda.value().y.v == std::vector<float>{28.0f, -14.0f});
  // Eager with linear_dtype int8: the int4 path (codes +-7, acc +-56).
  auto eager = convrot_w4a4_linear(w4a4_input(Dtype::F32, std::nullopt), w4a4_weight(), W4a4LinearDtype::Int8, Backend::Eager);
  REQUIRE(eager.ok());
  CHECK(eager.value().acc.v == std::vector<std::int64_t>{56, -56});
  CHECK(eager.value().x_scale == std::vector<float>{1.0f});
}

TEST_CASE("numerics §6.2 U4: the int4 epilogue rounds each T operation (BF16)", "[numerics]") {
  // acc = 56, x_scale = 1; w_scale 0.3 -> bf16 0.30078125; 56 * 0.30078125 =
  // 16.84375 -> bf16 16.875 (step 0.125); + bf16(1/3) = 0.333984375 ->
  // 17.208984375 -> bf16 17.25.
  W4a4Weight w = w4a4_weight();
  w.scale = {0.3f, 0.25f};
  auto r = convrot_w4a4_linear(w4a4_input(Dtype::BF16, std::vector<float>{1.0f / 3.0f, 0.0f}), w, W4a4LinearDtype::Int4, Backend::Eager);
  REQUIRE(r.ok());
  CHECK(r.value().y.v[0] == 17.25f);
}

TEST_CASE("numerics §6.2 U8: an all-tiny F16 row gives x_scale 0 and codes 0, never a crash", "[numerics]") {
  // 2^-24 rotated by H_64 is 2^-27: below half of F16's smallest subnormal, so xr = 0;
  // x_scale = f16(1e-10 / 7) = 0; 0 / 0 is NaN, coded 0.
  std::vector<float> x(64, 0.0f);
  x[0] = pow2(-24);
  auto r = convrot_w4a4_linear({make_mat<float>(1, 64, x), Dtype::F16, std::nullopt, Device::Gpu}, w4a4_weight(), W4a4LinearDtype::Int4,
                               Backend::Cuda);
  REQUIRE(r.ok());
  CHECK(r.value().x_scale == std::vector<float>{0.0f});
  for (auto q : r.value().xq.v) CHECK(q == 0);
  CHECK(r.value().y.v == std::vector<float>{0.0f, 0.0f});
}

TEST_CASE("numerics §6.2 L15 K9: convrot_w4a4 linear errors", "[numerics]") {
  W4a4Weight w = w4a4_uniform(1, 32, {1}, {1.0f}, 16);  // K = 32: not a multiple of 64
  auto k = convrot_w4a4_linear({Mat<float>::zeros(1, 32), Dtype::F32, std::nullopt, Device::Gpu}, w, W4a4LinearDtype::Int4, Backend::Cuda);
  REQUIRE_FALSE(k.ok());
  CHECK(k.error().rule == RuleId::QuantW4a4K);
  CHECK(k.error().message == "expected K divisible by 64 (quant_group_size), found K = 32");
  W4a4Weight c = w4a4_uniform(1, 64, {1}, {1.0f}, 32);  // C = 32: not a power of 4
  auto g = convrot_w4a4_linear({Mat<float>::zeros(1, 64), Dtype::F32, std::nullopt, Device::Gpu}, c, W4a4LinearDtype::Int4, Backend::Cuda);
  REQUIRE_FALSE(g.ok());
  CHECK(g.error().rule == RuleId::QuantW4a4Groupsize);
  W4a4Weight s = w4a4_uniform(2, 64, {1, 1}, {1.0f}, 64);
  auto sc = convrot_w4a4_linear({Mat<float>::zeros(1, 64), Dtype::F32, std::nullopt, Device::Gpu}, s, W4a4LinearDtype::Int4, Backend::Cuda);
  REQUIRE_FALSE(sc.ok());
  CHECK(sc.error().message == "expected N = 2 scale values, found 1");
}
