// Any bytes as a model.safetensors.index.json: refusals are ST-INDEX-JSON
// errors with a place; an accepted index re-serializes canonically to itself
// and, with its shards built in memory, check_index finds exactly what each
// planted fault predicts (src/oracles/oracles_index.hpp, index_breaks_laws).
#include <cstdio>
#include <cstdlib>

#include "src/oracles/oracles_index.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (auto why = safespec::index_breaks_laws({data, size})) {
    std::fprintf(stderr, "index_fuzzer: %s\n", why->c_str());
    std::abort();
  }
  return 0;
}
