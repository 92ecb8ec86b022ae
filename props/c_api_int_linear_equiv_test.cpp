// The C API's int8_tensorwise and convrot_w4a4 linears (safespec_int8_linear,
// safespec_w4a4_linear) held to two independent answers, bit for bit:
//  - the C++ reference (spec/numerics/int_linear.hpp) on the shared cases and
//    on random layers of every x dtype, both semantics and, for W4A4, both
//    linear_dtypes, with and without ConvRot, bias and rowwise scales, every
//    storage dtype the C API takes; y and every intermediate; and W4A4's
//    int32 bound, which follows the path the backend takes;
//  - the `safespec` command itself: the same layers written as checkpoints
//    and run through `safespec linear --dump`, whose y and dump files must be
//    the very files the C API's y and intermediates make; and a layer both
//    refuse, refused by both under the same rule id.
// Usage: c_api_int_linear_equiv_test SAFESPEC SCRATCH_DIR, or --print-pins
// (the outputs of cases D and E that c_api_numerics_test.c pins).
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "props/c_api_numerics_cases.h"
#include "spec/numerics/int_linear.hpp"
#include "spec/numerics/w4a8_reference.hpp"
#include "src/parse/layer_io.hpp"
#include "src/commands/linear.hpp"
#include "props/expect.hpp"

namespace {

using namespace safespec;
using numerics::FloatType;
namespace fs = std::filesystem;


std::mt19937_64 rng(20240722);
std::uint64_t pick(std::uint64_t lo, std::uint64_t hi) { return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng); }
float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); }

FloatType float_type(Dtype d) { return d == Dtype::F32 ? FloatType::F32 : d == Dtype::F16 ? FloatType::F16 : FloatType::BF16; }

// The descriptor's values, read here rather than by the C API's own reader.
std::vector<float> values_of(const safespec_tensor& t) {
  return decode_floats(float_type(static_cast<Dtype>(t.dtype)),
                       std::span(static_cast<const std::uint8_t*>(t.data), t.size_bytes));
}

safespec_tensor tensor(const void* p, std::size_t bytes, Dtype dt, std::initializer_list<std::uint64_t> shape) {
  safespec_tensor t{};
  t.data = p;
  t.size_bytes = bytes;
  t.dtype = static_cast<safespec_dtype>(dt);
  t.rank = static_cast<std::uint32_t>(shape.size());
  std::copy(shape.begin(), shape.end(), t.shape);
  return t;
}

std::vector<std::uint8_t> random_values(Dtype t, std::size_t n, float lo, float hi) {
  std::vector<float> v(n);
  for (float& f : v) f = numerics::round_to(float_type(t), uniform(lo, hi));
  return encode_floats(float_type(t), v);
}

Dtype random_float_dtype() { return std::array{Dtype::F32, Dtype::BF16, Dtype::F16}[pick(0, 2)]; }

template <class V>
std::vector<std::uint8_t> le(const std::vector<V>& v) {
  std::vector<std::uint8_t> out;
  for (V x : v)
    for (std::size_t b = 0; b < sizeof(V); ++b)
      out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(x) >> (8 * b)));
  return out;
}

// The reference's trace as `linear --dump` names it (docs/spec/numerics.md).
std::vector<NamedTensor> expected_dump(const deq::LinearTrace& tr, Dtype t) {
  return {{"rotated", t, {tr.xr.rows, tr.xr.cols}, encode_floats(float_type(t), tr.xr.v)},
          {"xs", Dtype::F32, {tr.xr.rows}, encode_floats(FloatType::F32, tr.x_scale)},
          {"xq", Dtype::I8, {tr.xq.rows, tr.xq.cols}, le(tr.xq.v)},
          {"acc", Dtype::I64, {tr.acc.rows, tr.acc.cols}, le(tr.acc.v)},
          {"y", t, {tr.y.rows, tr.y.cols}, encode_floats(float_type(t), tr.y.v)}};
}

// One layer of either format: its buffers, its C descriptor, the reference
// call that defines its output, and its comfy_quant marker for the command.
struct Layer {
  bool w4a4 = false;
  std::vector<std::uint8_t> weight, scale, bias, x;
  safespec_int8_layer i8{};
  safespec_w4a4_layer w4{};
  safespec_tensor xt{};
  std::string marker;
};

