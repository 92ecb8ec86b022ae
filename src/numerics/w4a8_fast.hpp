// The fast W4A8 linear: the same function as the reference `w4a8_linear`
// (spec/numerics/w4a8_reference.hpp), bit for bit, for every layer, input and
// option (a NaN is a NaN: its sign and payload are unspecified, §1.1, and
// even the reference's depend on its compiler's operand order). The
// reference stays the definition; this is what runs on real layer sizes.
//
// How it stays identical:
// - the per-element steps (weight decode, amax, scales, activation
//   quantization, epilogues, the eager weight rotation) call the reference's
//   step functions;
// - the cuda butterflies (cuda.3) are the reference's operations in the same
//   order, done in place;
// - the eager rotation (eager.2) and the cuda correction (cuda.10) are
//   correctly rounded exact sums: summed in binary64 where a bound on the
//   terms' bit span proves every partial sum exact, rounded once to T; any
//   block or output outside that bound goes through the reference's ExactSum
//   (the rotation: src/numerics/hadamard_fast.hpp);
// - cuda.7 / eager.7 is the blocked int8 GEMM (exact int32 arithmetic, so
//   any order is the reference's order).
// The eager path with a correction tensor (eager.C1-C4, unquantized) is the
// reference itself: it is rare and its F.linear is an exact-sum model.
#pragma once

#include "spec/numerics/w4a8_reference.hpp"
#include "src/numerics/int8_gemm.hpp"

namespace safespec::numerics {

struct W4a8FastConfig {
  unsigned threads = 0;  // 0: hardware concurrency
  GemmKernel kernel = GemmKernel::Auto;
};

Result<W4a8Output> w4a8_linear_fast(const W4a8Layer& layer, const Activations& x, const W4a8Options& options = {},
                                    const W4a8FastConfig& config = {});

// W4A8.1 for the whole weight, wq [N, K], rows split over `threads`:
// decode_weight's values (decode_weight_element behind a per-scale cache).
void decode_weights(const W4a8Layer& layer, std::vector<std::int8_t>& wq, unsigned threads);
// Rows [n0, n1) of it into wq [n1 - n0, K], on the calling thread.
void decode_weight_rows(const W4a8Layer& layer, std::size_t n0, std::size_t n1, std::int8_t* wq);

// T(e) for a binary64 value e, one round-to-nearest-even (overflow to ±inf,
// sign of zero kept): what ExactSum::rounded gives for a sum equal to e.
float round_double_to(FloatType t, double e);

}  // namespace safespec::numerics
