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

// Wall seconds of one call's phases, for bench/bench_w4a8: the fast path
// reads the clock only when W4a8FastConfig::phases points at one of these,
// so an ordinary call pays one null test per phase. `quantize` is cuda.2 -
// cuda.6 / eager.2 - eager.6; `gemm` includes its operand packing;
// `epilogue` is cuda.8 - cuda.10 / eager.8 - eager.9.
struct W4a8PhaseTimes {
  double validate = 0, decode = 0, quantize = 0, gemm = 0, epilogue = 0;
};

struct W4a8FastConfig {
  unsigned threads = 0;  // 0: hardware concurrency
  // Also picks the lane width of validation, decode, activation
  // quantization and the epilogue (Scalar: the portable loops, the rotation
  // in SSE as with vector_lanes off; Avx2: AVX2 where the CPU has it; Auto
  // and Avx512Vnni: also the cuda.3 rotation and the cuda epilogue in
  // AVX-512 lanes where the CPU has AVX-512F), so a test can run each
  // against the other.
  GemmKernel kernel = GemmKernel::Auto;
  // False: the portable loops for those steps whatever the GEMM kernel, the
  // rotation in SSE (the bench's in-process baseline; a test's second path).
  bool vector_lanes = true;
  W4a8PhaseTimes* phases = nullptr;  // filled (overwritten) when set
};

Result<W4a8Output> w4a8_linear_fast(const W4a8Layer& layer, const Activations& x, const W4a8Options& options = {},
                                    const W4a8FastConfig& config = {});

// W4A8.1 for the whole weight, wq [N, K], rows split over `threads`:
// decode_weight's values (decode_weight_element behind a per-scale cache).
// `kernel` picks the lane width as W4a8FastConfig::kernel does.
void decode_weights(const W4a8Layer& layer, std::vector<std::int8_t>& wq, unsigned threads,
                    GemmKernel kernel = GemmKernel::Auto);
// Rows [n0, n1) of it into wq [n1 - n0, K], on the calling thread.
void decode_weight_rows(const W4a8Layer& layer, std::size_t n0, std::size_t n1, std::int8_t* wq,
                        GemmKernel kernel = GemmKernel::Auto);

// T(e) for a binary64 value e, one round-to-nearest-even (overflow to ±inf,
// sign of zero kept): what ExactSum::rounded gives for a sum equal to e.
float round_double_to(FloatType t, double e);

}  // namespace safespec::numerics
