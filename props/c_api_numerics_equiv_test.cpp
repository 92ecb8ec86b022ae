// The C API's numerics (include/safespec/numerics.h) against the C++
// reference, bit for bit: the W4A8 linear (the reference w4a8_linear, not the
// fast path the C API runs) and its intermediates on the shared small cases
// and on random layers of every activation dtype, both semantics, with and
// without codebook, correction and bias; every format's dequantization; and
// every code of every codec. `--print-pins` prints the outputs of the shared
// cases, the literals c_api_numerics_test.c pins.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "props/c_api_numerics_cases.h"
#include "spec/number_formats.hpp"
#include "spec/numerics/dequant.hpp"
#include "spec/numerics/w4a8_reference.hpp"
#include "src/parse/layer_io.hpp"
#include "src/commands/linear.hpp"
#include "props/expect.hpp"

namespace {

using namespace safespec;
using numerics::FloatType;


// The descriptor read independently of the C API's own reader (the code under test).
std::vector<float> values_of(const safespec_tensor& t) {
  const auto* b = static_cast<const std::uint8_t*>(t.data);
  std::vector<float> out;
  if (t.dtype == SAFESPEC_DTYPE_F32) {
    out.resize(t.size_bytes / 4);
    std::memcpy(out.data(), b, t.size_bytes);
  } else if (t.dtype == SAFESPEC_DTYPE_BF16 || t.dtype == SAFESPEC_DTYPE_F16) {
    out.resize(t.size_bytes / 2);
    const auto ft = t.dtype == SAFESPEC_DTYPE_BF16 ? FloatType::BF16 : FloatType::F16;
    out = decode_floats(ft, std::span(b, t.size_bytes));
  } else {
    for (std::size_t i = 0; i < t.size_bytes; ++i) out.push_back(num::decode_e4m3fn(b[i]));
  }
  return out;
}

FloatType float_type(safespec_dtype d) {
  return d == SAFESPEC_DTYPE_F32 ? FloatType::F32 : d == SAFESPEC_DTYPE_F16 ? FloatType::F16 : FloatType::BF16;
}

numerics::W4a8Layer reference_layer(const safespec_w4a8_layer& d) {
  numerics::W4a8Layer l;
  l.n = d.weight.shape[0];
  l.k = 2 * d.weight.shape[1];
  l.group_size = d.group_size;
  l.convrot_groupsize = d.convrot_groupsize;
  const auto* w = static_cast<const std::uint8_t*>(d.weight.data);
  l.weight.assign(w, w + d.weight.size_bytes);
  l.s_rel = values_of(d.s_rel);
  l.s_channel = values_of(d.s_channel);
  if (d.codebook.data) {
    std::array<float, 16> cb{};
    const std::vector<float> v = values_of(d.codebook);
    std::copy_n(v.begin(), 16, cb.begin());
    l.codebook = cb;
  }
  if (d.correction.data) l.correction = values_of(d.correction);
  if (d.bias.data) l.bias = values_of(d.bias);
  return l;
}

// One C API call against the reference; returns y's bytes (for the pins).
std::vector<std::uint8_t> check_linear(const std::string& name, const safespec_w4a8_layer& d, const safespec_tensor& x,
                                       const safespec_w4a8_options& o) {
  const numerics::W4a8Layer l = reference_layer(d);
  const numerics::Activations a{x.shape[0], float_type(x.dtype), values_of(x)};
  numerics::W4a8Options ro;
  ro.semantics = o.semantics == SAFESPEC_SEMANTICS_EAGER ? numerics::Semantics::Eager : numerics::Semantics::Cuda;
  ro.cuda_any_block_size = o.cuda_any_block_size != 0;
  ro.record_trace = true;
  auto want = numerics::w4a8_linear(l, a, ro);
  EXPECT(want.ok(), name + ": the reference computes");
  if (!want) return {};
  const std::vector<std::uint8_t> y_want = encode_floats(want.value().out_dtype, want.value().y);
  std::vector<std::uint8_t> y(y_want.size());
  safespec_buffer out{y.data(), y.size(), x.dtype};
  safespec_tensors* trace = nullptr;
  safespec_error err;
  const safespec_status s = safespec_w4a8_linear(&d, &x, &o, &out, &trace, &err);
  EXPECT(s == SAFESPEC_OK, name + ": " + err.message);
  if (s != SAFESPEC_OK) return {};
  EXPECT(y == y_want, name + ": y bit for bit");
  auto dump = w4a8_dump_tensors(l, a, want.value(), ro.semantics);
  std::size_t count = 0;
  safespec_tensors_count(trace, &count);
  EXPECT(dump.ok() && count == dump.value().size(), name + ": the --dump tensors");
  for (std::size_t i = 0; dump.ok() && i < count && i < dump.value().size(); ++i) {
    safespec_tensor_view v;
    safespec_tensors_get(trace, i, &v);
    const NamedTensor& t = dump.value()[i];
    const bool same = v.name == t.name && v.dtype == static_cast<int>(t.dtype) && v.rank == t.shape.size() &&
                      v.size_bytes == t.bytes.size() && std::memcmp(v.data, t.bytes.data(), v.size_bytes) == 0;
    EXPECT(same, name + ": intermediate " + t.name);
  }
  safespec_tensors_free(trace);
  return y;
}

std::mt19937_64 rng(20240613);
std::uint64_t pick(std::uint64_t lo, std::uint64_t hi) { return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng); }
float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); }

