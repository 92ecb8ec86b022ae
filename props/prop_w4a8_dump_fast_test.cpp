// The W4A8 weight in the original basis and `linear --dump` at the fast
// path's speed are the references' (quant-numerics.md §5.10, eager.C2-C3):
// - w4a8_dequant_fast, w4a8_dequant_f32 and W4a8DequantRows over any row
//   blocks (`safespec dequant`) == w4a8_dequant bit for bit, NaN bits included;
// - w4a8_ideal_fast == w4a8_ideal bit for bit, for every lane width (the GEMM
//   kernel choice), thread count, and with or without the trace's Wq;
// - the dump's tensors from the fast path (w4a8_dump_tensors) == the tensors
//   built from the reference's trace and y_ideal: same names, dtypes, shapes
//   and bytes, a NaN of a float tensor matching any NaN (the fast linear's
//   own contract, §1.1; y_ideal is held to its bits above).
// Layers of random shapes (G, C = 4, 16, 64, 256), codebook, correction and
// bias present or absent, scales and inputs of any bit pattern.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>
#include <sstream>
#include <vector>

#include "props/catch.hpp"
#include "props/full_range_gen.hpp"
#include "spec/number_formats.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/commands/linear.hpp"
#include "src/numerics/w4a8_weight_fast.hpp"

using namespace safespec;
using namespace safespec::numerics;
using namespace safespec::test::full_range;

