#include "spec/numerics/w4a8_reference.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "spec/checked_math.hpp"
#include "spec/numerics/exact_sum.hpp"

namespace safespec::numerics {

namespace {

// §0.2 constants. 1.0f / 127.0f is folded at compile time with IEEE RNE
// (U14's assumption), checked against the document's bits.
constexpr float kR = 1.0f / 127.0f;
constexpr float kF = 1e-30f;
static_assert(std::bit_cast<std::uint32_t>(kR) == 0x3C010204u);
static_assert(std::bit_cast<std::uint32_t>(kF) == 0x0DA24260u);

// Each binary32 rounding is its own function call, so no compiler can
// contract a product and a sum into an FMA the document does not have.
float mul32(float a, float b) { return a * b; }
float add32(float a, float b) { return a + b; }
float div32(float a, float b) { return a / b; }

// clamp then rne_int (§0.2: the order does not matter for integer bounds);
// the caller has ruled out NaN, and ±inf clamps.
std::int8_t clamp_round(float v, float lo, float hi) {
  return static_cast<std::int8_t>(std::nearbyint(std::clamp(v, lo, hi)));
}

std::string size_text(std::uint64_t v) { return std::to_string(v); }

Error shape_error(const std::string& what, std::uint64_t expected, std::uint64_t found) {
  return Error{RuleId::QuantW4a8Shapes, Place::argument(what),
               "expected " + size_text(expected) + " values, found " + size_text(found)};
}

// Number of values of a [rows, cols] tensor; nullopt on overflow.
std::optional<std::uint64_t> count(std::uint64_t rows, std::uint64_t cols) { return checked_mul(rows, cols); }

Status check_size(const std::string& what, std::optional<std::uint64_t> expected, std::size_t found) {
  if (!expected) return Error{RuleId::QuantW4a8Shapes, Place::argument(what), "expected a value count that fits 64 bits"};
  if (*expected != found) return shape_error(what, *expected, found);
  return ok_status();
}

}  // namespace

// ---- §5.1 validity ----

Status validate(const W4a8Layer& l, const Activations& x, const W4a8Options& o) {
  const std::size_t K = l.k, G = l.group_size, C = l.convrot_groupsize;
  const std::string k_text = "K = " + size_text(K);
  if (l.bits != 4 && l.bits != 6)
    return Error{RuleId::QuantW4a8Shapes, Place::argument("bits"), "expected 4 or 6, found " + size_text(l.bits)};
  if (G < 4)
    return Error{RuleId::QuantW4a8GroupSize, Place::argument("group_size"), "expected G >= 4, found " + size_text(G)};
  if (!(16 % G == 0 || G % 16 == 0))
    return Error{RuleId::QuantW4a8K, Place::argument("group_size"),
                 "expected G to divide 16 or be a multiple of 16, found " + size_text(G)};
  if (!log4_exact(C))
    return Error{RuleId::QuantW4a8Hadamard, Place::argument("convrot_groupsize"),
                 "expected a power of 4 that is at least 4 (Regular Hadamard size must be a power of 4), found " +
                     size_text(C)};
  if (l.bits == 6 && (K % 32 != 0 || G < 16 || G % 16 != 0))
    return Error{RuleId::QuantW6a8Geometry, Place::argument("K"),
                 "expected K divisible by 32 and G a multiple of 16 for 6-bit storage, found " + k_text + ", G = " +
                     size_text(G)};
  if (l.bits == 6 && (l.codebook || l.correction))
    return Error{RuleId::QuantW6a8Codebook, Place::argument(l.codebook ? "codebook" : "correction"),
                 "expected none for 6-bit storage (uniform and symmetric codes), found one"};
  if (K % 16 != 0 || K % G != 0 || K % C != 0)
    return Error{RuleId::QuantW4a8K, Place::argument("K"),
                 "expected K divisible by 16, G = " + size_text(G) + " and C = " + size_text(C) + ", found " +
                     k_text};
  if (K > kW4a8MaxK)
    return Error{RuleId::QuantKInt32, Place::argument("K"),
                 "expected K <= " + size_text(kW4a8MaxK) + " (beyond it int32 accumulation can overflow, cuda.7), found " +
                     k_text};
  if (o.semantics == Semantics::Cuda && C != 256 && !o.cuda_any_block_size)
    return Error{RuleId::QuantW4a8CudaGroupsize, Place::argument("convrot_groupsize"),
                 "expected 256 (the CUDA activation kernel's only size), found " + size_text(C)};
  const std::uint64_t groups = K / G;
  for (const Status& s : {check_size(l.bits == 6 ? "weight [N, 3K/4]" : "weight [N, K/2]",
                                     count(l.n, K * l.bits / 8), l.weight.size()),
                          check_size("s_rel [N, K/G]", count(l.n, groups), l.s_rel.size()),
                          check_size("s_channel [N]", l.n, l.s_channel.size()),
                          check_size("x [M, K]", count(x.m, K), x.values.size())})
    if (!s) return s;
  if (l.correction) {
    Status s = check_size("correction [K/G, N]", count(groups, l.n), l.correction->size());
    if (!s) return Error{RuleId::QuantW4a8Correction, s.error().where, s.error().message};
  }
  if (l.bias) {
    Status s = check_size("bias [N]", l.n, l.bias->size());
    if (!s) return s;
  }
  for (std::size_t i = 0; i < x.values.size(); ++i)
    if (!representable(x.dtype, x.values[i]))
      return Error{RuleId::QuantW4a8Shapes, Place::argument("x element " + size_text(i)),
                   "expected a value of " + std::string(name(x.dtype)) + ", found a binary32 value that is not one"};
  return ok_status();
}

// ---- §2.5 packing and W4A8.1 ----

std::pair<std::uint8_t, std::uint8_t> unpack_codes(std::uint8_t byte) {
  return {static_cast<std::uint8_t>(byte & 0xF), static_cast<std::uint8_t>(byte >> 4)};
}

std::uint8_t pack_codes(std::uint8_t even, std::uint8_t odd) {
  return static_cast<std::uint8_t>((even & 0xF) | (odd & 0xF) << 4);
}

std::uint8_t weight_code(std::span<const std::uint8_t> row, std::size_t k, std::size_t col, std::size_t bits) {
  const auto [even, odd] = unpack_codes(row[col / 2]);
  const std::uint8_t low = col % 2 == 0 ? even : odd;
  if (bits != 6) return low;
  const std::uint8_t high = static_cast<std::uint8_t>((row[k / 2 + col / 4] >> (2 * (col % 4))) & 0x3);
  return static_cast<std::uint8_t>(low | high << 4);
}

std::int8_t decode_weight_element(std::uint8_t code, float s, const std::optional<std::array<float, 16>>& codebook,
                                  std::size_t bits) {
  const int mask = bits == 6 ? 0x3F : 0xF, zero = bits == 6 ? 32 : 8;  // uniform, zero point mid-range
  const float level = codebook ? (*codebook)[code & 0xF] : static_cast<float>((code & mask) - zero);
  const float p = mul32(level, s);
  if (std::isnan(p)) return 0;  // U8 / §5.2 undetermined: safespec codes NaN as 0
  return clamp_round(p, -127.0f, 127.0f);
}

std::vector<std::int8_t> decode_weight(const W4a8Layer& l) {
  std::vector<std::int8_t> wq(l.n * l.k);
  const std::size_t groups = l.k / l.group_size;
  const std::size_t row_bytes = l.k * l.bits / 8;
  for (std::size_t n = 0; n < l.n; ++n)
    for (std::size_t k = 0; k < l.k; ++k) {
      const std::span<const std::uint8_t> row(l.weight.data() + n * row_bytes, row_bytes);
      const float s = l.s_rel[n * groups + k / l.group_size];
      wq[n * l.k + k] = decode_weight_element(weight_code(row, l.k, k, l.bits), s, l.codebook, l.bits);
    }
  return wq;
}

// ---- cuda.4 - cuda.6 ----

float amax_cuda(std::span<const float> r) {
  float m = 0.0f;
  for (float v : r) m = std::fmax(m, std::fabs(v));  // fmaxf: a NaN element is skipped
  return m;
}

float activation_scale_cuda(float amax, FloatType x_dtype, const CudaF32& f32) {
  return std::fmax(f32.mul(std::fmin(amax, max_finite(x_dtype)), kR), kF);
}

std::int8_t quantize_cuda(float r, float d, FloatType x_dtype, const CudaF32& f32) {
  const float e = round_to(x_dtype, r);
  const float q = round_to(x_dtype, f32.div(e, d));  // d == 0 kept: ±inf, or NaN for e = ±0
  // nearbyintf, then fmaxf(·, -128), fminf(·, 127): fmaxf turns NaN into -128.
  if (std::isnan(q)) return -128;
  return clamp_round(q, -128.0f, 127.0f);
}

// ---- eager.3 - eager.6 ----

float amax_eager(std::span<const float> xr) {
  float m = 0.0f;
  for (float v : xr) {
    if (std::isnan(v)) return v;
    m = std::max(m, std::fabs(v));
  }
  return m;
}

float activation_scale_eager(float amax, EagerScale scale) {
  const float v = scale == EagerScale::Divide ? div32(amax, 127.0f) : mul32(amax, kR);
  return std::isnan(v) ? v : std::max(v, kF);
}

float divisor_eager(float xs, FloatType x_dtype) {
  const float d = round_to(x_dtype, xs);
  return d == 0.0f ? min_normal(x_dtype) : d;
}

std::int8_t quantize_eager(float xr, float d, FloatType x_dtype) {
  const float q = round_to(x_dtype, div32(xr, d));
  if (std::isnan(q)) return 0;  // U8: PyTorch-defined int8 cast; safespec's choice
  return clamp_round(q, -128.0f, 127.0f);
}

// ---- cuda.7 / eager.7 ----

std::int32_t accumulate(std::span<const std::int8_t> xq, std::span<const std::int8_t> wq) {
  std::int64_t acc = 0;
  for (std::size_t k = 0; k < xq.size() && k < wq.size(); ++k) acc += std::int64_t{xq[k]} * wq[k];
  // validate() bounds K, so |acc| <= 132104 · 16256 < 2^31; the clamp never acts.
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(acc, INT32_MIN, INT32_MAX));
}

