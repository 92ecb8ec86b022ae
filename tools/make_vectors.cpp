// make_vectors DIR: writes the W4A8 golden vectors into DIR, one
// directory per layer: layer.safetensors (the marked layer "lin"),
// x.safetensors (x [M, K]), y_eager.safetensors and, for C = 256 (the only
// size the CUDA kernel has), y_cuda.safetensors (y [M, N] in x's dtype), all
// computed by the reference (spec/numerics/w4a8_reference.hpp) with its
// default options; and index.txt, one line per vector. Deterministic: every
// value comes from a fixed-seed generator through exact binary32 arithmetic,
// so the bytes are the same on every machine. CTest regenerates and diffs.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "spec/number_formats.hpp"
#include "spec/numerics/w4a8_reference.hpp"
#include "src/layer_io.hpp"
#include "src/linear_command.hpp"

using namespace safespec;
using numerics::FloatType;

namespace {

struct Rng {
  std::uint64_t s;
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // A multiple of 2^-23 in [-1, 1): exact in binary32.
  float symmetric() { return static_cast<float>(static_cast<std::int32_t>(next() >> 40) - (1 << 23)) * 0x1p-23f; }
};

struct Spec {
  std::size_t g, c;
  FloatType t;
  bool codebook, correction, bias;
};

std::string lower(FloatType t) { return t == FloatType::F32 ? "f32" : t == FloatType::BF16 ? "bf16" : "f16"; }

std::string name_of(const Spec& s) {
  std::string n = "g" + std::to_string(s.g) + "_c" + std::to_string(s.c) + "_" + lower(s.t);
  if (s.codebook) n += "_codebook";
  if (s.correction) n += "_correction";
  if (s.bias) n += "_bias";
  if (!s.codebook && !s.correction && !s.bias) n += "_plain";
  return n;
}

// C = 16 and 64 with each G; C = 256 with every codebook/correction/bias
// combination, so the cuda outputs cover all of them; T cycles throughout.
std::vector<Spec> specs() {
  const std::size_t gs[] = {4, 8, 16, 32, 64};
  const FloatType ts[] = {FloatType::F32, FloatType::BF16, FloatType::F16};
  std::vector<Spec> out;
  std::size_t j = 0;
  for (std::size_t c : {16, 64, 256})
    for (std::size_t i = 0; i < (c == 256 ? 8u : 5u); ++i, ++j) {
      const std::size_t flags = j % 8;
      out.push_back({gs[i % 5], c, ts[j % 3], (flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0});
    }
  return out;
}

std::vector<std::uint8_t> f32_bytes(const std::vector<float>& v) { return encode_floats(FloatType::F32, v); }

bool write(const std::filesystem::path& p, const std::vector<NamedTensor>& t) {
  if (auto e = write_tensors(p.string(), t)) {
    std::fprintf(stderr, "make_vectors: %s\n", e->c_str());
    return false;
  }
  return true;
}

bool make(const std::filesystem::path& dir, const Spec& s, std::uint64_t seed, std::string& index) {
  Rng rng{seed};
  const std::size_t M = 3, N = 8, K = s.c == 256 ? 256 : 64, G = s.g;
  numerics::W4a8Layer l;
  l.n = N, l.k = K, l.group_size = G, l.convrot_groupsize = s.c;
  for (std::size_t i = 0; i < N * K / 2; ++i) l.weight.push_back(static_cast<std::uint8_t>(rng.next()));
  std::vector<std::uint8_t> s_rel;  // E4M3 codes 0x30..0x40: 0.5 to 2
  for (std::size_t i = 0; i < N * (K / G); ++i) s_rel.push_back(static_cast<std::uint8_t>(0x30 + rng.next() % 17));
  for (std::uint8_t b : s_rel) l.s_rel.push_back(num::decode_e4m3fn(b));
  // (1 + j/1024) · 2^-7: every operation exact, so no compiler contraction can change it.
  for (std::size_t n = 0; n < N; ++n)
    l.s_channel.push_back((1.0f + static_cast<float>(rng.next() % 1024) * 0x1p-10f) * 0x1p-7f);
  if (s.codebook) {
    std::array<float, 16> cb{};
    for (std::size_t i = 0; i < 16; ++i) {
      const float d = static_cast<float>(i) - 7.5f;
      cb[i] = d * (1.0f + 0.0625f * (d < 0 ? -d : d));  // ascending, denser near 0
    }
    l.codebook = cb;
  }
  if (s.correction) {
    l.correction.emplace();
    for (std::size_t i = 0; i < (K / G) * N; ++i) l.correction->push_back(rng.symmetric() * 0x1p-6f);
  }
  if (s.bias) {
    l.bias.emplace();
    for (std::size_t n = 0; n < N; ++n) l.bias->push_back(numerics::round_to(s.t, rng.symmetric() * 0.5f));
  }
  numerics::Activations x{M, s.t, {}};
  for (std::size_t m = 0; m < M; ++m)
    for (std::size_t k = 0; k < K; ++k)  // rows of different magnitude; the last row all zero every third vector
      x.values.push_back(seed % 3 == 0 && m == M - 1 ? 0.0f
                                                     : numerics::round_to(s.t, rng.symmetric() * static_cast<float>(1u << (2 * m))));

  const std::string marker = "{\"format\": \"asym_w4a8_int8\", \"group_size\": " + std::to_string(G) +
                             ", \"convrot_groupsize\": " + std::to_string(s.c) + ", \"convrot\": true}";
  std::vector<NamedTensor> layer{
      {"lin.comfy_quant", Dtype::U8, {marker.size()}, std::vector<std::uint8_t>(marker.begin(), marker.end())},
      {"lin.weight", Dtype::I8, {N, K / 2}, l.weight},
      {"lin.weight_s_rel", Dtype::F8_E4M3, {N, K / G}, s_rel},
      {"lin.weight_s_channel", Dtype::F32, {N}, f32_bytes(l.s_channel)}};
  if (l.codebook) layer.push_back({"lin.weight_codebook", Dtype::F32, {16}, f32_bytes({l.codebook->begin(), l.codebook->end()})});
  if (l.correction) layer.push_back({"lin.weight_correction", Dtype::F32, {K / G, N}, f32_bytes(*l.correction)});
  if (l.bias) layer.push_back({"lin.bias", dtype_of(s.t), {N}, encode_floats(s.t, *l.bias)});

  const std::string name = name_of(s);
  std::error_code ec;
  std::filesystem::create_directories(dir / name, ec);
  if (ec) return false;
  if (!write(dir / name / "layer.safetensors", layer)) return false;
  if (!write(dir / name / "x.safetensors", {{"x", dtype_of(s.t), {M, K}, encode_floats(s.t, x.values)}})) return false;
  std::string outputs;
  for (auto sem : {numerics::Semantics::Eager, numerics::Semantics::Cuda}) {
    if (sem == numerics::Semantics::Cuda && s.c != 256) continue;
    numerics::W4a8Options o;
    o.semantics = sem;
    auto y = numerics::w4a8_linear(l, x, o);
    if (!y) {
      std::fprintf(stderr, "make_vectors: %s: %s\n", name.c_str(), y.error().message.c_str());
      return false;
    }
    const std::string file = sem == numerics::Semantics::Cuda ? "y_cuda" : "y_eager";
    if (!write(dir / name / (file + ".safetensors"), {{"y", dtype_of(s.t), {M, N}, encode_floats(s.t, y.value().y)}}))
      return false;
    outputs += " " + file;
  }
  index += name + ": T=" + std::string(numerics::name(s.t)) + " G=" + std::to_string(G) + " C=" + std::to_string(s.c) +
           " M=" + std::to_string(M) + " K=" + std::to_string(K) + " N=" + std::to_string(N) +
           " codebook=" + (s.codebook ? "yes" : "no") + " correction=" + (s.correction ? "yes" : "no") +
           " bias=" + (s.bias ? "yes" : "no") + " outputs:" + outputs + "\n";
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_vectors DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::string index =
      "# W4A8 golden vectors (tools/make_vectors.cpp). Layer prefix \"lin\"; x in x.safetensors (tensor \"x\");\n"
      "# y_eager / y_cuda: tensor \"y\" from `safespec linear --semantics eager|cuda` with default options.\n";
  const std::vector<Spec> all = specs();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (!make(dir, all[i], 1000 + i, index)) return 1;
  FILE* f = std::fopen((dir / "index.txt").string().c_str(), "wb");
  if (!f) return 1;
  std::fwrite(index.data(), 1, index.size(), f);
  return std::fclose(f) == 0 ? 0 : 1;
}