// Buffers that outlive the descriptors pointing at them.
struct RandomLayer {
  std::vector<std::uint8_t> weight, s_rel_codes, x, correction, bias;
  std::vector<float> s_channel, codebook;
  safespec_w4a8_layer d{};
  safespec_tensor xt{};
};

safespec_tensor tensor(const void* p, std::size_t bytes, safespec_dtype dt, std::initializer_list<std::uint64_t> shape) {
  safespec_tensor t{};
  t.data = p;
  t.size_bytes = bytes;
  t.dtype = dt;
  t.rank = static_cast<std::uint32_t>(shape.size());
  std::copy(shape.begin(), shape.end(), t.shape);
  return t;
}

std::vector<std::uint8_t> random_values(FloatType t, std::size_t n, float lo, float hi) {
  std::vector<float> v(n);
  for (float& f : v) f = numerics::round_to(t, uniform(lo, hi));
  return encode_floats(t, v);
}

void random_layer(RandomLayer& r, safespec_dtype xd, bool cuda) {
  const FloatType t = float_type(xd);
  const std::uint64_t c = cuda ? 256 : std::uint64_t{4} << (2 * pick(0, 1));  // 4 or 16
  const std::uint64_t k = cuda ? 256 * pick(1, 2) : 16 * pick(1, 4);
  const std::uint64_t g = std::uint64_t{4} << pick(0, 2);                     // 4, 8, 16
  const std::uint64_t n = pick(1, 5), m = pick(1, 3), groups = k / g;
  r.weight.resize(n * k / 2);
  for (auto& b : r.weight) b = static_cast<std::uint8_t>(pick(0, 255));
  r.s_rel_codes.resize(n * groups);
  for (auto& b : r.s_rel_codes) b = static_cast<std::uint8_t>(pick(0x28, 0x40));
  r.s_channel.resize(n);
  for (float& f : r.s_channel) f = uniform(0.001f, 0.05f);
  r.x = random_values(t, m * k, -4.0f, 4.0f);
  const std::size_t item = xd == SAFESPEC_DTYPE_F32 ? 4 : 2;
  r.d = {};
  r.d.weight = tensor(r.weight.data(), r.weight.size(), SAFESPEC_DTYPE_U8, {n, k / 2});
  r.d.s_rel = tensor(r.s_rel_codes.data(), r.s_rel_codes.size(), SAFESPEC_DTYPE_F8_E4M3, {n, groups});
  r.d.s_channel = tensor(r.s_channel.data(), 4 * n, SAFESPEC_DTYPE_F32, {n});
  if (pick(0, 1)) {
    r.codebook.resize(16);
    for (std::size_t i = 0; i < 16; ++i) r.codebook[i] = static_cast<float>(i) - 8.0f + uniform(-0.4f, 0.4f);
    r.d.codebook = tensor(r.codebook.data(), 64, SAFESPEC_DTYPE_F32, {16});
  }
  if (pick(0, 1)) {
    r.correction = random_values(t, groups * n, -0.01f, 0.01f);
    r.d.correction = tensor(r.correction.data(), r.correction.size(), xd, {groups, n});
  }
  if (pick(0, 1)) {
    r.bias = random_values(t, n, -1.0f, 1.0f);
    r.d.bias = tensor(r.bias.data(), r.bias.size(), xd, {n});
  }
  r.d.group_size = g;
  r.d.convrot_groupsize = c;
  r.xt = tensor(r.x.data(), m * k * item, xd, {m, k});
}