const safespec_tensor& weight_of(const Layer& l) { return l.w4a4 ? l.w4.weight : l.i8.weight; }
const safespec_tensor& scale_of(const Layer& l) { return l.w4a4 ? l.w4.weight_scale : l.i8.weight_scale; }
const safespec_tensor& bias_of(const Layer& l) { return l.w4a4 ? l.w4.bias : l.i8.bias; }

Result<deq::LinearTrace> reference(const Layer& l, safespec_semantics sem) {
  const Dtype t = static_cast<Dtype>(l.xt.dtype);
  std::optional<std::vector<float>> bias;
  if (bias_of(l).data) bias = values_of(bias_of(l));
  const deq::LinearInput in{deq::Mat<float>(l.xt.shape[0], l.xt.shape[1], values_of(l.xt)), t, bias, deq::Device::Gpu};
  const safespec_tensor& w = weight_of(l);
  const auto* b = static_cast<const std::uint8_t*>(w.data);
  if (!l.w4a4) {
    std::vector<std::int8_t> q(b, b + w.size_bytes);
    const deq::Int8Weight wi{deq::Mat<std::int8_t>(w.shape[0], w.shape[1], q), values_of(scale_of(l)),
                             l.i8.convrot_groupsize};
    return deq::int8_linear(in, wi);
  }
  const deq::W4a4Weight ww{deq::Mat<std::uint8_t>(w.shape[0], w.shape[1], std::vector<std::uint8_t>(b, b + w.size_bytes)),
                           values_of(scale_of(l)), l.w4.convrot_groupsize};
  return deq::convrot_w4a4_linear(in, ww,
                                  l.w4.linear_dtype == SAFESPEC_W4A4_LINEAR_INT8 ? deq::W4a4LinearDtype::Int8
                                                                                 : deq::W4a4LinearDtype::Int4,
                                  sem == SAFESPEC_SEMANTICS_CUDA ? deq::Backend::Cuda : deq::Backend::Eager);
}

struct Output {
  safespec_status status = SAFESPEC_INTERNAL_ERROR;
  std::vector<std::uint8_t> y;
  std::vector<NamedTensor> trace;
  safespec_error err{};
};

Output call(const Layer& l, safespec_semantics sem, std::size_t y_bytes) {
  Output o;
  o.y.resize(y_bytes);
  safespec_buffer out{o.y.data(), o.y.size(), l.xt.dtype};
  safespec_tensors* trace = nullptr;
  o.status = l.w4a4 ? safespec_w4a4_linear(&l.w4, &l.xt, sem, &out, &trace, &o.err)
                    : safespec_int8_linear(&l.i8, &l.xt, sem, &out, &trace, &o.err);
  std::size_t n = 0;
  safespec_tensors_count(trace, &n);
  for (std::size_t i = 0; i < n; ++i) {
    safespec_tensor_view v;
    safespec_tensors_get(trace, i, &v);
    const auto* d = static_cast<const std::uint8_t*>(v.data);
    o.trace.push_back({v.name, static_cast<Dtype>(v.dtype), std::vector<std::uint64_t>(v.shape, v.shape + v.rank),
                       std::vector<std::uint8_t>(d, d + v.size_bytes)});
  }
  safespec_tensors_free(trace);
  return o;
}

bool same(const NamedTensor& a, const NamedTensor& b) {
  return a.name == b.name && a.dtype == b.dtype && a.shape == b.shape && a.bytes == b.bytes;
}

// The C API against the reference on one layer; returns y's bytes.
std::vector<std::uint8_t> check_reference(const std::string& name, const Layer& l, safespec_semantics sem) {
  auto want = reference(l, sem);
  EXPECT(want.ok(), name + ": the reference computes");
  if (!want) return {};
  const Dtype t = static_cast<Dtype>(l.xt.dtype);
  const std::vector<NamedTensor> dump = expected_dump(want.value(), t);
  const Output got = call(l, sem, dump.back().bytes.size());
  EXPECT(got.status == SAFESPEC_OK, name + ": " + got.err.message);
  EXPECT(got.y == dump.back().bytes, name + ": y bit for bit");
  EXPECT(got.trace.size() == dump.size(), name + ": five intermediates");
  for (std::size_t i = 0; i < dump.size() && i < got.trace.size(); ++i)
    EXPECT(same(got.trace[i], dump[i]), name + ": intermediate " + dump[i].name);
  return got.y;
}

