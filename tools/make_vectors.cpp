// make_vectors DIR: writes the W4A8 golden vectors into DIR, one
// directory per layer: layer.safetensors (the marked layer "lin"),
// x.safetensors (x [M, K]), y_eager.safetensors and, for C = 256 (the only
// size the CUDA kernel has), y_cuda.safetensors (y [M, N] in x's dtype), all
// computed by the reference (spec/numerics/w4a8_reference.hpp) with its
// default options; and index.txt, one line per vector. Each vector is
// src/commands/vectors.hpp's, as `safespec vectors` writes one, with seed 1000 + i.
// CTest regenerates and diffs.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "spec/numerics/float_type.hpp"
#include "src/commands/vectors.hpp"

using namespace safespec;
using numerics::FloatType;

namespace {

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

bool make(const std::filesystem::path& dir, const Spec& s, std::uint64_t seed, std::string& index) {
  const std::size_t M = 3, N = 8, K = s.c == 256 ? 256 : 64;
  VectorSpec v;
  v.m = M, v.n = N, v.k = K, v.group_size = s.g, v.convrot_groupsize = s.c, v.dtype = s.t;
  v.codebook = s.codebook, v.correction = s.correction, v.bias = s.bias;
  v.zero_last_row = seed % 3 == 0;
  v.seed = seed;
  const std::string name = name_of(s);
  auto written = write_vector(dir / name, v);
  if (!written) {
    std::fprintf(stderr, "make_vectors: %s: %s\n", name.c_str(), written.error().c_str());
    return false;
  }
  std::string outputs;
  for (const std::string& o : written.value().outputs) outputs += " " + o;
  index += name + ": T=" + std::string(numerics::name(s.t)) + " G=" + std::to_string(s.g) + " C=" + std::to_string(s.c) +
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