void linear_cases(bool print) {
  safespec_w4a8_options eager, cuda;
  safespec_w4a8_options_init(&eager);
  safespec_w4a8_options_init(&cuda);
  eager.semantics = SAFESPEC_SEMANTICS_EAGER;
  safespec_w4a8_layer l;
  safespec_tensor x;
  case_a a;
  case_a_fill(&a, &l, &x);
  const auto ya = check_linear("case A", l, x, eager);
  case_b b;
  case_b_fill(&b, &l, &x);
  const auto yb = check_linear("case B", l, x, cuda);
  case_c c;
  case_c_fill(&c, &l, &x);
  const auto yc = check_linear("case C", l, x, eager);
  if (print)
    for (const auto* y : {&ya, &yb, &yc}) {
      for (std::uint8_t byte : *y) std::printf("0x%02x, ", byte);
      std::printf("\n");
    }
  for (int i = 0; i < 120; ++i) {
    const safespec_dtype xd = i % 3 == 0 ? SAFESPEC_DTYPE_F32 : i % 3 == 1 ? SAFESPEC_DTYPE_BF16 : SAFESPEC_DTYPE_F16;
    const bool use_cuda = i % 2 == 0;
    RandomLayer r;
    random_layer(r, xd, use_cuda);
    check_linear("random layer " + std::to_string(i), r.d, r.xt, use_cuda ? cuda : eager);
  }
}

// A C API dequantization into `dt` against the reference's values rounded the same way.
template <class Call>
void check_dequant(const std::string& name, const Result<deq::Mat<float>>& want, safespec_dtype dt, Call call) {
  EXPECT(want.ok(), name + ": the reference computes");
  if (!want) return;
  const std::vector<std::uint8_t> bytes = encode_floats(float_type(dt), want.value().v);
  std::vector<std::uint8_t> got(bytes.size());
  safespec_buffer out{got.data(), got.size(), dt};
  safespec_error err;
  const safespec_status s = call(&out, &err);
  EXPECT(s == SAFESPEC_OK, name + ": " + err.message);
  EXPECT(got == bytes, name + ": bit for bit");
}

std::vector<std::uint8_t> random_bytes(std::size_t n, unsigned lo = 0, unsigned hi = 255) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(pick(lo, hi));
  return v;
}