// ---- cuda.8 - cuda.10 ----

float epilogue_cuda(std::int32_t acc, float xs, float s_channel, std::optional<float> bias, FloatType out,
                    bool fma, const CudaF32& f32) {
  const float a = static_cast<float>(acc);  // RNE; exact for |acc| <= 2^24
  const float t0 = f32.mul(a, xs);          // Mul0
  if (!bias) return round_to(out, f32.mul(t0, s_channel));  // Mul1 converts straight to T_o
  const float b = *bias;                                    // cuda.8: exact widening
  const float sum = fma ? f32.fma(t0, s_channel, b) : f32.add(f32.mul(t0, s_channel), b);
  return round_to(out, sum);  // Add2: the one conversion to T_o
}

float correction_cuda(float y, std::span<const std::int8_t> xq_row, float xs, std::size_t group_size,
                      std::span<const float> correction_column, FloatType out) {
  const float xs_o = round_to(out, xs);
  ExactSum sum;
  sum.add(y);
  for (std::size_t g = 0; g < correction_column.size(); ++g) {
    std::int32_t s = 0;
    for (std::size_t k = g * group_size; k < (g + 1) * group_size && k < xq_row.size(); ++k) s += xq_row[k];
    const float s_o = round_to(out, static_cast<float>(s));  // |s| <= 128·G: exact in f32 (§1.4)
    const float u = round_to(out, mul32(s_o, xs_o));         // one T_o product (§1.3)
    sum.add_product(u, round_to(out, correction_column[g]));
  }
  return sum.rounded(out);
}

// ---- eager.8, eager.C2 ----

float epilogue_eager(std::int32_t acc, float xs, float s_channel, std::optional<float> bias, FloatType out) {
  const float p = mul32(xs, s_channel);  // the scale product is formed first
  const float v = round_to(out, mul32(static_cast<float>(acc), p));
  if (!bias) return v;
  return round_to(out, add32(v, round_to(out, *bias)));
}

float rotated_weight_eager(std::int8_t wq, float s_channel, float correction, FloatType x_dtype) {
  const float scaled = mul32(static_cast<float>(wq), s_channel);
  return round_to(x_dtype, add32(scaled, correction));
}

}  // namespace safespec::numerics
