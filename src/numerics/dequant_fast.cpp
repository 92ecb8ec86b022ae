#include "src/numerics/dequant_fast.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "spec/numerics/hadamard_blocks.hpp"
#include "spec/numerics/rounding.hpp"
#include "spec/numerics/swizzle.hpp"
#include "src/numerics/hadamard_fast.hpp"
#include "src/numerics/int8_gemm.hpp"

namespace safespec::numerics {

namespace {

using deq::Mat;

// The rows of an [rows, cols] output split over threads.
template <class F>
void by_rows(std::uint64_t rows, unsigned threads, F&& body) {
  parallel_ranges(static_cast<std::size_t>(rows), resolve_threads(threads), 1, body);
}

// The reference's ConvRot checks for a [rows, cols] weight (hadamard_blocks
// on no rows checks C, the width and T, and computes nothing).
Status check_convrot(std::uint64_t cols, std::uint64_t c, Dtype t, RuleId rule) {
  auto probe = deq::hadamard_blocks(Mat<float>(0, cols, {}), c, t, rule);
  if (!probe) return probe.error();
  return ok_status();
}

// §3.2 on row `row` of `wrot` in place, block by block.
void unrotate_row(float* row, std::uint64_t cols, std::uint64_t c, Dtype t, FhtScratch& s, std::vector<float>& tmp) {
  tmp.resize(static_cast<std::size_t>(c));
  for (std::uint64_t b = 0; b < cols; b += c) {
    hadamard_block(std::span<const float>(row + b, static_cast<std::size_t>(c)), t, s, tmp.data());
    std::copy(tmp.begin(), tmp.end(), row + b);
  }
}

// AWQ's 16 values for one group: S(S((code - 8) * sc) + z) for every code.
void awq_group_table(float sc, float z, Dtype t, float* table) {
  if (std::isnan(z) && !std::isfinite(sc)) {
    // Both operands of the sum can be NaN (a NaN scale, or 0 · inf): the
    // reference's own operations on one group of the 16 codes (G = K = 16;
    // sc and z are already checked values of S).
    std::vector<std::uint8_t> codes(8);
    for (std::size_t j = 0; j < 8; ++j) codes[j] = static_cast<std::uint8_t>(2 * j | (2 * j + 1) << 4);
    const auto r = deq::dequant_awq_w4a16(
        {Mat<std::uint8_t>(1, 8, std::move(codes)), Mat<float>(1, 1, {sc}), Mat<float>(1, 1, {z}), 16, t});
    std::copy(r.value().v.begin(), r.value().v.end(), table);
    return;
  }
  for (std::uint8_t code = 0; code < 16; ++code) {
    const float level = static_cast<float>(code) - 8.0f;
    table[code] = deq::round_t(t, deq::round_t(t, level * sc) + z);  // add_t(t, mul_t(t, level, sc), z)
  }
}

}  // namespace

// §8.1: W = T(f32(decode(q) * T(s))), a function of the code byte alone.
Result<Mat<float>> dequant_fp8_fast(const deq::Fp8Weight& w, Dtype t, unsigned threads) {
  if (auto s = deq::check_fp8(w, t); !s) return s.error();
  std::vector<std::uint8_t> every(256);
  for (std::size_t i = 0; i < 256; ++i) every[i] = static_cast<std::uint8_t>(i);
  const auto table = deq::dequant_fp8({w.kind, Mat<std::uint8_t>(1, 256, std::move(every)), w.scale}, t);
  if (!table) return table.error();  // cannot happen: the checks above passed
  const float* v = table.value().v.data();
  Mat<float> out(w.codes.rows, w.codes.cols, std::vector<float>(w.codes.v.size()));
  by_rows(w.codes.rows, threads, [&](std::size_t r0, std::size_t r1) {
    for (std::size_t i = r0 * w.codes.cols; i < r1 * w.codes.cols; ++i) out.v[i] = v[w.codes.v[i]];
  });
  return out;
}

// §7.2: Wrot = T(f32(q * s)), a function of the code and the row's scale
// (q is an integer, so only s can be NaN), then the ConvRot un-rotation.
Result<Mat<float>> dequant_int8_fast(const deq::Int8Weight& w, Dtype t, unsigned threads) {
  if (auto s = deq::check_int8(w, t); !s) return s.error();
  const std::uint64_t rows = w.q.rows, cols = w.q.cols, c = w.convrot_groupsize;
  if (c != 0)
    if (auto s = check_convrot(cols, c, t, RuleId::QuantInt8ConvrotGroupsize); !s) return s.error();
  Mat<float> out(rows, cols, std::vector<float>(w.q.v.size()));
  by_rows(rows, threads, [&](std::size_t r0, std::size_t r1) {
    std::array<float, 256> table{};
    float table_scale = 0.0f;
    bool filled = false;
    FhtScratch scratch;
    std::vector<float> tmp;
    for (std::size_t n = r0; n < r1; ++n) {
      const float s = w.scale.size() == 1 ? w.scale[0] : w.scale[n];
      if (!filled || std::bit_cast<std::uint32_t>(s) != std::bit_cast<std::uint32_t>(table_scale)) {
        for (int q = -128; q < 128; ++q)
          table[static_cast<std::uint8_t>(q)] = deq::round_t(t, static_cast<float>(q) * s);  // mul_t
        table_scale = s;
        filled = true;
      }
      float* row = out.v.data() + n * cols;
      const std::int8_t* q = w.q.v.data() + n * cols;
      for (std::uint64_t k = 0; k < cols; ++k) row[k] = table[static_cast<std::uint8_t>(q[k])];
      if (c != 0) unrotate_row(row, cols, c, t, scratch, tmp);
    }
  });
  return out;
}

// §6.1: Wrot = T(f32(v * scale[n])) for the signed code v (L2, low nibble
// first), then W = T(Wrot * H_C) per block.
Result<Mat<float>> dequant_convrot_w4a4_fast(const deq::W4a4Weight& w, Dtype t, unsigned threads) {
  if (auto s = deq::check_convrot_w4a4(w, t); !s) return s.error();
  const std::uint64_t rows = w.packed.rows, half = w.packed.cols, cols = 2 * half, c = w.convrot_groupsize;
  if (auto s = check_convrot(cols, c, t, RuleId::QuantW4a4Groupsize); !s) return s.error();
  Mat<float> out(rows, cols, std::vector<float>(static_cast<std::size_t>(rows * cols)));
  by_rows(rows, threads, [&](std::size_t r0, std::size_t r1) {
    FhtScratch scratch;
    std::vector<float> tmp;
    for (std::size_t n = r0; n < r1; ++n) {
      float table[16];
      for (std::uint8_t code = 0; code < 16; ++code)
        table[code] = deq::round_t(t, static_cast<float>(num::signed_int4(code)) * w.scale[n]);  // mul_t
      float* row = out.v.data() + n * cols;
      const std::uint8_t* bytes = w.packed.v.data() + n * half;
      for (std::uint64_t j = 0; j < half; ++j) {
        row[2 * j] = table[num::low_nibble(bytes[j])];
        row[2 * j + 1] = table[num::high_nibble(bytes[j])];
      }
      unrotate_row(row, cols, c, t, scratch, tmp);
    }
  });
  return out;
}

// §9.1: W[n, k] = T(f32(e2m1(q) * T(f32(s2 * bs[n, k/16])))), a function of
// the block-scale byte and the code: the probe holds, for every scale byte
// b, one block of the 16 codes in order.
Result<Mat<float>> dequant_nvfp4_fast(const deq::Nvfp4Weight& w, Dtype t, unsigned threads) {
  if (auto s = deq::check_nvfp4(w, t); !s) return s.error();
  auto bs = deq::nvfp4_block_scales(w);
  if (!bs) return bs.error();
  std::vector<std::uint8_t> packed(256 * 8), scale_bytes(256);
  for (std::size_t b = 0; b < 256; ++b) {
    scale_bytes[b] = static_cast<std::uint8_t>(b);
    for (std::size_t j = 0; j < 8; ++j)  // L1: element 2j in the high nibble
      packed[b * 8 + j] = static_cast<std::uint8_t>((2 * j) << 4 | (2 * j + 1));
  }
  auto stored = deq::swizzle(Mat<std::uint8_t>(1, 256, std::move(scale_bytes)), RuleId::QuantNvfp4Layout);
  if (!stored) return stored.error();  // cannot happen: a fixed, valid shape
  const auto table = deq::dequant_nvfp4({Mat<std::uint8_t>(1, 256 * 8, std::move(packed)), std::move(stored).value(),
                                         w.global_scale, 1, 256 * 16},
                                        t);
  if (!table) return table.error();
  const float* v = table.value().v.data();
  const Mat<std::uint8_t>& scales = bs.value();
  Mat<float> out(w.rows, w.cols, std::vector<float>(static_cast<std::size_t>(w.rows * w.cols)));
  by_rows(w.rows, threads, [&](std::size_t r0, std::size_t r1) {
    for (std::size_t n = r0; n < r1; ++n) {
      const std::uint8_t* bytes = w.packed.v.data() + n * w.packed.cols;
      const std::uint8_t* row_scales = scales.v.data() + n * scales.cols;
      float* row = out.v.data() + n * w.cols;
      for (std::uint64_t k = 0; k < w.cols; ++k) {
        const std::uint8_t b = bytes[k / 2];
        const std::uint8_t code = k % 2 == 0 ? num::high_nibble(b) : num::low_nibble(b);
        row[k] = v[row_scales[k / 16] * 16 + code];
      }
    }
  });
  return out;
}

// §10.1: W[n, k] = T(f32(decode_E4M3(q) * E8M0(e[n, k/32]))), a function of
// the two bytes: the probe holds, for every scale byte the layer uses, 256
// codes in order (eight blocks of 32 with that scale byte).
Result<Mat<float>> dequant_mxfp8_fast(const deq::Mxfp8Weight& w, Dtype t, unsigned threads) {
  if (auto s = deq::check_mxfp8(w, t); !s) return s.error();
  auto e = deq::mxfp8_block_scales(w);
  if (!e) return e.error();
  const Mat<std::uint8_t>& scales = e.value();
  std::array<std::uint16_t, 256> slot{};  // 1 + the scale byte's place in the probe, 0 when unused
  std::vector<std::uint8_t> used;
  const std::uint64_t blocks = (w.cols + 31) / 32;
  for (std::uint64_t n = 0; n < w.rows; ++n)
    for (std::uint64_t b = 0; b < blocks; ++b) {
      const std::uint8_t byte = scales.at(n, b);
      if (slot[byte] == 0) {
        used.push_back(byte);
        slot[byte] = static_cast<std::uint16_t>(used.size());
      }
    }
  if (used.empty()) return Mat<float>(w.rows, w.cols, std::vector<float>(static_cast<std::size_t>(w.rows * w.cols)));
  std::vector<std::uint8_t> codes(used.size() * 256), probe_scales(used.size() * 8);
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<std::uint8_t>(i % 256);
  for (std::size_t i = 0; i < probe_scales.size(); ++i) probe_scales[i] = used[i / 8];
  const std::uint64_t probe_blocks = probe_scales.size();
  auto stored = deq::swizzle(Mat<std::uint8_t>(1, probe_blocks, std::move(probe_scales)), RuleId::QuantMxfp8Layout);
  if (!stored) return stored.error();  // cannot happen: a valid shape
  const std::uint64_t probe_cols = codes.size();
  const auto table = deq::dequant_mxfp8(
      {Mat<std::uint8_t>(1, probe_cols, std::move(codes)), std::move(stored).value(), 1, probe_cols, w.e8m0}, t);
  if (!table) return table.error();
  const float* v = table.value().v.data();
  Mat<float> out(w.rows, w.cols, std::vector<float>(static_cast<std::size_t>(w.rows * w.cols)));
  by_rows(w.rows, threads, [&](std::size_t r0, std::size_t r1) {
    for (std::size_t n = r0; n < r1; ++n) {
      const std::uint8_t* q = w.codes.v.data() + n * w.codes.cols;
      const std::uint8_t* row_scales = scales.v.data() + n * scales.cols;
      float* row = out.v.data() + n * w.cols;
      for (std::uint64_t k = 0; k < w.cols; ++k) row[k] = v[(slot[row_scales[k / 32]] - 1) * 256 + q[k]];
    }
  });
  return out;
}

// §11: W[n, k] = S(S((u4 - 8) * scale[g, n]) + zeros[g, n]), a function of
// the code and the group's (scale, zero).
Result<Mat<float>> dequant_awq_w4a16_fast(const deq::AwqWeight& w, unsigned threads) {
  if (auto s = deq::check_awq_w4a16(w); !s) return s.error();
  const Dtype t = w.scale_dtype;
  const std::uint64_t rows = w.packed.rows, half = w.packed.cols, cols = 2 * half, g = w.group_size;
  Mat<float> out(rows, cols, std::vector<float>(static_cast<std::size_t>(rows * cols)));
  by_rows(rows, threads, [&](std::size_t r0, std::size_t r1) {
    float table[16];
    for (std::size_t n = r0; n < r1; ++n) {
      const std::uint8_t* bytes = w.packed.v.data() + n * half;
      float* row = out.v.data() + n * cols;
      for (std::uint64_t group = 0, k = 0; group < cols / g; ++group) {
        awq_group_table(w.scale.at(group, n), w.zeros.at(group, n), t, table);
        for (const std::uint64_t end = k + g; k < end; ++k) {  // L2: element 2j in the low nibble
          const std::uint8_t b = bytes[k / 2];
          row[k] = table[k % 2 == 0 ? num::low_nibble(b) : num::high_nibble(b)];
        }
      }
    }
  });
  return out;
}

}  // namespace safespec::numerics
