// The dequantization of every format but W4A8 (quant-numerics.md §6.1, §7.2,
// §8.1, §9.1, §10.1, §11) at memory speed, bit for bit the references'
// (spec/numerics/dequant.hpp), errors included. The references stay the
// definition; `safespec dequant` runs these.
//
// How they stay identical:
// - the checks are the references' own (check_*, the block-scale
//   un-swizzle, hadamard_blocks's on an empty matrix of the same width), so
//   the same Error comes first;
// - each element is a function of a few bytes (a code and a scale byte) or
//   of a code and one scale value of its row or group, so it is read from a
//   table of those functions' values. Where two operands of one operation
//   can both be NaN (fp8, nvfp4, mxfp8), the reference itself fills the table
//   by dequantizing a small probe layer that holds every combination once:
//   x86 returns the first operand's NaN, and only the reference's own code
//   fixes which that is. Elsewhere (int8, W4A4, AWQ: an integer code times a
//   scale) the table is the reference's expression with the same rounding
//   function, and an AWQ group whose scale and zero could both give NaN is
//   probed;
// - the ConvRot un-rotation is hadamard_block (src/numerics/hadamard_fast.hpp).
#pragma once

#include "spec/numerics/dequant.hpp"

namespace safespec::numerics {

// threads: 0 for the hardware's concurrency; rows are split between them.
Result<deq::Mat<float>> dequant_fp8_fast(const deq::Fp8Weight& w, Dtype t, unsigned threads = 0);
Result<deq::Mat<float>> dequant_int8_fast(const deq::Int8Weight& w, Dtype t, unsigned threads = 0);
Result<deq::Mat<float>> dequant_convrot_w4a4_fast(const deq::W4a4Weight& w, Dtype t, unsigned threads = 0);
Result<deq::Mat<float>> dequant_nvfp4_fast(const deq::Nvfp4Weight& w, Dtype t, unsigned threads = 0);
Result<deq::Mat<float>> dequant_mxfp8_fast(const deq::Mxfp8Weight& w, Dtype t, unsigned threads = 0);
Result<deq::Mat<float>> dequant_awq_w4a16_fast(const deq::AwqWeight& w, unsigned threads = 0);

}  // namespace safespec::numerics
