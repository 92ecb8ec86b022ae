// Any bytes as a whole .safetensors checkpoint: every profile's report agrees
// with strict's findings and with each consumer's outcome (src/oracles/oracles.hpp,
// profiles_disagree).
#include <cstdio>
#include <cstdlib>

#include "src/oracles/oracles.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static safespec::HeaderParser parser;
  if (auto why = safespec::profiles_disagree({data, size}, parser)) {
    std::fprintf(stderr, "checkpoint_fuzzer: %s\n", why->c_str());
    std::abort();
  }
  return 0;
}
