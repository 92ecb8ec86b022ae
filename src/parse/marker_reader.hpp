// Reading the bytes of a model's marker tensors (P.comfy_quant), bounded by
// kMaxMarkerBytes each, for the quantized-layer spec.
#pragma once

#include <string>
#include <vector>

#include "spec/model.hpp"
#include "spec/quant/checkpoint.hpp"
#include "src/io/byte_file.hpp"

namespace safespec {

// Whether any tensor's name ends in ".comfy_quant".
bool has_marker_tensor(const Model& model);

// Every tensor whose name ends in ".comfy_quant", sorted by name (the order
// safe_open.keys() gives sglang, S6). A marker whose data is larger than the
// bound or not inside the file is listed with read = false.
Result<std::vector<quant::MarkerBytes>, IoError> read_markers(const ByteFile& file, const Model& model);

// The same from a whole file in memory (fuzzers, tests).
std::vector<quant::MarkerBytes> read_markers(std::span<const std::uint8_t> file, const Model& model);

}  // namespace safespec
