#include "spec/numerics/dequant.hpp"

#include <string>

#include "spec/numerics/hadamard_blocks.hpp"
#include "spec/numerics/rounding.hpp"
#include "spec/numerics/swizzle.hpp"

namespace safespec::deq {

namespace {

Status check_shape(const char* what, std::uint64_t rows, std::uint64_t cols, std::size_t values, RuleId rule) {
  const auto n = checked_mul(rows, cols);
  if (!n || *n != values)
    return Error{rule, Place::argument(what), std::string("expected ") + shape_str(rows, cols) + " = rows * cols values, found " + std::to_string(values)};
  return ok_status();
}

Status check_dtype(Dtype t, RuleId rule) {
  if (is_compute_dtype(t)) return ok_status();
  return Error{rule, Place::argument("dtype"), "expected an output dtype F32, BF16 or F16, found " + std::string(dtype_name(t))};
}

// T(f32(a * b)): one elementwise product of a T-typed computation (§1.3).
float mul_t(Dtype t, float a, float b) { return round_t(t, a * b); }
float add_t(Dtype t, float a, float b) { return round_t(t, a + b); }

// §2.5 L2: element 2j in the low nibble, 2j+1 in the high nibble.
std::uint8_t low_first_code(const Mat<std::uint8_t>& packed, std::uint64_t n, std::uint64_t k) {
  const std::uint8_t b = packed.at(n, k / 2);
  return k % 2 == 0 ? num::low_nibble(b) : num::high_nibble(b);
}
// §2.5 L1 (nvfp4, hi_first): element 2j in the high nibble.
std::uint8_t high_first_code(const Mat<std::uint8_t>& packed, std::uint64_t n, std::uint64_t k) {
  const std::uint8_t b = packed.at(n, k / 2);
  return k % 2 == 0 ? num::high_nibble(b) : num::low_nibble(b);
}

// The ConvRot un-rotation step shared by int8 (§7.2) and W4A4 (§6.1).
Result<Mat<float>> unrotate(Mat<float> wrot, std::uint64_t c, Dtype t, RuleId rule) {
  return hadamard_blocks(wrot, c, t, rule);
}

}  // namespace

// ---- §8.1 fp8 per-tensor ----------------------------------------------------

Status check_fp8(const Fp8Weight& w, Dtype t) {
  if (auto s = check_dtype(t, RuleId::QuantFp8Weight); !s) return s;
  return check_shape("weight", w.codes.rows, w.codes.cols, w.codes.v.size(), RuleId::QuantFp8Weight);
}

Result<Mat<float>> dequant_fp8(const Fp8Weight& w, Dtype t) {
  if (auto s = check_fp8(w, t); !s) return s.error();
  const float s_t = round_t(t, w.scale);
  Mat<float> out(w.codes.rows, w.codes.cols, std::vector<float>(w.codes.v.size()));
  for (std::size_t i = 0; i < w.codes.v.size(); ++i) {
    const float q = w.kind == Fp8::E4M3 ? num::decode_e4m3fn(w.codes.v[i]) : num::decode_e5m2(w.codes.v[i]);
    out.v[i] = mul_t(t, q, s_t);  // decode(q) is exact in T (§1.5)
  }
  return out;
}

// ---- §7.2 int8 tensor-wise / row-wise, optionally ConvRot ------------------

Status check_int8(const Int8Weight& w, Dtype t) {
  if (auto s = check_dtype(t, RuleId::QuantInt8Shapes); !s) return s;
  if (auto s = check_shape("weight", w.q.rows, w.q.cols, w.q.v.size(), RuleId::QuantInt8Shapes); !s) return s;
  if (w.scale.size() != 1 && w.scale.size() != w.q.rows)
    return Error{RuleId::QuantInt8Shapes, Place::argument("weight_scale"),
                 "expected 1 (tensor-wise) or N = " + std::to_string(w.q.rows) + " (row-wise [N, 1]) scale values, found " +
                     std::to_string(w.scale.size())};
  return ok_status();
}

Result<Mat<float>> dequant_int8(const Int8Weight& w, Dtype t) {
  if (auto s = check_int8(w, t); !s) return s.error();
  Mat<float> wrot(w.q.rows, w.q.cols, std::vector<float>(w.q.v.size()));
  for (std::uint64_t n = 0; n < w.q.rows; ++n) {
    const float s = w.scale.size() == 1 ? w.scale[0] : w.scale[n];
    for (std::uint64_t k = 0; k < w.q.cols; ++k) wrot.at(n, k) = mul_t(t, static_cast<float>(w.q.at(n, k)), s);
  }
  if (w.convrot_groupsize == 0) return wrot;
  return unrotate(std::move(wrot), w.convrot_groupsize, t, RuleId::QuantInt8ConvrotGroupsize);
}

// ---- §6.1 convrot_w4a4 -----------------------------------------------------

namespace {

Status check_w4a4_packed(const W4a4Weight& w) {
  if (auto s = check_shape("weight", w.packed.rows, w.packed.cols, w.packed.v.size(), RuleId::QuantW4a4Shapes); !s) return s;
  if (!checked_mul(w.packed.cols, 2))
    return Error{RuleId::QuantW4a4Shapes, Place::argument("weight"), "K = 2 * packed columns does not fit in 64 bits"};
  return ok_status();
}

}  // namespace

Result<Mat<std::int8_t>> w4a4_codes(const W4a4Weight& w) {
  if (auto s = check_w4a4_packed(w); !s) return s.error();
  const std::uint64_t k = w.packed.cols * 2;
  Mat<std::int8_t> v(w.packed.rows, k, std::vector<std::int8_t>(w.packed.v.size() * 2));
  for (std::uint64_t n = 0; n < v.rows; ++n)
    for (std::uint64_t c = 0; c < v.cols; ++c) v.at(n, c) = static_cast<std::int8_t>(num::signed_int4(low_first_code(w.packed, n, c)));
  return v;
}

Status check_convrot_w4a4(const W4a4Weight& w, Dtype t) {
  if (auto s = check_dtype(t, RuleId::QuantW4a4Shapes); !s) return s;
  if (auto s = check_w4a4_packed(w); !s) return s;
  if (w.scale.size() != w.packed.rows)
    return Error{RuleId::QuantW4a4Shapes, Place::argument("weight_scale"),
                 "expected N = " + std::to_string(w.packed.rows) + " scale values, found " + std::to_string(w.scale.size())};
  return ok_status();
}

Result<Mat<float>> dequant_convrot_w4a4(const W4a4Weight& w, Dtype t) {
  if (auto s = check_convrot_w4a4(w, t); !s) return s.error();
  auto codes = w4a4_codes(w);
  if (!codes) return codes.error();
  const Mat<std::int8_t>& v = codes.value();
  Mat<float> wrot(v.rows, v.cols, std::vector<float>(v.v.size()));
  for (std::uint64_t n = 0; n < v.rows; ++n)
    for (std::uint64_t k = 0; k < v.cols; ++k) wrot.at(n, k) = mul_t(t, static_cast<float>(v.at(n, k)), w.scale[n]);
  return unrotate(std::move(wrot), w.convrot_groupsize, t, RuleId::QuantW4a4Groupsize);
}

// ---- §9.1 nvfp4 ------------------------------------------------------------

namespace {

// Shared checks of the two block-scaled formats: the data holds `cols`
// logical columns of `rows` logical rows, and its padded K is a whole number
// of blocks.
Status check_block_data(std::uint64_t data_rows, std::uint64_t data_k, std::uint64_t rows, std::uint64_t cols,
                        std::uint64_t block, RuleId rule) {
  if (data_k % block != 0)
    return Error{rule, Place::argument("weight"), "expected a padded K divisible by " + std::to_string(block) + ", found " + std::to_string(data_k)};
  if (rows > data_rows || cols > data_k)
    return Error{rule, Place::argument("weight"),
                 "expected the logical shape " + shape_str(rows, cols) + " within the stored " + shape_str(data_rows, data_k)};
  return ok_status();
}

}  // namespace

Status check_nvfp4(const Nvfp4Weight& w, Dtype t) {
  constexpr RuleId rule = RuleId::QuantNvfp4Shapes;
  if (auto s = check_dtype(t, rule); !s) return s;
  if (auto s = check_shape("weight", w.packed.rows, w.packed.cols, w.packed.v.size(), rule); !s) return s;
  const auto k16 = checked_mul(w.packed.cols, 2);
  if (!k16) return Error{rule, Place::argument("weight"), "K = 2 * packed columns does not fit in 64 bits"};
  return check_block_data(w.packed.rows, *k16, w.rows, w.cols, 16, rule);
}

Result<Mat<std::uint8_t>> nvfp4_block_scales(const Nvfp4Weight& w) {
  return unswizzle(w.block_scales, w.packed.rows, w.packed.cols * 2 / 16, RuleId::QuantNvfp4Layout);
}

Result<Mat<float>> dequant_nvfp4(const Nvfp4Weight& w, Dtype t) {
  if (auto s = check_nvfp4(w, t); !s) return s.error();
  // Step 3: the block scales, un-swizzled to [N16, K16/16] and decoded.
  auto bs = nvfp4_block_scales(w);
  if (!bs) return bs.error();
  Mat<float> out(w.rows, w.cols, std::vector<float>(static_cast<std::size_t>(w.rows * w.cols)));
  for (std::uint64_t n = 0; n < w.rows; ++n)      // step 5: only the logical [N, K]
    for (std::uint64_t k = 0; k < w.cols; ++k) {
      const std::uint8_t code = high_first_code(w.packed, n, k);      // step 1
      const float value = num::decode_e2m1(code);                       // step 2
      const float block = num::decode_e4m3fn(bs.value().at(n, k / 16));  // step 3
      out.at(n, k) = mul_t(t, value, mul_t(t, w.global_scale, block));  // step 4
    }
  return out;
}

// ---- §10.1 mxfp8 -----------------------------------------------------------

Status check_mxfp8(const Mxfp8Weight& w, Dtype t) {
  constexpr RuleId rule = RuleId::QuantMxfp8Layout;
  if (auto s = check_dtype(t, rule); !s) return s;
  if (auto s = check_shape("weight", w.codes.rows, w.codes.cols, w.codes.v.size(), rule); !s) return s;
  return check_block_data(w.codes.rows, w.codes.cols, w.rows, w.cols, 32, rule);
}

Result<Mat<std::uint8_t>> mxfp8_block_scales(const Mxfp8Weight& w) {
  return unswizzle(w.block_scales, w.codes.rows, w.codes.cols / 32, RuleId::QuantMxfp8Layout);
}

Result<Mat<float>> dequant_mxfp8(const Mxfp8Weight& w, Dtype t) {
  if (auto s = check_mxfp8(w, t); !s) return s.error();
  auto e = mxfp8_block_scales(w);
  if (!e) return e.error();
  Mat<float> out(w.rows, w.cols, std::vector<float>(static_cast<std::size_t>(w.rows * w.cols)));
  for (std::uint64_t n = 0; n < w.rows; ++n)
    for (std::uint64_t k = 0; k < w.cols; ++k) {
      const float scale = num::decode_e8m0(e.value().at(n, k / 32), w.e8m0);
      out.at(n, k) = mul_t(t, num::decode_e4m3fn(w.codes.at(n, k)), scale);
    }
  return out;
}

// ---- §11 awq_w4a16 ---------------------------------------------------------

Status check_awq_w4a16(const AwqWeight& w) {
  constexpr RuleId rule = RuleId::QuantAwqShapes;
  const Dtype t = w.scale_dtype;
  if (auto s = check_dtype(t, rule); !s) return s;
  if (auto s = check_shape("weight", w.packed.rows, w.packed.cols, w.packed.v.size(), rule); !s) return s;
  if (auto s = check_shape("weight_scale", w.scale.rows, w.scale.cols, w.scale.v.size(), rule); !s) return s;
  if (auto s = check_shape("weight_zeros", w.zeros.rows, w.zeros.cols, w.zeros.v.size(), rule); !s) return s;
  const auto k = checked_mul(w.packed.cols, 2);
  if (!k) return Error{rule, Place::argument("weight"), "K = 2 * packed columns does not fit in 64 bits"};
  const std::uint64_t n_rows = w.packed.rows, g = w.group_size;
  if (g == 0 || *k % g != 0)
    return Error{rule, Place::argument("group_size"), "expected a group size dividing K = " + std::to_string(*k) + ", found " + std::to_string(g)};
  for (const auto* m : {&w.scale, &w.zeros})
    if (m->rows != *k / g || m->cols != n_rows)
      return Error{rule, Place::argument(m == &w.scale ? "weight_scale" : "weight_zeros"),
                   "expected [K/G, N] = " + shape_str(*k / g, n_rows) + ", found " + shape_str(m->rows, m->cols)};
  for (const auto* m : {&w.scale, &w.zeros})
    for (float v : m->v)
      if (!is_t_value(t, v))
        return Error{rule, Place::argument(m == &w.scale ? "weight_scale" : "weight_zeros"),
                     "expected values of the scale dtype " + std::string(dtype_name(t)) + ", found " + std::to_string(v)};
  return ok_status();
}

Result<Mat<float>> dequant_awq_w4a16(const AwqWeight& w) {
  if (auto s = check_awq_w4a16(w); !s) return s.error();
  const Dtype t = w.scale_dtype;
  const std::uint64_t n_rows = w.packed.rows, g = w.group_size, k = w.packed.cols * 2;
  Mat<float> out(n_rows, k, std::vector<float>(w.packed.v.size() * 2));
  for (std::uint64_t n = 0; n < n_rows; ++n)
    for (std::uint64_t c = 0; c < k; ++c) {
      const float level = static_cast<float>(low_first_code(w.packed, n, c)) - 8.0f;  // exact
      out.at(n, c) = add_t(t, mul_t(t, level, w.scale.at(c / g, n)), w.zeros.at(c / g, n));
    }
  return out;
}

}  // namespace safespec::deq
