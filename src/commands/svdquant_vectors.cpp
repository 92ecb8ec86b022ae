#include "src/commands/svdquant_vectors.hpp"

#include <system_error>
#include <utility>
#include <vector>

#include "spec/numerics/svdquant.hpp"
#include "src/commands/linear.hpp"
#include "src/commands/vector_values.hpp"
#include "src/parse/layer_io.hpp"

namespace safespec {

namespace fs = std::filesystem;
using numerics::FloatType;
using vector_values::text;

namespace {

constexpr std::size_t kSvdVectorGroup = deq::kSvdquantGroup, kSvdVectorTileN = deq::kSvdquantTileN;

// The stored dtype of weight_scale: x's, except BF16 for F32, as the
// tile-packed layout reads 16-bit scales (comfy-quants narrows F32 to BF16
// before it writes them). Both layouts store it so, so that a natural and a
// tile-packed vector of one seed hold the same values.
FloatType svd_scale_type(FloatType t) { return t == FloatType::F32 ? FloatType::BF16 : t; }

// The natural [N, K/2] codes in the tile-packed (N/128, K/64, 32, 128) order:
// byte (n, j) to [n/128, j/32, (n%128)/4, (n%4)*32 + j%32], the inverse of
// deq::svdquant_untile_weight written out as comfy-quants' pack_weight_tile
// states it (a view (N/128, 32, 4, K/64, 64) permuted to (0, 3, 1, 2, 4)).
std::vector<std::uint8_t> svd_tile_weight(const std::vector<std::uint8_t>& natural, std::size_t n_rows, std::size_t k) {
  std::vector<std::uint8_t> out(natural.size());
  std::size_t at = 0;
  for (std::size_t tile = 0; tile < n_rows / kSvdVectorTileN; ++tile)
    for (std::size_t g = 0; g < k / kSvdVectorGroup; ++g)
      for (std::size_t r = 0; r < kSvdVectorTileN / 4; ++r)
        for (std::size_t q = 0; q < 4; ++q)
          for (std::size_t b = 0; b < kSvdVectorGroup / 2; ++b)
            out[at++] = natural[(tile * kSvdVectorTileN + r * 4 + q) * (k / 2) + g * (kSvdVectorGroup / 2) + b];
  return out;
}

// A [rows, N] matrix (the scale [K/64, N]) or an [N, cols] one (proj_up
// [N, R], `transposed`) as (N/128, rows or cols, 128): 128 columns of N at a
// time, the N index last.
std::vector<float> svd_tile_by_n(const std::vector<float>& v, std::size_t n_rows, std::size_t other, bool transposed) {
  std::vector<float> out;
  out.reserve(v.size());
  for (std::size_t b = 0; b < n_rows / kSvdVectorTileN; ++b)
    for (std::size_t o = 0; o < other; ++o)
      for (std::size_t i = 0; i < kSvdVectorTileN; ++i) {
        const std::size_t n = b * kSvdVectorTileN + i;
        out.push_back(transposed ? v[n * other + o] : v[o * n_rows + n]);
      }
  return out;
}

NamedTensor svd_float_tensor(std::string name, FloatType t, std::vector<std::uint64_t> shape, const std::vector<float>& v) {
  return {std::move(name), dtype_of(t), std::move(shape), encode_floats(t, v)};
}

}  // namespace

std::optional<std::string> svdquant_vector_error(const VectorSpec& s) {
  const std::pair<const char*, std::size_t> sizes[] = {{"--m", s.m}, {"--n", s.n}, {"--k", s.k}, {"--rank", s.rank}};
  for (const auto& [name, v] : sizes)
    if (v == 0) return std::string(name) + ": expected at least 1, found 0";
  if (s.k % kSvdVectorGroup != 0)
    return "--k: expected a multiple of 64 (svdquant_w4a4's scale group), found " + text(s.k);
  if (s.tile_packed && s.n % kSvdVectorTileN != 0)
    return "--n: expected a multiple of 128 with --layout tile (the tile's rows), found " + text(s.n);
  const std::size_t tb = vector_values::float_bytes(s.dtype);
  using vector_values::too_big;
  if (auto e = too_big("x [M, K]", s.m, s.k, tb)) return e;
  if (auto e = too_big("y [M, N]", s.m, s.n, 4)) return e;
  if (auto e = too_big("weight [N, K/2]", s.n, s.k / 2, 1)) return e;
  if (auto e = too_big("proj_down [K, R]", s.k, s.rank, tb)) return e;
  if (auto e = too_big("proj_up [N, R]", s.n, s.rank, tb)) return e;
  // The reference dequantizes W [N, K] in binary32 before the product.
  if (auto e = too_big("the effective weight [N, K]", s.n, s.k, 4)) return e;
  return std::nullopt;
}

Result<WrittenVector, std::string> write_svdquant_vector(const fs::path& dir, const VectorSpec& s) {
  if (auto e = svdquant_vector_error(s)) return *e;
  vector_values::Rng rng{s.seed};
  const std::size_t M = s.m, N = s.n, K = s.k, R = s.rank, groups = K / kSvdVectorGroup;
  const FloatType t = s.dtype, st = svd_scale_type(t);
  std::vector<std::uint8_t> codes;  // [N, K/2], two signed int4 codes a byte, low nibble first
  for (std::size_t i = 0; i < N * K / 2; ++i) codes.push_back(static_cast<std::uint8_t>(rng.next()));
  // (1 + j/8) · 2^-4, (1 + j/8) · 2^e for e in {-1, 0, 1}: exact in BF16 and
  // F16; the smoothing factors are never zero, which the reference refuses.
  std::vector<float> scale, smooth, down, up;  // [K/64, N], [K], [K, R], [N, R]
  for (std::size_t i = 0; i < groups * N; ++i)
    scale.push_back((1.0f + static_cast<float>(rng.next() % 8) * 0.125f) * 0x1p-4f);
  for (std::size_t i = 0; i < K; ++i) {
    const float mantissa = 1.0f + static_cast<float>(rng.next() % 8) * 0.125f;
    const std::uint64_t e = rng.next() % 3;
    smooth.push_back(e == 0 ? mantissa * 0.5f : e == 1 ? mantissa : mantissa * 2.0f);
  }
  for (std::size_t i = 0; i < K * R; ++i) down.push_back(numerics::round_to(t, rng.symmetric() * 0.25f));
  for (std::size_t i = 0; i < N * R; ++i) up.push_back(numerics::round_to(t, rng.symmetric() * 0.25f));
  std::optional<std::vector<float>> bias;
  if (s.bias) {
    bias.emplace();
    for (std::size_t n = 0; n < N; ++n) bias->push_back(numerics::round_to(t, rng.symmetric() * 0.5f));
  }
  std::vector<float> x;
  for (std::size_t m = 0; m < M; ++m)
    for (std::size_t k = 0; k < K; ++k)  // rows of growing magnitude (×4 a row, repeating every 8 rows), as W4A8's
      x.push_back(numerics::round_to(t, rng.symmetric() * static_cast<float>(1u << (2 * (m % 8)))));

  const std::string marker = s.tile_packed
                                 ? R"({"format": "svdquant_w4a4", "layout": "kitchen_tile_packed_w4a4"})"
                                 : R"({"format": "svdquant_w4a4"})";
  const std::string& p = s.layer;
  std::vector<NamedTensor> layer{
      {p + ".comfy_quant", Dtype::U8, {marker.size()}, std::vector<std::uint8_t>(marker.begin(), marker.end())}};
  if (s.tile_packed) {
    layer.push_back({p + ".weight", Dtype::I8, {N / kSvdVectorTileN, groups, kSvdVectorTileN / 4, 2 * kSvdVectorGroup},
                     svd_tile_weight(codes, N, K)});
    layer.push_back(svd_float_tensor(p + ".weight_scale", st, {N / kSvdVectorTileN, groups, kSvdVectorTileN},
                                     svd_tile_by_n(scale, N, groups, false)));
    layer.push_back(svd_float_tensor(p + ".proj_up", t, {N / kSvdVectorTileN, R, kSvdVectorTileN}, svd_tile_by_n(up, N, R, true)));
  } else {
    layer.push_back({p + ".weight", Dtype::I8, {N, K / 2}, codes});
    layer.push_back(svd_float_tensor(p + ".weight_scale", st, {groups, N}, scale));
    layer.push_back(svd_float_tensor(p + ".proj_up", t, {N, R}, up));
  }
  layer.push_back(svd_float_tensor(p + ".smooth_factor", t, {K}, smooth));
  layer.push_back(svd_float_tensor(p + ".proj_down", t, {K, R}, down));
  if (bias) layer.push_back(svd_float_tensor(p + ".bias", t, {N}, *bias));

  deq::SvdquantWeight w{deq::Mat<std::uint8_t>(N, K / 2, codes), deq::Mat<float>(groups, N, scale),
                        deq::Mat<float>(K, R, down), deq::Mat<float>(N, R, up)};
  const auto y = deq::linear_svdquant_w4a4(deq::Mat<float>(M, K, x), smooth, w, bias ? &*bias : nullptr);
  if (!y) return y.error().message;

  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return dir.string() + ": " + ec.message();
  if (auto e = write_tensors((dir / "layer.safetensors").string(), layer)) return *e;
  if (auto e = write_tensors((dir / "x.safetensors").string(), {svd_float_tensor("x", t, {M, K}, x)})) return *e;
  // F32 whatever x's dtype: the reference returns binary32, and `linear` writes it so.
  if (auto e = write_tensors((dir / "y_eager.safetensors").string(),
                             {svd_float_tensor("y", FloatType::F32, {M, N}, y.value().y.v)}))
    return *e;
  return WrittenVector{{"y_eager"}};
}

}  // namespace safespec
