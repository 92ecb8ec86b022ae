// The W4A8 weight in the original basis (quant-numerics.md §5.10) at the
// speed of the fast linear, bit for bit the references':
// - w4a8_dequant_fast is w4a8_dequant (`safespec dequant`: eager.C2-eager.C3
//   with T = F32);
// - w4a8_ideal_fast is w4a8_ideal (`linear --dump`'s y_ideal: the binary64
//   float reference, every dot product summed in the reference's order).
//
// How they stay identical: W4A8.1 is the fast path's decoder (the reference's
// step function behind a cache); each weight element is the reference's
// expression; the un-rotation is src/numerics/hadamard_fast.hpp (exact
// butterflies, or the reference's own rotation for a block outside their
// bound); y_ideal's sums run in the reference's order, one sequential
// binary64 chain per output, several chains side by side in vector lanes
// (element-wise IEEE operations: the scalar operations' bits).
#pragma once

#include <span>
#include <vector>

#include "spec/numerics/w4a8_reference.hpp"
#include "src/numerics/w4a8_fast.hpp"

namespace safespec::numerics {

Result<std::vector<float>> w4a8_dequant_fast(const W4a8Layer& layer, const W4a8FastConfig& config = {});

// w4a8_dequant_fast a block of rows at a time, so a writer streams a layer
// without holding it whole (a 4096 x 14336 layer is 235 MB of F32, and the
// page faults of a buffer that size cost more than computing it): make()
// validates once, as w4a8_dequant_fast does; rows(n0, n1, out) fills out
// [(n1 - n0) * K] with rows [n0, n1) of w4a8_dequant_fast's matrix, bit for
// bit (w4a8_dequant_fast is rows(0, N)). The layer must outlive it.
class W4a8DequantRows {
 public:
  static Result<W4a8DequantRows> make(const W4a8Layer& layer, const W4a8FastConfig& config = {});
  // False, and nothing written, when [n0, n1) is not rows of the layer or
  // out is too small for them.
  [[nodiscard]] bool rows(std::size_t n0, std::size_t n1, std::span<float> out) const;

 private:
  W4a8DequantRows(const W4a8Layer& layer, unsigned threads) : layer_(&layer), threads_(threads) {}
  const W4a8Layer* layer_;
  unsigned threads_;
};

// `decoded`: decode_weight(layer) [N, K] when the caller has it (a traced
// call's wq), to skip W4A8.1; empty (or of another size): decoded here.
Result<std::vector<double>> w4a8_ideal_fast(const W4a8Layer& layer, const Activations& x,
                                            const W4a8FastConfig& config = {},
                                            std::span<const std::int8_t> decoded = {});

}  // namespace safespec::numerics
