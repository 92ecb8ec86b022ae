#include "spec/quant/markers.hpp"

namespace safespec::quant {

Collected collect_markers(std::span<const CheckpointFile>, const TensorTable&, Sink&) { return {}; }

}  // namespace safespec::quant