// A random layer: int8 with C in {0, 16, 64} or W4A4 with C in {16, 64, 256}
// (what every consumer loads, so the command computes it too); for_cli keeps
// to the storage dtypes the checkpoint rules want (I8 weight, F32 scale).
void random_layer(Layer& l, bool w4a4, Dtype xd, safespec_w4a4_linear_dtype ld, bool for_cli) {
  l = Layer{};
  l.w4a4 = w4a4;
  const std::uint64_t c = std::array<std::uint64_t, 3>{w4a4 ? 16u : 0u, 64, w4a4 ? 256u : 16u}[pick(0, 2)];
  const std::uint64_t k = c == 256 ? 256 : 64 * pick(1, 3), n = pick(1, 5), m = pick(1, 3);
  const Dtype wd = for_cli || pick(0, 1) ? Dtype::I8 : Dtype::U8;
  const Dtype sd = for_cli ? Dtype::F32 : random_float_dtype();
  l.weight.resize(w4a4 ? n * k / 2 : n * k);
  for (auto& b : l.weight) b = static_cast<std::uint8_t>(pick(0, 255));
  const bool rowwise = !w4a4 && pick(0, 1);
  l.scale = random_values(sd, w4a4 || rowwise ? n : 1, 0.001f, 0.05f);
  safespec_tensor bias{};
  if (pick(0, 1)) {
    const Dtype bd = random_float_dtype();
    l.bias = random_values(bd, n, -1.0f, 1.0f);
    bias = tensor(l.bias.data(), l.bias.size(), bd, {n});
  }
  l.x = random_values(xd, m * k, -4.0f, 4.0f);
  l.xt = tensor(l.x.data(), l.x.size(), xd, {m, k});
  if (w4a4) {
    l.w4.weight = tensor(l.weight.data(), l.weight.size(), wd, {n, k / 2});
    l.w4.weight_scale = tensor(l.scale.data(), l.scale.size(), sd, {n});
    l.w4.bias = bias;
    l.w4.convrot_groupsize = c;
    l.w4.linear_dtype = ld;
    l.marker = R"({"format": "convrot_w4a4", "convrot_groupsize": )" + std::to_string(c) + R"(, "linear_dtype": ")" +
               (ld == SAFESPEC_W4A4_LINEAR_INT8 ? "int8" : "int4") + "\"}";
  } else {
    l.i8.weight = tensor(l.weight.data(), l.weight.size(), wd, {n, k});
    l.i8.weight_scale = rowwise ? tensor(l.scale.data(), l.scale.size(), sd, {n, 1})
                                : tensor(l.scale.data(), l.scale.size(), sd, {});
    l.i8.bias = bias;
    l.i8.convrot_groupsize = c;
    l.marker = c == 0 ? R"({"format": "int8_tensorwise"})"
                      : R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": )" + std::to_string(c) + "}";
  }
}

const char* sem_name(safespec_semantics s) { return s == SAFESPEC_SEMANTICS_CUDA ? "cuda" : "eager"; }

void reference_cases(bool print) {
  safespec_int8_layer d8;
  safespec_w4a4_layer e4;
  safespec_tensor x;
  case_d d;
  case_d_fill(&d, &d8, &x);
  Layer ld;
  ld.i8 = d8;
  ld.xt = x;
  const auto yd = check_reference("case D", ld, SAFESPEC_SEMANTICS_CUDA);
  EXPECT(check_reference("case D eager", ld, SAFESPEC_SEMANTICS_EAGER) == yd, "int8: the semantics change nothing");
  case_e e;
  case_e_fill(&e, &e4, &x);
  Layer le4;
  le4.w4a4 = true;
  le4.w4 = e4;
  le4.xt = x;
  const auto ye_cuda = check_reference("case E cuda", le4, SAFESPEC_SEMANTICS_CUDA);
  const auto ye_eager = check_reference("case E eager", le4, SAFESPEC_SEMANTICS_EAGER);
  EXPECT(ye_cuda != ye_eager, "case E: cuda runs linear_dtype int8, eager int4");
  if (print)
    for (const auto* y : {&yd, &ye_cuda, &ye_eager}) {
      for (std::uint8_t byte : *y) std::printf("0x%02x, ", byte);
      std::printf("\n");
    }
  int i = 0;
  for (Dtype xd : {Dtype::F32, Dtype::BF16, Dtype::F16})
    for (safespec_semantics sem : {SAFESPEC_SEMANTICS_CUDA, SAFESPEC_SEMANTICS_EAGER})
      for (int rep = 0; rep < 6; ++rep) {
        Layer l;
        random_layer(l, false, xd, SAFESPEC_W4A4_LINEAR_INT4, false);
        check_reference("random int8 layer " + std::to_string(i++) + " " + sem_name(sem), l, sem);
        for (safespec_w4a4_linear_dtype lt : {SAFESPEC_W4A4_LINEAR_INT4, SAFESPEC_W4A4_LINEAR_INT8}) {
          random_layer(l, true, xd, lt, false);
          check_reference("random w4a4 layer " + std::to_string(i++) + " " + sem_name(sem), l, sem);
        }
      }
}

