// Test vectors for chosen shapes: one layer (asym_w4a8_int8 at 4 or 6 bits,
// or svdquant_w4a4), an input and the reference outputs, in the layout of
// corpus/vectors/ (one folder: layer.safetensors, x.safetensors,
// y_eager.safetensors and, for a W4A8 layer with C = 256, y_cuda.safetensors). tools/make_vectors writes the golden vectors with it
// and `safespec vectors` writes one for a kernel author's own shapes, so both
// are replayed by `conformance numeric` the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "spec/numerics/float_type.hpp"
#include "spec/result.hpp"

namespace safespec {

enum class VectorFormat : unsigned char { W4a8, Svdquant };

struct VectorSpec {
  VectorFormat format = VectorFormat::W4a8;
  std::size_t m = 0, n = 0, k = 0;
  numerics::FloatType dtype = numerics::FloatType::BF16;  // x's (and a W4A8 y's)
  bool bias = false;
  // asym_w4a8_int8 only (an svdquant_w4a4 vector ignores them):
  std::size_t group_size = 16;          // G
  std::size_t convrot_groupsize = 256;  // C
  bool codebook = false, correction = false;
  // 6: W6A8 storage (weight [N, 3K/4], uniform codes - 32), which needs
  // K % 32 == 0, G a multiple of 16 and no codebook or correction.
  std::size_t bits = 4;
  // The golden vectors make every third one's last row zero, the case where
  // eager replaces a zero scale; a chosen-shape vector has no such row.
  bool zero_last_row = false;
  // svdquant_w4a4 only: the tile-packed layout ("layout":
  // "kitchen_tile_packed_w4a4") rather than the natural one, and R, the rank
  // of the low-rank branch proj_up @ proj_down^T.
  bool tile_packed = false;
  std::size_t rank = 4;
  std::uint64_t seed = 0;
  std::string layer = "lin";  // the layer prefix (marker LAYER.comfy_quant)
};

// Why the spec cannot make a vector, naming the option at fault as
// `safespec vectors` spells it ("--k: expected ..., found ..."); nullopt when
// it can. Checks §5.1's shape rules and keeps every tensor within
// kMaxVectorValues, so a typo cannot ask for terabytes.
std::optional<std::string> vector_spec_error(const VectorSpec& s);

struct WrittenVector {
  std::vector<std::string> outputs;  // "y_eager", then "y_cuda" when a W4A8 layer has C = 256
};

// Writes the vector into `dir` (created if missing; its files replaced).
// Every value comes from splitmix64 of the seed through exact binary32
// arithmetic, so the bytes are the same on every machine. An error message
// (argument or I/O) on failure.
Result<WrittenVector, std::string> write_vector(const std::filesystem::path& dir, const VectorSpec& s);

}  // namespace safespec
