// Small quantized checkpoints written by safespec's own writer: one valid
// layer per comfy_quant format and broken ones named after the rule they
// break (corpus/examples/quant/), and the checkpoint fuzzer's seeds.
// Deterministic: tensor bytes are simple patterns, scales positive finite.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/corpus_seeds.hpp"

namespace safespec::tools {

struct QuantExample {
  std::string name;  // file name under examples/quant/
  std::vector<std::uint8_t> bytes;
  // Every rule `safespec check --data` reports for the file alone, by name,
  // sorted, each once; empty for a file valid for every consumer.
  std::vector<std::string> rules;
  // Whether safetensors, sglang, ComfyUI and comfy-kitchen load it (kConsumers order).
  std::array<bool, 4> loads{true, true, true, true};
};

std::vector<QuantExample> quant_examples();

// Whole checkpoints for checkpoint_fuzzer: every quant example, the other
// shapes of a format (int8 tensor-wise scalar, metadata-declared layers) and
// checkpoints that break the marker, metadata and layer rules.
std::vector<NamedFile> checkpoint_seeds();

}  // namespace safespec::tools