// --- against the command ------------------------------------------------

std::vector<std::uint8_t> file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

NamedTensor named(const std::string& name, const safespec_tensor& t) {
  const auto* d = static_cast<const std::uint8_t*>(t.data);
  return {name, static_cast<Dtype>(t.dtype), std::vector<std::uint64_t>(t.shape, t.shape + t.rank),
          std::vector<std::uint8_t>(d, d + t.size_bytes)};
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

struct Cli {
  std::string exe;
  fs::path dir;
  // The layer as checkpoint p.*, x as x.safetensors; the command's exit status.
  int run(const Layer& l, safespec_semantics sem) const {
    fs::remove_all(dir / "dump");
    std::vector<NamedTensor> layer{{"p.comfy_quant", Dtype::U8, {l.marker.size()}, {l.marker.begin(), l.marker.end()}},
                                   named("p.weight", weight_of(l)), named("p.weight_scale", scale_of(l))};
    if (bias_of(l).data) layer.push_back(named("p.bias", bias_of(l)));
    EXPECT(!write_tensors((dir / "layer.safetensors").string(), layer), "write the layer");
    EXPECT(!write_tensors((dir / "x.safetensors").string(), {named("x", l.xt)}), "write x");
    const std::string cmd = q(exe) + " linear " + q(dir / "layer.safetensors") + " --layer p --input " +
                            q(dir / "x.safetensors") + " --out " + q(dir / "y.safetensors") + " --semantics " +
                            sem_name(sem) + " --dump " + q(dir / "dump") + " 2> " + q(dir / "stderr.txt");
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  // The file the command would write for `t`, written by its own writer.
  std::vector<std::uint8_t> as_file(const NamedTensor& t) const {
    EXPECT(!write_tensors((dir / "mine.safetensors").string(), {t}), "write " + t.name);
    return file_bytes(dir / "mine.safetensors");
  }
};

void cli_agreement(const Cli& cli) {
  int i = 0, runs = 0;
  for (Dtype xd : {Dtype::F32, Dtype::BF16, Dtype::F16})
    for (safespec_semantics sem : {SAFESPEC_SEMANTICS_CUDA, SAFESPEC_SEMANTICS_EAGER})
      for (int format = 0; format < 3; ++format) {  // int8, w4a4 int4, w4a4 int8
        Layer l;
        random_layer(l, format > 0, xd, format == 2 ? SAFESPEC_W4A4_LINEAR_INT8 : SAFESPEC_W4A4_LINEAR_INT4, true);
        const std::string name = "command case " + std::to_string(i++) + " " + l.marker + " " + sem_name(sem) + " " +
                                 std::string(dtype_name(xd));
        const std::uint64_t n = weight_of(l).shape[0], m = l.xt.shape[0];
        const Output got = call(l, sem, m * n * (xd == Dtype::F32 ? 4 : 2));
        EXPECT(got.status == SAFESPEC_OK, name + ": " + got.err.message);
        const int code = cli.run(l, sem);
        ++runs;
        EXPECT(code == 0, name + ": the command exits " + std::to_string(code));
        if (code != 0 || got.status != SAFESPEC_OK) continue;
        const NamedTensor y{"y", xd, {m, n}, got.y};
        EXPECT(file_bytes(cli.dir / "y.safetensors") == cli.as_file(y), name + ": y.safetensors");
        EXPECT(got.trace.size() == 5, name + ": five intermediates");
        for (const NamedTensor& t : got.trace)
          EXPECT(file_bytes(cli.dir / "dump" / (t.name + ".safetensors")) == cli.as_file(t), name + ": dump " + t.name);
        std::size_t dumped = 0;
        for ([[maybe_unused]] const auto& f : fs::directory_iterator(cli.dir / "dump")) ++dumped;
        EXPECT(dumped == got.trace.size(), name + ": the command dumps what the C API hands out");
      }
  // A ConvRot group size of 8 (not a power of 4): both refuse, naming the same rule.
  for (bool w4a4 : {false, true}) {
    Layer l;
    random_layer(l, w4a4, Dtype::F32, SAFESPEC_W4A4_LINEAR_INT4, true);
    const std::string rule = w4a4 ? "CQ-W4A4-GROUPSIZE" : "CQ-INT8-CONVROT-GROUPSIZE";
    (w4a4 ? l.w4.convrot_groupsize : l.i8.convrot_groupsize) = 8;
    l.marker = w4a4 ? R"({"format": "convrot_w4a4", "convrot_groupsize": 8})"
                    : R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 8})";
    const Output got = call(l, SAFESPEC_SEMANTICS_CUDA, weight_of(l).shape[0] * l.xt.shape[0] * 4);
    EXPECT(got.status == SAFESPEC_INVALID_INPUT && got.err.rule == rule, rule + ": the C API says " + got.err.rule);
    EXPECT(cli.run(l, SAFESPEC_SEMANTICS_CUDA) == 1, rule + ": the command refuses it");
    const std::vector<std::uint8_t> err = file_bytes(cli.dir / "stderr.txt");
    EXPECT(std::string(err.begin(), err.end()).find(rule) != std::string::npos, rule + ": the command names it");
  }
  std::printf("%d layers through `safespec linear` equal the C API\n", runs);
}

