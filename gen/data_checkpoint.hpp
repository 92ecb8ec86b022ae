// A checkpoint for the --data rules at any size: many marked layers of every
// format whose value rules read bytes (int8_tensorwise, asym_w4a8_int8,
// convrot_w4a4, nvfp4, mxfp8, float8_e4m3fn), some with bad values placed
// three quarters into a tensor. Written as it is generated, never held whole,
// so the benchmark's 4 GB file costs a few MiB of memory (bench/bench_data.cpp);
// the tests use the same layers at a few KiB each
// (props/unit_quant_data_stream_test.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "spec/result.hpp"
#include "src/io/byte_file.hpp"

namespace safespec::gen {

struct DataCheckpoint {
  std::uint64_t layers = 16;
  // Each layer's weight is N x K; N a multiple of 128 and K of 256 keep every
  // block-scale matrix unpadded and every group whole.
  std::uint64_t n = 128;
  std::uint64_t k = 256;
  // Layer i has bad values when i % bad_every == bad_every - 1 (0: none).
  std::uint64_t bad_every = 0;
};

// Writes the checkpoint to `path`; its size in bytes.
Result<std::uint64_t, IoError> write_data_checkpoint(const std::string& path, const DataCheckpoint& spec);

}  // namespace safespec::gen
