// The numerics column of the format table (spec/quant/formats.hpp): for each
// QuantFormat, how a layer's stored tensors become its F32 weight [N, K] and,
// where safespec models the kernel, its linear. It reads tensor bytes, so it
// lives here rather than in spec/, one row per QuantFormat in the enum's
// order; the compiler holds the two tables in step. `safespec dequant`,
// `safespec linear`, the C API's safespec_dequant_layer and the Python
// module all dispatch through it: nothing else branches on a format name.
#pragma once

#include <string>
#include <string_view>

#include "spec/numerics/matrix.hpp"
#include "spec/quant/formats.hpp"
#include "src/commands/linear.hpp"
#include "src/parse/layer_io.hpp"

namespace safespec {

struct LinearInput;

struct DequantOptions {
  // A W4A8 layer without weight_codebook decodes through kitchen's frozen
  // codebook (numerics::kW4a8FrozenCodebook) instead of uniform codes.
  bool frozen_codebook = false;
};

struct FormatNumerics {
  quant::QuantFormat format;
  // The layer's stored tensors through the format's reference dequantization
  // (the fast paths where they exist, bit-identical to it), as F32 [N, K].
  LayerResult<deq::Mat<float>> (*dequant)(const CheckpointReader&, const quant::Layer&, const DequantOptions&);
  // null: `safespec linear` does not model the format's kernel yet.
  CommandOutcome (*linear)(const LinearRequest&, const CheckpointReader&, const quant::Layer&, const LinearInput&);
  // null: `dequant` writes what `dequant` returns; else a writer that streams
  // the same bytes without holding the whole F32 matrix.
  CommandOutcome (*write_dequant)(const DequantRequest&, const CheckpointReader&, const quant::Layer&) = nullptr;
};

const FormatNumerics& format_numerics(quant::QuantFormat f);
// The row of the marker's format name, exactly; null for a name no row has.
const FormatNumerics* find_numerics(std::string_view format);
// The formats `linear` computes, comma-separated, for its error message.
std::string linear_formats();

// read_w4a8, and kitchen's frozen codebook where DequantOptions asks for it
// and the layer stores none (a usage error for a 6-bit layer, which takes no
// codebook).
LayerResult<numerics::W4a8Layer> read_w4a8_for(const CheckpointReader& c, const quant::Layer& l,
                                               const DequantOptions& o);

}  // namespace safespec