namespace {

std::string dump_error_text(const Error& e) { return std::string(rule_name(e.rule)) + " at " + e.where.text() + ": " + e.message; }

FloatType gen_dump_type() { return one_of(FloatType::F32, FloatType::BF16, FloatType::F16); }

float gen_dump_scale(float typical) {
  switch (bulk(0, 16)) {
    case 0: return any_float();
    case 1: return bulk_one_of(0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1e-40f, -1e-45f, 3e38f);
    default: return typical * static_cast<float>(bulk(-64, 65)) / 32.0f;
  }
}

float gen_dump_x(FloatType t) {
  if (bulk(0, 32) == 0) return round_to(t, any_float());
  const float v = static_cast<float>(bulk(-4096, 4097));
  return round_to(t, std::ldexp(v, bulk(-14, 6)));
}

// A layer within §5.1 (or, rarely, one that validate refuses), with N past
// 8 so that the y_ideal tiles of 8 outputs end part-full.
W4a8Layer gen_layer(std::size_t c) {
  W4a8Layer l;
  l.convrot_groupsize = c;
  l.group_size = one_of<std::size_t>(4, 8, 16, 32, 64, 128);
  // W6A8 (6-bit storage): G a multiple of 16, K of 32, no codebook or correction.
  l.bits = l.group_size % 16 == 0 && pick(0, 3) == 0 ? 6 : 4;
  const std::size_t unit = std::lcm(std::lcm(std::size_t{l.bits == 6 ? 32u : 16u}, l.group_size), c);
  l.k = unit * pick<std::size_t>(1, unit >= 256 ? 3 : 5);
  l.n = pick<std::size_t>(1, c >= 256 ? 12 : 20);  // the references' rotations are O(C²) per block
  for (std::size_t i = 0; i < l.n * l.k * l.bits / 8; ++i) l.weight.push_back(any_byte());
  const bool e4m3 = coin();
  for (std::size_t i = 0; i < l.n * (l.k / l.group_size); ++i)
    l.s_rel.push_back(e4m3 ? num::decode_e4m3fn(any_byte()) : gen_dump_scale(2.0f));
  for (std::size_t i = 0; i < l.n; ++i) l.s_channel.push_back(gen_dump_scale(1.0f / 512));
  if (l.bits == 4 && coin()) {
    std::array<float, 16> cb{};
    for (float& v : cb) v = gen_dump_scale(1.0f);
    l.codebook = cb;
  }
  if (l.bits == 4 && coin()) {
    l.correction.emplace();
    // Corrections near the scaled weights keep most blocks exact in
    // binary64; far ones (and NaN) send blocks to the reference's rotation.
    const float typical = one_of(1.0f / 64, 1.0f / 4096, 1e-12f);
    for (std::size_t i = 0; i < (l.k / l.group_size) * l.n; ++i) l.correction->push_back(gen_dump_scale(typical));
  }
  if (coin()) {
    l.bias.emplace();
    for (std::size_t i = 0; i < l.n; ++i) l.bias->push_back(gen_dump_scale(1.0f));
  }
  if (pick(0, 20) == 0) l.s_channel.pop_back();  // refused alike
  return l;
}

Activations gen_x_rows(const W4a8Layer& l) {
  Activations x;
  x.dtype = gen_dump_type();
  x.m = one_of<std::size_t>(0, 1, 2, 3, 5, 8, 9, 17);  // the lanes take 1, 4 and 8 rows at once
  for (std::size_t m = 0; m < x.m; ++m) {
    const bool zero_row = pick(0, 8) == 0;
    for (std::size_t k = 0; k < l.k; ++k) x.values.push_back(zero_row ? 0.0f : gen_dump_x(x.dtype));
  }
  return x;
}

W4a8FastConfig gen_config() {
  return {pick(1u, 4u),
          one_of(GemmKernel::Auto, GemmKernel::Scalar, GemmKernel::Avx2, GemmKernel::Avx512Vnni)};
}

template <class T>
std::string bits_differ(const Result<std::vector<T>>& ref, const Result<std::vector<T>>& fast) {
  if (!ref.ok() || !fast.ok()) {
    const std::string a = ref.ok() ? "ok" : dump_error_text(ref.error()), b = fast.ok() ? "ok" : dump_error_text(fast.error());
    return a == b ? "" : "reference: " + a + "; fast: " + b;
  }
  if (ref.value().size() != fast.value().size()) return "sizes differ";
  for (std::size_t i = 0; i < ref.value().size(); ++i)
    if (std::memcmp(&ref.value()[i], &fast.value()[i], sizeof(T)) != 0) {
      std::ostringstream s;
      s << "value " << i << ": reference " << ref.value()[i] << ", fast " << fast.value()[i];
      return s.str();
    }
  return "";
}

// Element `i` of a float tensor's bytes is a NaN (F64, F32, BF16, F16).
bool nan_at(Dtype d, const std::vector<std::uint8_t>& b, std::size_t i) {
  switch (d) {
    case Dtype::F64: {
      double v;
      std::memcpy(&v, &b[8 * i], 8);
      return std::isnan(v);
    }
    case Dtype::F32: {
      float v;
      std::memcpy(&v, &b[4 * i], 4);
      return std::isnan(v);
    }
    case Dtype::BF16: return std::isnan(num::bf16_to_f32(static_cast<std::uint16_t>(b[2 * i] | b[2 * i + 1] << 8)));
    case Dtype::F16: return std::isnan(num::f16_to_f32(static_cast<std::uint16_t>(b[2 * i] | b[2 * i + 1] << 8)));
    default: return false;
  }
}

std::size_t element_size(Dtype d) {
  switch (d) {
    case Dtype::F64: return 8;
    case Dtype::F32: case Dtype::I32: return 4;
    case Dtype::BF16: case Dtype::F16: return 2;
    default: return 1;
  }
}

std::string tensors_differ(const std::vector<NamedTensor>& ref, const std::vector<NamedTensor>& fast) {
  if (ref.size() != fast.size()) return std::to_string(ref.size()) + " tensors against " + std::to_string(fast.size());
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const NamedTensor& a = ref[i];
    const NamedTensor& b = fast[i];
    if (a.name != b.name || a.dtype != b.dtype || a.shape != b.shape || a.bytes.size() != b.bytes.size())
      return "tensor " + std::to_string(i) + ": " + a.name + " against " + b.name + " (name, dtype, shape or size)";
    const std::size_t e = element_size(a.dtype);
    for (std::size_t j = 0; j < a.bytes.size() / e; ++j)
      if (std::memcmp(&a.bytes[j * e], &b.bytes[j * e], e) != 0 && !(nan_at(a.dtype, a.bytes, j) && nan_at(b.dtype, b.bytes, j)))
        return a.name + "[" + std::to_string(j) + "] differs";
  }
  return "";
}

}  // namespace

