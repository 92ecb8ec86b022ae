// Any bytes as a safetensors file: the header parser (src/parse/header_parser.hpp)
// and the reference reader agree on the model or on the first error (src/oracles/oracles.hpp).
#include <cstdio>
#include <cstdlib>

#include "src/oracles/oracles.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static safespec::HeaderParser parser;
  if (auto why = safespec::parsers_disagree({data, size}, parser)) {
    std::fprintf(stderr, "differential_fuzzer: %s\n", why->c_str());
    std::abort();
  }
  return 0;
}
