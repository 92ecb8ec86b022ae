// The packing_of column of asym_w4a8_int8 (formats.cpp): 4 or 6 bits, read
// from the widths as comfy-kitchen reads them (w4a8_geometry.hpp), with
// sglang's int(group_size), the row's default. A layer whose group size does not
// read as a positive int keeps the 4-bit reading.
#include "spec/quant/layer.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quant/w4a8_geometry.hpp"

namespace safespec::quant {

WeightPacking w4a8_packing(const Layer& l, const TensorTable& t) {
  const TensorRef* w = t.find(tensor_name(l, "weight"));
  const TensorRef* s_rel = t.find(tensor_name(l, "weight_s_rel"));
  const auto g = int_of(*l.marker, "group_size", marker_defaults(QuantFormat::W4a8).group_size);
  const auto gi = g.ok() ? as_int64(g.value()) : std::nullopt;
  if (!w || !s_rel || !gi || *gi <= 0) return WeightPacking::Nibbles;
  return six_bit_k(w->entry->shape, s_rel->entry->shape, static_cast<std::uint64_t>(*gi)) ? WeightPacking::Bits6
                                                                                          : WeightPacking::Nibbles;
}

}  // namespace safespec::quant
