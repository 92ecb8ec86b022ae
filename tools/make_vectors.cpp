// make_vectors DIR: writes the golden vectors into DIR, one directory per
// layer: layer.safetensors (the marked layer "lin"), x.safetensors (x [M, K])
// and the reference's outputs, with index.txt, one line per vector. Each
// vector is src/commands/vectors.hpp's, as `safespec vectors` writes one.
// - W4A8 (asym_w4a8_int8, 4-bit; seed 1000 + i): y_eager.safetensors and,
//   for C = 256 (the only size the CUDA kernel has), y_cuda.safetensors
//   (y [M, N] in x's dtype), computed by spec/numerics/w4a8_reference.hpp
//   with its default options.
// - W6A8 (the same format at 6 bits, named w6_*; seed 2000 + i): likewise.
// - svdquant_w4a4 (named svd_*; seed 3000 + i): y_eager.safetensors only,
//   F32 whatever x's dtype (deq::linear_svdquant_w4a4, one semantics), in the
//   natural and the tile-packed layout; one pair shares its seed and shapes
//   and so its y.
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

// W6A8: G in {16, 32, 64} (6-bit storage needs G a multiple of 16) with
// each C, T cycling so that each G meets each T, and a bias on every other one; no codebook or correction
// (6-bit codes are uniform). C = 256 again gives cuda outputs.
std::vector<Spec> six_bit_specs() {
  const FloatType ts[] = {FloatType::F32, FloatType::BF16, FloatType::F16};
  std::vector<Spec> out;
  std::size_t j = 0;
  for (std::size_t c : {16, 64, 256})
    for (std::size_t g : {16, 32, 64}) {
      out.push_back({g, c, ts[(j + j / 3) % 3], false, false, j % 2 == 1});
      ++j;
    }
  return out;
}

bool write_one(const std::filesystem::path& dir, const std::string& name, const VectorSpec& v, std::string& line) {
  auto written = write_vector(dir / name, v);
  if (!written) {
    std::fprintf(stderr, "make_vectors: %s: %s\n", name.c_str(), written.error().c_str());
    return false;
  }
  line += " outputs:";
  for (const std::string& o : written.value().outputs) line += " " + o;
  line += "\n";
  return true;
}

bool make(const std::filesystem::path& dir, const Spec& s, std::uint64_t seed, std::string& index, std::size_t bits = 4) {
  const std::size_t M = 3, N = 8, K = s.c == 256 ? 256 : 64;
  VectorSpec v;
  v.m = M, v.n = N, v.k = K, v.group_size = s.g, v.convrot_groupsize = s.c, v.dtype = s.t;
  v.codebook = s.codebook, v.correction = s.correction, v.bias = s.bias;
  v.zero_last_row = seed % 3 == 0;
  v.seed = seed;
  v.bits = bits;
  const std::string name = (bits == 6 ? "w6_" : "") + name_of(s);
  std::string line = name + ": T=" + std::string(numerics::name(s.t)) + " G=" + std::to_string(s.g) +
                     " C=" + std::to_string(s.c) + " M=" + std::to_string(M) + " K=" + std::to_string(K) +
                     " N=" + std::to_string(N) + (bits == 6 ? " bits=6" : "") + " codebook=" + (s.codebook ? "yes" : "no") +
                     " correction=" + (s.correction ? "yes" : "no") + " bias=" + (s.bias ? "yes" : "no");
  if (!write_one(dir, name, v, line)) return false;
  index += line;
  return true;
}

struct SvdSpec {
  bool tile;
  std::size_t n, k, rank;
  FloatType t;
  bool bias;
  std::uint64_t seed;
};

// Natural and tile-packed shapes (N a multiple of 128 for the tiles), ranks
// 1 to 16 and each T; svd_natural_n128_k128_r4_f16_bias and its svd_tile_
// twin share seed 3002, so the same layer stored both ways gives one y.
std::vector<SvdSpec> svdquant_specs() {
  return {{false, 8, 64, 4, FloatType::F32, false, 3000},   {false, 24, 128, 8, FloatType::BF16, true, 3001},
          {false, 128, 128, 4, FloatType::F16, true, 3002}, {true, 128, 128, 4, FloatType::F16, true, 3002},
          {true, 256, 64, 16, FloatType::BF16, false, 3004}, {true, 128, 192, 1, FloatType::F32, false, 3005}};
}

bool make_svdquant(const std::filesystem::path& dir, const SvdSpec& s, std::string& index) {
  VectorSpec v;
  v.format = VectorFormat::Svdquant;
  v.m = 3, v.n = s.n, v.k = s.k, v.rank = s.rank, v.dtype = s.t, v.bias = s.bias, v.tile_packed = s.tile;
  v.seed = s.seed;
  const std::string name = std::string(s.tile ? "svd_tile" : "svd_natural") + "_n" + std::to_string(s.n) + "_k" +
                           std::to_string(s.k) + "_r" + std::to_string(s.rank) + "_" + lower(s.t) + (s.bias ? "_bias" : "_plain");
  std::string line = name + ": svdquant_w4a4 layout=" + (s.tile ? "tile_packed" : "natural") +
                     " T=" + std::string(numerics::name(s.t)) + " M=3 K=" + std::to_string(s.k) + " N=" + std::to_string(s.n) +
                     " R=" + std::to_string(s.rank) + " bias=" + (s.bias ? "yes" : "no") + " seed=" + std::to_string(s.seed);
  if (!write_one(dir, name, v, line)) return false;
  index += line;
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
      "# Golden vectors (tools/make_vectors.cpp): asym_w4a8_int8 at 4 bits (W4A8, g*), at 6 bits (W6A8, w6_*), and\n"
      "# svdquant_w4a4 (svd_*, natural and tile-packed). Layer prefix \"lin\"; x in x.safetensors (tensor \"x\");\n"
      "# y_eager / y_cuda: tensor \"y\" from `safespec linear --semantics eager|cuda` with default options.\n"
      "# W4A8/W6A8: y in x's dtype, y_cuda only for C = 256. svdquant_w4a4: y_eager only, F32 (the reference's one\n"
      "# semantics, which `linear` runs whatever --semantics says; no CUDA kernel is expected to match it bit for bit).\n";
  const std::vector<Spec> all = specs();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (!make(dir, all[i], 1000 + i, index)) return 1;
  const std::vector<Spec> six = six_bit_specs();
  for (std::size_t i = 0; i < six.size(); ++i)
    if (!make(dir, six[i], 2000 + i, index, 6)) return 1;
  for (const SvdSpec& s : svdquant_specs())
    if (!make_svdquant(dir, s, index)) return 1;
  FILE* f = std::fopen((dir / "index.txt").string().c_str(), "wb");
  if (!f) return 1;
  std::fwrite(index.data(), 1, index.size(), f);
  return std::fclose(f) == 0 ? 0 : 1;
}
