// The logical size of a quantized layer: the [N, K] matrix its stored weight
// stands for, its N * K values, and the bytes its tensors take. Counting
// stored elements counts a packed int4 byte once where it holds two weights,
// so a checkpoint's parameter count is wrong by the packing of each layer;
// this is the count that knows the packing (inspect reports both).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "spec/quant/formats.hpp"
#include "spec/result.hpp"

namespace safespec::quant {

struct Layer;
class TensorTable;

struct LogicalShape {
  std::uint64_t n = 0;  // output features: the weight's rows
  std::uint64_t k = 0;  // input features: what a GEMM reduces over
  friend bool operator==(const LogicalShape&, const LogicalShape&) = default;
};

// "plain", "nibbles", "bits6", "tile_packed4": the packing as inspect's JSON names it.
std::string_view packing_name(WeightPacking p);

// The logical K of a weight stored as `shape` under `p`, as the int32 K
// bounds read it: the last dimension of a weight of rank 2 or more (rank 4
// for TilePacked4); nullopt when the rank does not fit, the bytes are not a
// whole number of codes, or K passes 2^64.
std::optional<std::uint64_t> logical_k(WeightPacking p, std::span<const std::uint64_t> shape);
// The same K in decimal, exact also past 2^64 (as Python computes it); ""
// when the rank does not fit or the bytes are not a whole number of codes.
std::string logical_k_text(WeightPacking p, std::span<const std::uint64_t> shape);

// [N, K] of a weight stored as `shape` under `p`, or why there is none (a
// rank other than the layout's, a dimension that passes 2^64).
Result<LogicalShape, std::string> logical_shape(WeightPacking p, std::span<const std::uint64_t> shape);

struct LayerSize {
  Result<LogicalShape, std::string> shape = std::string("no weight");
  std::optional<std::uint64_t> parameters;      // N * K; nullopt without a shape or past 2^64
  std::optional<std::uint64_t> stored_weight;   // the weight's elements as stored; nullopt without one
  // The bytes of P.<suffix> for every suffix of the format's row, P.bias and
  // P.comfy_quant, those present (shape times dtype, F9-F11, the bytes a
  // valid file's offsets span); nullopt past 2^64 or when one has no size.
  std::optional<std::uint64_t> stored_bytes;
};

// The size of layer `l` read as format `f` over the checkpoint's tensors.
LayerSize layer_size(const Layer& l, const TensorTable& t, const FormatSpec& f);

}  // namespace safespec::quant