void dequant_cases() {
  for (safespec_dtype dt : {SAFESPEC_DTYPE_F32, SAFESPEC_DTYPE_BF16, SAFESPEC_DTYPE_F16}) {
    const Dtype t = static_cast<Dtype>(dt);
    const std::string in = std::string(" into ") + safespec_dtype_name(dt);
    const float scale = 0.375f;
    const safespec_tensor st = tensor(&scale, 4, SAFESPEC_DTYPE_F32, {});
    for (deq::Fp8 kind : {deq::Fp8::E4M3, deq::Fp8::E5M2}) {
      const auto codes = random_bytes(6 * 32, 0, 0x7B);  // finite codes of both formats
      const safespec_tensor ct = tensor(codes.data(), codes.size(),
                                        kind == deq::Fp8::E4M3 ? SAFESPEC_DTYPE_F8_E4M3 : SAFESPEC_DTYPE_F8_E5M2, {6, 32});
      check_dequant("fp8" + in, deq::dequant_fp8({kind, deq::Mat<std::uint8_t>(6, 32, codes), scale}, t), dt,
                    [&](safespec_buffer* o, safespec_error* e) { return safespec_dequant_fp8(&ct, &st, o, e); });
    }
    for (std::uint64_t conv : {0, 16}) {
      const auto q = random_bytes(4 * 32, 0x81, 0x17F);  // -127..127 as bytes
      std::vector<std::int8_t> qi(q.size());
      std::memcpy(qi.data(), q.data(), q.size());
      const std::vector<float> rows{0.01f, 0.02f, 0.03f, 0.04f};
      const safespec_tensor qt = tensor(q.data(), q.size(), SAFESPEC_DTYPE_I8, {4, 32});
      const safespec_tensor rt = tensor(rows.data(), 16, SAFESPEC_DTYPE_F32, {4, 1});
      check_dequant("int8" + in, deq::dequant_int8({deq::Mat<std::int8_t>(4, 32, qi), rows, conv}, t), dt,
                    [&](safespec_buffer* o, safespec_error* e) { return safespec_dequant_int8(&qt, &rt, conv, o, e); });
    }
    {
      const auto packed = random_bytes(3 * 16);
      const std::vector<float> s{0.5f, 0.25f, 0.125f};
      const safespec_tensor pt = tensor(packed.data(), packed.size(), SAFESPEC_DTYPE_U8, {3, 16});
      const safespec_tensor sv = tensor(s.data(), 12, SAFESPEC_DTYPE_F32, {3});
      check_dequant("convrot_w4a4" + in, deq::dequant_convrot_w4a4({deq::Mat<std::uint8_t>(3, 16, packed), s, 16}, t), dt,
                    [&](safespec_buffer* o, safespec_error* e) { return safespec_dequant_convrot_w4a4(&pt, &sv, 16, o, e); });
    }
    {
      const auto packed = random_bytes(16 * 16), bs = random_bytes(128 * 4, 0x20, 0x40);
      const float g = 0.5f;
      const safespec_tensor pt = tensor(packed.data(), packed.size(), SAFESPEC_DTYPE_U8, {16, 16});
      const safespec_tensor bt = tensor(bs.data(), bs.size(), SAFESPEC_DTYPE_F8_E4M3, {128, 4});
      const safespec_tensor gt = tensor(&g, 4, SAFESPEC_DTYPE_F32, {});
      const deq::Nvfp4Weight w{deq::Mat<std::uint8_t>(16, 16, packed), deq::Mat<std::uint8_t>(128, 4, bs), g, 13, 30};
      check_dequant("nvfp4" + in, deq::dequant_nvfp4(w, t), dt,
                    [&](safespec_buffer* o, safespec_error* e) { return safespec_dequant_nvfp4(&pt, &bt, &gt, 13, 30, o, e); });
    }
    for (safespec_e8m0 sem : {SAFESPEC_E8M0_KITCHEN, SAFESPEC_E8M0_OCP}) {
      const auto codes = random_bytes(4 * 64, 0, 0x7E), bs = random_bytes(128 * 4, 118, 136);
      const safespec_tensor ct = tensor(codes.data(), codes.size(), SAFESPEC_DTYPE_F8_E4M3, {4, 64});
      const safespec_tensor bt = tensor(bs.data(), bs.size(), SAFESPEC_DTYPE_U8, {128, 4});
      const deq::Mxfp8Weight w{deq::Mat<std::uint8_t>(4, 64, codes), deq::Mat<std::uint8_t>(128, 4, bs), 4, 64,
                               sem == SAFESPEC_E8M0_OCP ? num::E8M0::Ocp : num::E8M0::Kitchen};
      check_dequant("mxfp8" + in, deq::dequant_mxfp8(w, t), dt,
                    [&](safespec_buffer* o, safespec_error* e) { return safespec_dequant_mxfp8(&ct, &bt, 0, 0, sem, o, e); });
    }
  }
  {  // awq computes in its scale dtype S = F16
    const auto packed = random_bytes(5 * 64);
    const auto scale = random_values(FloatType::F16, 2 * 5, 0.01f, 0.1f), zeros = random_values(FloatType::F16, 2 * 5, -1, 1);
    const safespec_tensor pt = tensor(packed.data(), packed.size(), SAFESPEC_DTYPE_U8, {5, 64});
    const safespec_tensor st = tensor(scale.data(), scale.size(), SAFESPEC_DTYPE_F16, {2, 5});
    const safespec_tensor zt = tensor(zeros.data(), zeros.size(), SAFESPEC_DTYPE_F16, {2, 5});
    const deq::AwqWeight w{deq::Mat<std::uint8_t>(5, 64, packed), deq::Mat<float>(2, 5, decode_floats(FloatType::F16, scale)),
                           deq::Mat<float>(2, 5, decode_floats(FloatType::F16, zeros)), 64, Dtype::F16};
    for (safespec_dtype dt : {SAFESPEC_DTYPE_F16, SAFESPEC_DTYPE_F32})
      check_dequant(std::string("awq into ") + safespec_dtype_name(dt), deq::dequant_awq_w4a16(w), dt,
                    [&](safespec_buffer* o, safespec_error* e) { return safespec_dequant_awq(&pt, &st, &zt, 64, o, e); });
  }
  for (int i = 0; i < 10; ++i) {
    RandomLayer r;
    random_layer(r, SAFESPEC_DTYPE_F32, false);
    check_dequant("w4a8 " + std::to_string(i), w4a8_dequant_f32(reference_layer(r.d)), SAFESPEC_DTYPE_F32,
                  [&](safespec_buffer* o, safespec_error* e) { return safespec_dequant_w4a8(&r.d, o, e); });
  }
}

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

