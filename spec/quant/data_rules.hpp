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

// Every data rule for one layer, dispatched on l.format.
void check_layer_data(const Layer& l, const TensorTable& t, const TensorData& data, Sink& out);

// NUM-K-INT32-OVERFLOW: header-level (it needs K only), run for every layer.
void check_layer_k_bound(const Layer& l, const TensorTable& t, Sink& out);

// The largest K for which an int32 accumulator of K products, each between
// -neg and +pos, cannot overflow: min((2^31 - 1) / pos, 2^31 / neg).
constexpr std::uint64_t int32_k_bound(std::uint64_t pos, std::uint64_t neg) {
  const std::uint64_t up = 2147483647u / pos;
  const std::uint64_t down = 2147483648u / neg;
  return up < down ? up : down;
}

}  // namespace safespec::quant