// W4A4's int32 bound follows the path the backend takes (§6.3): K = 2^21
// is past the int8 path's floor(INT32_MAX / (128 * 8)) = 2097151, so cuda
// with linear_dtype int8 refuses it, but eager runs the int4 path (bound
// 38347922) and computes it, as the reference does.
void k_bound_follows_the_path() {
  constexpr std::uint64_t k = std::uint64_t{1} << 21;
  Layer l;
  l.w4a4 = true;
  l.weight.assign(k / 2, 0x17);
  l.scale = encode_floats(FloatType::F32, std::vector<float>{0.5f});
  l.x = random_values(Dtype::BF16, k, -1.0f, 1.0f);
  l.w4.weight = tensor(l.weight.data(), l.weight.size(), Dtype::U8, {1, k / 2});
  l.w4.weight_scale = tensor(l.scale.data(), 4, Dtype::F32, {1});
  l.w4.convrot_groupsize = 4;  // the cheapest rotation: this layer is 2^21 wide
  l.w4.linear_dtype = SAFESPEC_W4A4_LINEAR_INT8;
  l.xt = tensor(l.x.data(), l.x.size(), Dtype::BF16, {1, k});
  const Output cuda = call(l, SAFESPEC_SEMANTICS_CUDA, 2);
  EXPECT(cuda.status == SAFESPEC_INVALID_INPUT && std::string(cuda.err.rule) == "NUM-K-INT32-OVERFLOW",
         std::string("cuda int8 at K = 2^21: ") + cuda.err.message);
  check_reference("eager at K = 2^21", l, SAFESPEC_SEMANTICS_EAGER);
}

}  // namespace

int main(int argc, char** argv) {
  const bool print = argc > 1 && std::strcmp(argv[1], "--print-pins") == 0;
  if (!print && argc != 3) {
    std::fprintf(stderr, "usage: %s SAFESPEC SCRATCH_DIR | --print-pins\n", argv[0]);
    return 2;
  }
  reference_cases(print);
  if (!print) k_bound_follows_the_path();
  if (!print) {
    const Cli cli{argv[1], argv[2]};
    fs::remove_all(cli.dir);
    fs::create_directories(cli.dir);
    cli_agreement(cli);
  }
  if (failures == 0) std::printf("c_api int linears: every output equals the C++ reference and the command\n");
  return failures == 0 ? 0 : 1;
}
