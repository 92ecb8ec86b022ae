// Seeds of the roundtrip, index and npy fuzzers, written by make_corpus
// into corpus/roundtrip_fuzzer/, corpus/index_fuzzer/ and corpus/npy_fuzzer/.
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

// .npy files for fuzz/npy_fuzzer.cpp: one as numpy writes it, a version 2.0
// header in another key order, and one the reader refuses (Fortran order).
std::vector<NamedFile> npy_seeds();

}  // namespace safespec::tools
