// What `safespec linear` and `safespec dequant` share between their files:
// the input activations, the output and dump writers, and each format's
// linear path, which the numerics table (format_numerics.hpp) names.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "spec/numerics/float_type.hpp"
#include "src/commands/command_outcome.hpp"
#include "src/commands/linear.hpp"
#include "src/parse/layer_io.hpp"

namespace safespec {

// A layer that cannot be read is refused (exit 1) or a usage error (exit 2).
CommandOutcome outcome_of(const LayerError& e);
// The reference's own refusal of the layer's values.
CommandOutcome refused(const std::string& layer, const Error& e);
std::string dims(std::uint64_t a, std::uint64_t b);

// Values as safetensors stores them: little-endian.
template <class V>
std::vector<std::uint8_t> le_bytes(std::span<const V> values) {
  std::vector<std::uint8_t> out(values.size() * sizeof(V));
  if constexpr (std::endian::native == std::endian::little) {
    // The host's bytes are already safetensors' order.
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  } else {
    using U = std::conditional_t<sizeof(V) == 1, std::uint8_t,
                                 std::conditional_t<sizeof(V) == 4, std::uint32_t, std::uint64_t>>;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const U u = std::bit_cast<U>(values[i]);
      for (std::size_t b = 0; b < sizeof(V); ++b) out[i * sizeof(V) + b] = static_cast<std::uint8_t>(u >> (8 * b));
    }
  }
  return out;
}

NamedTensor float_tensor(std::string name, numerics::FloatType t, std::vector<std::uint64_t> shape,
                         std::span<const float> v);

// x [M, K]: a safetensors tensor or an .npy array, as binary32 values of T.
struct LinearInput {
  numerics::FloatType t = numerics::FloatType::BF16;
  std::uint64_t m = 0, k = 0;
  std::vector<float> values;
};
LayerResult<LinearInput> read_linear_input(const std::string& path, const std::string& tensor,
                                           std::optional<numerics::FloatType> declared);

// A safetensors file of the views, their bytes written where they lie.
std::optional<std::string> write_views(const std::string& path, std::vector<TensorView> views);
// One file per tensor in `dir` (created if missing): what --dump writes.
std::optional<std::string> dump_views(const std::string& dir, const std::vector<TensorView>& tensors);
// y to --out and the intermediates to --dump.
CommandOutcome finish(const LinearRequest& r, const NamedTensor& y, const std::vector<NamedTensor>& intermediates);

// Each format's linear, for the numerics table's linear column.
CommandOutcome linear_w4a8(const LinearRequest& r, const CheckpointReader& c, const quant::Layer& l, const LinearInput& x);
CommandOutcome linear_int8(const LinearRequest& r, const CheckpointReader& c, const quant::Layer& l, const LinearInput& x);
CommandOutcome linear_w4a4(const LinearRequest& r, const CheckpointReader& c, const quant::Layer& l, const LinearInput& x);
CommandOutcome linear_svdquant(const LinearRequest& r, const CheckpointReader& c, const quant::Layer& l,
                               const LinearInput& x);
// W4A8's dequant written a block of rows at a time (the numerics table's
// write_dequant column).
CommandOutcome dequant_w4a8_streamed(const DequantRequest& r, const CheckpointReader& c, const quant::Layer& l);

}  // namespace safespec
