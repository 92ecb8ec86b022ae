// The opt-in data checks (`safespec check --data`): rules that read tensor
// bytes. Header-level verdicts never depend on them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "spec/result.hpp"

#include "spec/quant/layer.hpp"

namespace safespec::quant {

// Tensor bytes on demand. src/ implements it over the files; tests over
// memory. An error: why the bytes were not read (over src/'s bounds, outside
// the file, an I/O error), in words; the data rules then skip that tensor and
// list it as unchecked. The span stays valid until the next call of bytes():
// the rules scan one tensor at a time, so an implementation need hold only
// the latest one.
using TensorBytes = Result<std::span<const std::uint8_t>, std::string>;

class TensorData {
 public:
  virtual ~TensorData() = default;
  virtual TensorBytes bytes(const TensorRef& t) const = 0;
};

// Each format's data rules, the data_rules column of its row (formats.cpp).
void data_fp8(const LayerCheck& c, const TensorData& data);
void data_nvfp4(const LayerCheck& c, const TensorData& data);
void data_mxfp8(const LayerCheck& c, const TensorData& data);
void data_int8(const LayerCheck& c, const TensorData& data);
void data_w4a4(const LayerCheck& c, const TensorData& data);
void data_w4a8(const LayerCheck& c, const TensorData& data);

// NUM-K-INT32-OVERFLOW: header-level (it needs K only), for every layer of a
// format with a k_bound; the bounds per format (quant-numerics.md §5.3, §6.2,
// §6.3, §7.1):
void check_layer_k_bound(const LayerCheck& c);
std::optional<KBound> k_bound_int8(const LayerCheck& c);
std::optional<KBound> k_bound_w4a8(const LayerCheck& c);
std::optional<KBound> k_bound_w4a4(const LayerCheck& c);

// The largest K for which an int32 accumulator of K products, each between
// -neg and +pos, cannot overflow: min((2^31 - 1) / pos, 2^31 / neg).
constexpr std::uint64_t int32_k_bound(std::uint64_t pos, std::uint64_t neg) {
  const std::uint64_t up = 2147483647u / pos;
  const std::uint64_t down = 2147483648u / neg;
  return up < down ? up : down;
}

}  // namespace safespec::quant
