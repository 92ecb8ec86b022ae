// The opt-in data checks (`safespec check --data`): rules that read tensor
// bytes. Header-level verdicts never depend on them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "spec/result.hpp"

#include "spec/quant/layer.hpp"

namespace safespec::quant {

// Tensor bytes on demand, streamed. src/ implements it over the files; tests
// over memory. scan() hands the tensor's bytes to `chunk` in order, in
// pieces whose sizes are multiples of kDataChunkAlign except the last, so no
// element of any dtype (at most 8 bytes) is split between two pieces; a
// piece is valid only during its call. It returns ok once every byte was
// handed over, or why the bytes were not read (outside the file, an I/O
// error, a bound of src/), in words: the rules then discard what they saw of
// it, skip the tensor and list it as unchecked. Holding one piece at a time
// is what lets --data read a checkpoint of any size in bounded memory.
inline constexpr std::size_t kDataChunkAlign = 8;
using TensorChunk = std::function<void(std::span<const std::uint8_t>)>;
using TensorScan = Result<Unit, std::string>;

class TensorData {
 public:
  virtual ~TensorData() = default;
  virtual TensorScan scan(const TensorRef& t, const TensorChunk& chunk) const = 0;
  // Runs job(0) .. job(n - 1), each once, in any order, and returns when all
  // have run. An implementation whose scan() may be called concurrently runs
  // them on several threads; the default runs them in order on this one.
  // analyze() gives each job its own sink and merges them in layer order, so
  // the findings do not depend on how the jobs were run.
  virtual void run_jobs(std::size_t n, const std::function<void(std::size_t)>& job) const {
    for (std::size_t i = 0; i < n; ++i) job(i);
  }
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
