#include "spec/numerics/svdquant.hpp"

#include <string>

#include "spec/number_formats.hpp"
#include "spec/numerics/rounding.hpp"

namespace safespec::deq {

namespace {

constexpr RuleId kSvdRule = RuleId::QuantSvdquantShapes;

Error svd_error(const char* what, std::string message) { return Error{kSvdRule, Place::argument(what), std::move(message)}; }

std::string dims_str(std::span<const std::uint64_t> s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// The element count of `shape` equals `size`, and every product fits.
bool svd_size_is(std::span<const std::uint64_t> shape, std::size_t size) {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) {
    const auto m = checked_mul(n, d);
    if (!m) return false;
    n = *m;
  }
  return n == size;
}

}  // namespace

Status check_svdquant_w4a4(const SvdquantWeight& w, Dtype t) {
  if (!is_compute_dtype(t))
    return svd_error("dtype", "expected an output dtype F32, BF16 or F16, found " + std::string(dtype_name(t)));
  for (const auto& [what, ok] : {std::pair{"weight", w.packed.shape_ok()}, std::pair{"weight_scale", w.scale.shape_ok()},
                                 std::pair{"proj_down", w.proj_down.shape_ok()}, std::pair{"proj_up", w.proj_up.shape_ok()}})
    if (!ok) return svd_error(what, "expected rows * cols values");
  const auto k = checked_mul(w.packed.cols, 2);
  if (!k) return svd_error("weight", "K = 2 * packed columns does not fit in 64 bits");
  const std::uint64_t n = w.packed.rows;
  if (*k % kSvdquantGroup != 0) return svd_error("weight", "expected K a multiple of 64, found K = " + std::to_string(*k));
  if (w.scale.rows != *k / kSvdquantGroup || w.scale.cols != n)
    return svd_error("weight_scale", "expected [K/64, N] = " + shape_str(*k / kSvdquantGroup, n) + ", found " +
                                         shape_str(w.scale.rows, w.scale.cols));
  if (w.proj_down.rows != *k)
    return svd_error("proj_down", "expected [K, R] with K = " + std::to_string(*k) + ", found " +
                                      shape_str(w.proj_down.rows, w.proj_down.cols));
  if (w.proj_up.rows != n || w.proj_up.cols != w.proj_down.cols)
    return svd_error("proj_up", "expected [N, R] = " + shape_str(n, w.proj_down.cols) + ", found " +
                                    shape_str(w.proj_up.rows, w.proj_up.cols));
  return ok_status();
}

Result<Mat<float>> dequant_svdquant_w4a4(const SvdquantWeight& w, Dtype t) {
  if (auto s = check_svdquant_w4a4(w, t); !s) return s.error();
  const std::uint64_t n_rows = w.packed.rows, k = w.packed.cols * 2, rank = w.proj_down.cols;
  Mat<float> out(n_rows, k, std::vector<float>(w.packed.v.size() * 2));
  for (std::uint64_t n = 0; n < n_rows; ++n)
    for (std::uint64_t c = 0; c < k; ++c) {
      const std::uint8_t b = w.packed.at(n, c / 2);
      const auto v = static_cast<float>(num::signed_int4(c % 2 == 0 ? num::low_nibble(b) : num::high_nibble(b)));
      const float main = v * w.scale.at(c / kSvdquantGroup, n);  // one binary32 product
      numerics::ExactSum branch;
      for (std::uint64_t r = 0; r < rank; ++r) branch.add_product(w.proj_up.at(n, r), w.proj_down.at(c, r));
      const float low = rank == 0 ? 0.0f : branch.rounded(numerics::FloatType::F32);
      out.at(n, c) = round_t(t, main + low);
    }
  return out;
}

Result<SvdquantLinear> linear_svdquant_w4a4(const Mat<float>& x, std::span<const float> smooth, const SvdquantWeight& w,
                                           const std::vector<float>* bias) {
  auto weight = dequant_svdquant_w4a4(w, Dtype::F32);
  if (!weight) return weight.error();
  const Mat<float>& wm = weight.value();
  if (!x.shape_ok() || x.cols != wm.cols)
    return svd_error("x", "expected [M, K] with K = " + std::to_string(wm.cols) + ", found " + shape_str(x.rows, x.cols));
  if (smooth.size() != wm.cols)
    return svd_error("smooth_factor", "expected " + std::to_string(wm.cols) + " values (K), found " + std::to_string(smooth.size()));
  for (float f : smooth)
    if (f == 0.0f) return svd_error("smooth_factor", "expected no zero values (comfy-quants: smooth_factor must not contain zero values)");
  if (bias && bias->size() != wm.rows)
    return svd_error("bias", "expected " + std::to_string(wm.rows) + " values (N), found " + std::to_string(bias->size()));
  SvdquantLinear out;
  out.xs = Mat<float>::zeros(x.rows, x.cols);
  for (std::uint64_t m = 0; m < x.rows; ++m)
    for (std::uint64_t k = 0; k < x.cols; ++k) out.xs.at(m, k) = x.at(m, k) / smooth[static_cast<std::size_t>(k)];
  out.y = Mat<float>::zeros(x.rows, wm.rows);
  for (std::uint64_t m = 0; m < x.rows; ++m)
    for (std::uint64_t n = 0; n < wm.rows; ++n) {
      numerics::ExactSum sum;
      for (std::uint64_t k = 0; k < x.cols; ++k) sum.add_product(out.xs.at(m, k), wm.at(n, k));
      const float y = x.cols == 0 ? 0.0f : sum.rounded(numerics::FloatType::F32);
      out.y.at(m, n) = bias ? y + (*bias)[static_cast<std::size_t>(n)] : y;
    }
  out.w = std::move(weight).value();
  return out;
}

Result<Mat<std::uint8_t>> svdquant_untile_weight(std::span<const std::uint64_t> shape, std::span<const std::uint8_t> bytes) {
  if (shape.size() != 4 || shape[2] != kSvdquantTileN / 4 || shape[3] != 4 * kSvdquantGroup / 2 ||
      !svd_size_is(shape, bytes.size()))
    return svd_error("weight", "expected a tile-packed (N/128, K/64, 32, 128) weight, found " + dims_str(shape));
  const std::uint64_t nb = shape[0], kg = shape[1];
  const std::uint64_t n_rows = nb * kSvdquantTileN, half_k = kg * kSvdquantGroup / 2;
  Mat<std::uint8_t> out(n_rows, half_k, std::vector<std::uint8_t>(bytes.size()));
  // A byte holds the codes of columns 2j and 2j+1 of one row in both
  // layouts, so un-tiling moves whole bytes.
  for (std::uint64_t n = 0; n < n_rows; ++n)
    for (std::uint64_t j = 0; j < half_k; ++j) {
      const std::uint64_t tile = n / kSvdquantTileN, group = (2 * j) / kSvdquantGroup;
      const std::uint64_t row = (n % kSvdquantTileN) / 4, col = (n % 4) * 32 + j % (kSvdquantGroup / 2);
      out.at(n, j) = bytes[static_cast<std::size_t>(((tile * kg + group) * 32 + row) * 128 + col)];
    }
  return out;
}

Result<Mat<float>> svdquant_untile_scale(std::span<const std::uint64_t> shape, std::span<const float> values) {
  if (shape.size() != 3 || shape[2] != kSvdquantTileN || !svd_size_is(shape, values.size()))
    return svd_error("weight_scale", "expected a tile-packed (N/128, K/64, 128) scale, found " + dims_str(shape));
  const std::uint64_t nb = shape[0], kg = shape[1];
  Mat<float> out(kg, nb * kSvdquantTileN, std::vector<float>(values.size()));
  for (std::uint64_t b = 0; b < nb; ++b)
    for (std::uint64_t g = 0; g < kg; ++g)
      for (std::uint64_t i = 0; i < kSvdquantTileN; ++i)
        out.at(g, b * kSvdquantTileN + i) = values[static_cast<std::size_t>((b * kg + g) * kSvdquantTileN + i)];
  return out;
}

Result<Mat<float>> svdquant_untile_proj_up(std::span<const std::uint64_t> shape, std::span<const float> values) {
  if (shape.size() != 3 || shape[2] != kSvdquantTileN || !svd_size_is(shape, values.size()))
    return svd_error("proj_up", "expected a tile-packed (N/128, R, 128) proj_up, found " + dims_str(shape));
  const std::uint64_t nb = shape[0], rank = shape[1];
  Mat<float> out(nb * kSvdquantTileN, rank, std::vector<float>(values.size()));
  for (std::uint64_t b = 0; b < nb; ++b)
    for (std::uint64_t r = 0; r < rank; ++r)
      for (std::uint64_t i = 0; i < kSvdquantTileN; ++i)
        out.at(b * kSvdquantTileN + i, r) = values[static_cast<std::size_t>((b * rank + r) * kSvdquantTileN + i)];
  return out;
}

}  // namespace safespec::deq
