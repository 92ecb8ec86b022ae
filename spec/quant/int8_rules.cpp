// The int8 layer rules (comfy-quant-markers.md §2.2, §3, §4, §5).
#include "spec/quant/layer.hpp"

namespace safespec::quant {

void check_int8_layer(const Layer&, const TensorTable&, Sink&) {}

}  // namespace safespec::quant
