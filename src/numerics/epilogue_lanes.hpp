// cuda.8-cuda.9 (quant-numerics.md §5.3) for one output row of the fast
// W4A8 path, twice: the portable loop (epilogue_cuda with CudaF32's
// operations inlined, the definition) and 16 AVX-512 lanes that must give
// its bits for every input (props/prop_w4a8_lanes_test.cpp runs both on
// every bit-pattern class, both flushes, with and without bias and fma).
#pragma once

#include <cstdint>
#include <span>

#include "spec/numerics/float_type.hpp"

namespace safespec::numerics {

struct EpilogueRow {
  std::span<const std::int32_t> acc;  // cuda.7's sums for this row, [N]
  float xs = 0;                       // the row's activation scale (cuda.5)
  std::span<const float> s_channel;   // [N]
  const float* bias = nullptr;        // [N], or none
  bool fma = true;                    // W4a8Options::cuda_fma_epilogue
  bool flush = true;                  // W4a8Options::cuda_flush_subnormals
  FloatType to = FloatType::BF16;     // T_o
};

// y[n] = T_o(epilogue_cuda(acc[n], xs, s_channel[n], bias[n])) for n < acc.size().
void epilogue_cuda_portable(const EpilogueRow& row, std::span<float> y);

// The same in 16 lanes. False, with y unspecified, where this CPU lacks
// AVX-512F, T_o is F16, or some output is NaN (a NaN's bits are the portable
// loop's to give): the caller then runs epilogue_cuda_portable.
bool epilogue_cuda_avx512(const EpilogueRow& row, std::span<float> y);

}  // namespace safespec::numerics
