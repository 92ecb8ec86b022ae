// Reading tensor bytes for the --data rules (spec/quant/data_rules.hpp).
#pragma once

#include <memory>
#include <span>

#include "spec/quant/checkpoint.hpp"
#include "spec/quant/data_rules.hpp"

namespace safespec {

// A TensorData over the checkpoint's files on disk (placeholder until the
// bounded reader lands: reads nothing).
std::unique_ptr<quant::TensorData> make_tensor_data(std::span<const quant::CheckpointFile> files);

}  // namespace safespec