TEST_CASE("W4A8 fast dequantization == w4a8_dequant bit for bit (§5.10, eager.C2-C3)", "[prop][numerics][CQ-W4A8-CORRECTION]") {
  prop("w4a8_dequant_fast and the command's w4a8_dequant_f32", 200, [] {
    const W4a8Layer l = gen_layer(one_of<std::size_t>(4, 16, 64, 256));
    const auto ref = w4a8_dequant(l);
    RC_ASSERT(bits_differ(ref, w4a8_dequant_fast(l, gen_config())) == "");
    const auto cli = w4a8_dequant_f32(l);
    RC_ASSERT(bits_differ(ref, cli.ok() ? Result<std::vector<float>>(cli.value().v) : Result<std::vector<float>>(cli.error())) == "");
    // W4a8DequantRows (`safespec dequant` streams it): the same refusal, or
    // the same bits over any split into row blocks; a range past the layer
    // or a block too small writes nothing.
    const auto rows = W4a8DequantRows::make(l, gen_config());
    RC_ASSERT(rows.ok() == ref.ok());
    if (!ref.ok()) {
      RC_ASSERT(rows.error() == ref.error());
      return;
    }
    std::vector<float> joined;
    for (std::size_t n = 0; n < l.n;) {
      const std::size_t end = std::min(l.n, n + pick<std::size_t>(1, 9));
      std::vector<float> block((end - n) * l.k);
      RC_ASSERT(rows.value().rows(n, end, block));
      joined.insert(joined.end(), block.begin(), block.end());
      n = end;
    }
    RC_ASSERT(bits_differ(ref, Result<std::vector<float>>(joined)) == "");
    std::vector<float> one_short(l.n * l.k - 1, 7.0f);
    RC_ASSERT(!rows.value().rows(0, l.n, one_short));
    RC_ASSERT(!rows.value().rows(0, l.n + 1, joined));
    RC_ASSERT(std::all_of(one_short.begin(), one_short.end(), [](float v) { return v == 7.0f; }));
  });
}

TEST_CASE("W4A8 fast y_ideal == w4a8_ideal bit for bit (§5.10)", "[prop][numerics]") {
  prop("every lane width and thread count, with and without the decoded Wq", 200, [] {
    const W4a8Layer l = gen_layer(one_of<std::size_t>(4, 16, 64, 256));
    const Activations x = gen_x_rows(l);
    const auto ref = w4a8_ideal(l, x);
    std::vector<std::int8_t> wq;
    if (coin() && l.s_channel.size() == l.n) wq = decode_weight(l);
    RC_ASSERT(bits_differ(ref, w4a8_ideal_fast(l, x, gen_config(), wq)) == "");
  });
}

TEST_CASE("linear --dump: the fast path's tensors == the reference trace's (§5.3, §5.4, §5.10)", "[prop][numerics]") {
  prop("both semantics, every T_x / T_o, C = 4, 16, 64, 256", 150, [] {
    W4a8Options o;
    o.semantics = one_of(Semantics::Cuda, Semantics::Eager);
    o.record_trace = true;
    o.cuda_any_block_size = pick(0, 3) == 0;
    o.cuda_fma_epilogue = coin();
    o.cuda_flush_subnormals = coin();
    o.eager_scale = one_of(EagerScale::Divide, EagerScale::Reciprocal);
    if (coin()) o.out_dtype = gen_dump_type();
    const std::size_t c = o.semantics == Semantics::Cuda && !o.cuda_any_block_size
                              ? 256
                              : one_of<std::size_t>(4, 16, 64, 256);
    const W4a8Layer l = gen_layer(c);
    const Activations x = gen_x_rows(l);
    const auto ref = w4a8_linear(l, x, o);
    const auto fast = w4a8_linear_fast(l, x, o, gen_config());
    RC_ASSERT(ref.ok() == fast.ok());
    if (!ref.ok()) return;
    const auto ideal = w4a8_ideal(l, x);
    const auto dumped = w4a8_dump_tensors(l, x, fast.value(), o.semantics);
    RC_ASSERT(ideal.ok() == dumped.ok());
    if (!ideal.ok()) return;
    RC_ASSERT(tensors_differ(w4a8_trace_tensors(l, x, ref.value(), o.semantics, ideal.value()), dumped.value()) == "");
  });
}