void codec_cases() {
  std::vector<std::uint8_t> codes(256);
  for (int i = 0; i < 256; ++i) codes[i] = static_cast<std::uint8_t>(i);
  std::vector<float> got(65536);
  auto decoded = [&](safespec_codec c, int i) {
    switch (c) {
      case SAFESPEC_CODEC_E4M3FN: return num::decode_e4m3fn(codes[i]);
      case SAFESPEC_CODEC_E5M2: return num::decode_e5m2(codes[i]);
      case SAFESPEC_CODEC_E8M0_KITCHEN: return num::decode_e8m0(codes[i], num::E8M0::Kitchen);
      case SAFESPEC_CODEC_E8M0_OCP: return num::decode_e8m0(codes[i], num::E8M0::Ocp);
      default: return num::decode_e2m1(codes[i]);
    }
  };
  for (safespec_codec c : {SAFESPEC_CODEC_E4M3FN, SAFESPEC_CODEC_E5M2, SAFESPEC_CODEC_E8M0_KITCHEN, SAFESPEC_CODEC_E8M0_OCP,
                           SAFESPEC_CODEC_E2M1}) {
    EXPECT(safespec_decode(c, codes.data(), 256, got.data(), nullptr) == SAFESPEC_OK, "decode");
    for (int i = 0; i < 256; ++i) EXPECT(bits(got[i]) == bits(decoded(c, i)), "code " + std::to_string(i));
  }
  std::vector<std::uint16_t> halves(65536);
  for (int i = 0; i < 65536; ++i) halves[i] = static_cast<std::uint16_t>(i);
  for (safespec_codec c : {SAFESPEC_CODEC_BF16, SAFESPEC_CODEC_F16}) {
    EXPECT(safespec_decode(c, halves.data(), 65536, got.data(), nullptr) == SAFESPEC_OK, "decode 16-bit");
    int wrong = 0;
    for (int i = 0; i < 65536; ++i)
      wrong += bits(got[i]) != bits(c == SAFESPEC_CODEC_BF16 ? num::bf16_to_f32(halves[i]) : num::f16_to_f32(halves[i]));
    EXPECT(wrong == 0, std::to_string(wrong) + " patterns differ");
    std::vector<float> values(4096);
    for (float& v : values) v = std::ldexp(uniform(-1, 1), static_cast<int>(pick(0, 60)) - 30);
    std::vector<std::uint16_t> enc(values.size());
    EXPECT(safespec_encode(c, values.data(), values.size(), enc.data(), nullptr) == SAFESPEC_OK, "encode 16-bit");
    for (std::size_t i = 0; i < values.size(); ++i)
      wrong += enc[i] != (c == SAFESPEC_CODEC_BF16 ? num::f32_to_bf16(values[i]) : num::f32_to_f16(values[i]));
    EXPECT(wrong == 0, std::to_string(wrong) + " encodings differ");
  }
  std::vector<float> values(4096);
  for (float& v : values) v = uniform(-500, 500) / static_cast<float>(pick(1, 64));
  std::vector<std::uint8_t> enc(values.size());
  EXPECT(safespec_encode(SAFESPEC_CODEC_E4M3FN, values.data(), values.size(), enc.data(), nullptr) == SAFESPEC_OK, "e4m3");
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT(enc[i] == num::f32_to_e4m3fn(values[i]), "e4m3 encode");
  EXPECT(safespec_encode(SAFESPEC_CODEC_E2M1, values.data(), values.size(), enc.data(), nullptr) == SAFESPEC_OK, "e2m1");
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT(enc[i] == num::f32_to_e2m1(values[i]), "e2m1 encode");
}

}  // namespace

int main(int argc, char** argv) {
  const bool print = argc > 1 && std::strcmp(argv[1], "--print-pins") == 0;
  linear_cases(print);
  dequant_cases();
  codec_cases();
  if (failures == 0) std::printf("c_api numerics: every output equals the C++ reference\n");
  return failures == 0 ? 0 : 1;
}
