// Any bytes as a small W4A8 layer, input, options and fast-path configuration
// (quant-numerics.md §5; scales, codebook, correction, bias and x of any bit
// pattern): the fast path equals the reference bit for bit
// (src/oracles/oracles_w4a8.hpp, w4a8_fast_differs).
#include <cstdio>
#include <cstdlib>

#include "src/oracles/oracles_w4a8.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (auto why = safespec::w4a8_fast_differs({data, size})) {
    std::fprintf(stderr, "linear_fuzzer: %s\n", why->c_str());
    std::abort();
  }
  return 0;
}
