#include "src/commands/vectors.hpp"

#include <array>
#include <system_error>
#include <utility>

#include "spec/number_formats.hpp"
#include "spec/numerics/hadamard.hpp"
#include "spec/numerics/w4a8_reference.hpp"
#include "src/parse/layer_io.hpp"
#include "src/commands/linear.hpp"
#include "src/commands/svdquant_vectors.hpp"
#include "src/commands/vector_values.hpp"
#include "src/io/progress.hpp"

namespace safespec {

namespace fs = std::filesystem;
using numerics::FloatType;

namespace {

using vector_values::float_bytes;
using vector_values::Rng;
using vector_values::text;
using vector_values::too_big;

std::vector<std::uint8_t> f32_bytes(const std::vector<float>& v) { return encode_floats(FloatType::F32, v); }

}  // namespace

std::optional<std::string> vector_spec_error(const VectorSpec& s) {
  if (s.format == VectorFormat::Svdquant) return svdquant_vector_error(s);
  const std::pair<const char*, std::size_t> sizes[] = {{"--m", s.m}, {"--n", s.n}, {"--k", s.k}};
  for (const auto& [name, v] : sizes)
    if (v == 0) return std::string(name) + ": expected at least 1, found 0";
  const std::size_t G = s.group_size, C = s.convrot_groupsize, K = s.k;
  if (G < 4 || !(16 % G == 0 || G % 16 == 0))
    return "--group-size: expected at least 4 and a divisor of 16 or a multiple of 16, found " + text(G);
  if (!numerics::log4_exact(C))
    return "--convrot-groupsize: expected a power of 4 that is at least 4, found " + text(C);
  if (K % 16 != 0 || K % G != 0 || K % C != 0)
    return "--k: expected a multiple of 16, of --group-size (" + text(G) + ") and of --convrot-groupsize (" + text(C) +
           "), found " + text(K);
  if (K > numerics::kW4a8MaxK)
    return "--k: expected at most " + text(numerics::kW4a8MaxK) +
           " (beyond it int32 accumulation can overflow, cuda.7), found " + text(K);
  if (s.bits != 4 && s.bits != 6) return "--bits: expected 4 or 6, found " + text(s.bits);
  if (s.bits == 6) {  // _check_six_bit_layout and validate_w4a8_operands (numerics.md, W6A8)
    if (K % 32 != 0 || G % 16 != 0)
      return "--bits 6: expected --k a multiple of 32 and --group-size a multiple of 16, found K = " + text(K) +
             ", G = " + text(G);
    if (s.codebook || s.correction) return "--bits 6: expected no --codebook or --correction (6-bit codes are uniform)";
  }
  if (auto e = too_big("x [M, K]", s.m, K, float_bytes(s.dtype))) return e;
  if (auto e = too_big("y [M, N]", s.m, s.n, float_bytes(s.dtype))) return e;
  if (auto e = too_big(s.bits == 6 ? "weight [N, 3K/4]" : "weight [N, K/2]", s.n, K * s.bits / 8, 1)) return e;
  if (s.correction)
    if (auto e = too_big("correction [K/G, N]", K / G, s.n, 4)) return e;
  return std::nullopt;
}

Result<WrittenVector, std::string> write_vector(const fs::path& dir, const VectorSpec& s) {
  if (s.format == VectorFormat::Svdquant) return write_svdquant_vector(dir, s);
  if (auto e = vector_spec_error(s)) return *e;
  Rng rng{s.seed};
  const std::size_t M = s.m, N = s.n, K = s.k, G = s.group_size;
  numerics::W4a8Layer l;
  l.n = N, l.k = K, l.group_size = G, l.convrot_groupsize = s.convrot_groupsize, l.bits = s.bits;
  for (std::size_t i = 0; i < N * K * s.bits / 8; ++i) l.weight.push_back(static_cast<std::uint8_t>(rng.next()));
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
    for (std::size_t n = 0; n < N; ++n) l.bias->push_back(numerics::round_to(s.dtype, rng.symmetric() * 0.5f));
  }
  numerics::Activations x{M, s.dtype, {}};
  for (std::size_t m = 0; m < M; ++m)
    for (std::size_t k = 0; k < K; ++k)  // rows of growing magnitude (×4 a row, repeating every 8 rows)
      x.values.push_back(s.zero_last_row && m == M - 1
                             ? 0.0f
                             : numerics::round_to(s.dtype, rng.symmetric() * static_cast<float>(1u << (2 * (m % 8)))));

  const std::string marker = "{\"format\": \"asym_w4a8_int8\", \"group_size\": " + text(G) +
                             ", \"convrot_groupsize\": " + text(s.convrot_groupsize) + ", \"convrot\": true}";
  const std::string& p = s.layer;
  std::vector<NamedTensor> layer{
      {p + ".comfy_quant", Dtype::U8, {marker.size()}, std::vector<std::uint8_t>(marker.begin(), marker.end())},
      {p + ".weight", Dtype::I8, {N, K * s.bits / 8}, l.weight},
      {p + ".weight_s_rel", Dtype::F8_E4M3, {N, K / G}, s_rel},
      {p + ".weight_s_channel", Dtype::F32, {N}, f32_bytes(l.s_channel)}};
  if (l.codebook)
    layer.push_back({p + ".weight_codebook", Dtype::F32, {16}, f32_bytes({l.codebook->begin(), l.codebook->end()})});
  if (l.correction) layer.push_back({p + ".weight_correction", Dtype::F32, {K / G, N}, f32_bytes(*l.correction)});
  if (l.bias) layer.push_back({p + ".bias", dtype_of(s.dtype), {N}, encode_floats(s.dtype, *l.bias)});

  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return dir.string() + ": " + ec.message();
  if (auto e = write_tensors((dir / "layer.safetensors").string(), layer)) return *e;
  if (auto e = write_tensors((dir / "x.safetensors").string(),
                             {{"x", dtype_of(s.dtype), {M, K}, encode_floats(s.dtype, x.values)}}))
    return *e;
  WrittenVector written;
  const bool cuda = s.convrot_groupsize == 256;
  Progress progress("safespec vectors", cuda ? 2 : 1);
  for (auto sem : {numerics::Semantics::Eager, numerics::Semantics::Cuda}) {
    // The CUDA kernel has one block size (K7); other sizes have no cuda output.
    if (sem == numerics::Semantics::Cuda && !cuda) continue;
    progress.step(written.outputs.size(), "computing the " + std::string(numerics::semantics_name(sem)) + " output");
    numerics::W4a8Options o;
    o.semantics = sem;
    auto y = numerics::w4a8_linear(l, x, o);
    if (!y) return y.error().message;
    const std::string file = "y_" + std::string(numerics::semantics_name(sem));
    if (auto e = write_tensors((dir / (file + ".safetensors")).string(),
                               {{"y", dtype_of(s.dtype), {M, N}, encode_floats(s.dtype, y.value().y)}}))
      return *e;
    written.outputs.push_back(file);
  }
  return written;
}

}  // namespace safespec
