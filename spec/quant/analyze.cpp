#include "spec/quant/analyze.hpp"

namespace safespec::quant {

Analysis analyze(std::span<const CheckpointFile>, const TensorData*) { return {}; }

}  // namespace safespec::quant
