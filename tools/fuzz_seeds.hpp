// Seeds of the roundtrip and index fuzzers, written by make_corpus
// into corpus/roundtrip_fuzzer/ and corpus/index_fuzzer/.
#pragma once

#include <vector>

#include "tools/corpus_seeds.hpp"

namespace safespec::tools {

// FuzzedDataProvider streams for fuzz/roundtrip_fuzzer.cpp: deterministic
// pseudo-random bytes of several lengths (each a different model: the
// provider reads choices from the end and tensor bytes from the front), and
// the regression inputs of crashes found.
std::vector<NamedFile> roundtrip_seeds();

// model.safetensors.index.json texts: as transformers writes them, with
// escapes, without metadata, and each way parse_shard_index refuses one.
std::vector<NamedFile> index_seeds();

}  // namespace safespec::tools
