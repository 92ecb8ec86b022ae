// A synthetic header shaped like a large checkpoint's, for the benchmark and
// the memory-bound test: names like model.layers.12.mlp.experts.3.w2.weight,
// BF16 matrices and F32 vectors, offsets assigned in the writer's order (W1,
// W2), so the header is exactly what the canonical writer would emit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "spec/model.hpp"

namespace safespec::gen {

Header synthetic_checkpoint(std::size_t tensors, std::size_t experts_per_layer);

struct SyntheticText {
  std::string text;         // canonical header, padded with spaces to a multiple of 8 (W5)
  std::uint64_t data_size;  // the byte buffer the offsets describe
};

SyntheticText synthetic_checkpoint_text(std::size_t tensors, std::size_t experts_per_layer);

}  // namespace safespec::gen
