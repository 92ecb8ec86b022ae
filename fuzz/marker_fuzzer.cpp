// Any bytes as a comfy_quant marker: as a P.comfy_quant tensor, as the
// _quantization_metadata string, and as both at once, the analysis keeps its
// laws (src/oracles/oracles.hpp, marker_analysis_fails).
#include <cstdio>
#include <cstdlib>

#include "src/oracles/oracles.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (auto why = safespec::marker_analysis_fails({data, size})) {
    std::fprintf(stderr, "marker_fuzzer: %s\n", why->c_str());
    std::abort();
  }
  return 0;
}
