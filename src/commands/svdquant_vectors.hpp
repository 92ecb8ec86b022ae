// svdquant_w4a4 test vectors (vectors.hpp's VectorSpec with format
// Svdquant): a layer in the natural or the tile-packed layout, an input x
// [M, K] in the spec's dtype, and y_eager.safetensors, the F32 y [M, N] of
// deq::linear_svdquant_w4a4, what `safespec linear` writes for such a layer.
// The reference has one semantics (comfy-quants' reference linear; the fused
// runtime's int4 activations are not modelled), so there is no y_cuda: a
// CUDA W4A4 kernel is not expected to match it bit for bit.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "spec/result.hpp"
#include "src/commands/vectors.hpp"

namespace safespec {

// Why the spec cannot make an svdquant_w4a4 vector, naming the option at
// fault; nullopt when it can. K a multiple of 64 (the scale's group), N a
// multiple of 128 when tile-packed (the tile's rows), R at least 1, and every
// tensor within what linear reads.
std::optional<std::string> svdquant_vector_error(const VectorSpec& s);

// Writes it into `dir`, as write_vector does. The values are generated in the
// natural layout and then tiled, so the two layouts of one seed and shapes
// hold the same layer and give the same y.
Result<WrittenVector, std::string> write_svdquant_vector(const std::filesystem::path& dir, const VectorSpec& s);

}  // namespace safespec
