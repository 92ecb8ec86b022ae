// Any bytes as a safetensors file: if they parse, the canonical writer's
// output parses back to the same model (src/oracles/oracles.hpp).
#include <cstdio>
#include <cstdlib>

#include "src/oracles/oracles.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static safespec::HeaderParser parser;
  if (auto why = safespec::roundtrip_fails({data, size}, parser)) {
    std::fprintf(stderr, "header_fuzzer: round trip broken: %s\n", why->c_str());
    std::abort();
  }
  return 0;
}
