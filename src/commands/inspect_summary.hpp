// `safespec inspect`'s summary of a checkpoint (one file, or an index's
// shards): parameters and bytes per dtype, tensors grouped by layer prefix,
// each quantized layer with its format, group sizes, marker site and what
// each consumer does with it, and the __metadata__ keys. Built from the
// headers, the quantized-layer markers and the checkpoint's check (header
// rules only: the value rules of `check --data` are not run).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spec/finding.hpp"
#include "spec/model.hpp"
#include "src/commands/check.hpp"

namespace safespec {

// A sum of element or byte counts; nullopt once it overflows 64 bits (a
// hostile shape), so it is never printed wrapped.
using Total = std::optional<std::uint64_t>;

struct DtypeTotal {
  Dtype dtype;
  std::uint64_t tensors = 0;
  Total parameters = 0;
  Total bytes = 0;
};

// Tensors whose names share everything before the last '.' ("" for names
// without one), in order of first appearance.
struct TensorGroup {
  std::string prefix;
  std::vector<std::string> suffixes;  // what follows the prefix and its '.'
  Total parameters = 0;
  Total bytes = 0;
};

// What one consumer does with one quantized layer.
struct LayerConsumer {
  Consumer consumer;
  // "rejects" or "mis-loads" (a finding at the layer or its tensors says so),
  // "loads" (no finding at the layer stops it and the checkpoint loads), or
  // "not reached" (no finding at the layer, but the consumer rejects the
  // checkpoint for another reason before or instead of using it).
  std::string verdict;
  std::string rule;     // the finding's rule, for rejects and mis-loads
  std::string error;    // rejects: the exception; not reached: the checkpoint's
  std::string message;  // the exact message of that error
  std::string config;   // sglang, when it loads: the config its resolution picks
  // What the verdict rests on: sglang's assumed layer kind ("embedding" when
  // --layer would settle it), or what was not checked.
  std::vector<std::string> assumes;
  std::vector<std::string> unchecked;
};

struct QuantLayerSummary {
  std::string prefix;
  std::string format;  // str(marker.get("format")): "None" when absent
  std::string site;    // "tensor", "metadata" or "quant_format"
  std::string marker;  // where, readable: "tensor 'P.comfy_quant'", "__metadata__['_quantization_metadata'] layers 'P'"
  std::string file;    // the file that declared it
  // group_size and convrot_groupsize as the marker states them (Python repr;
  // "(in params)" when only the legacy params object has it); absent keys
  // take the format's default.
  std::vector<std::pair<std::string, std::string>> group_sizes;
  std::vector<LayerConsumer> consumers;  // sglang, comfyui, kitchen
  std::string marker_value;              // the marker as Python's repr (diff compares it)
  // The layer's logical size (spec/quant/logical_size.hpp): its format's
  // packing ("nibbles"; "" for a format no consumer knows), the [N, K] its
  // weight stands for or why there is none, N * K, and the bytes of its
  // tensors (the format's, P.bias and the marker tensor).
  std::string packing;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> logical_shape;
  std::string logical_shape_error;
  Total logical_parameters;
  Total stored_bytes;
};

// A consumer's verdict on the whole checkpoint: it loads when it loads every
// file; otherwise the first rejection in the order check lists the files,
// with the finding that carries it.
struct CheckpointVerdict {
  Consumer consumer;
  bool loads = true;
  std::string error, message;
  std::string config;                  // sglang, when it loads a quantized checkpoint
  std::string rule, where;             // the finding behind the rejection, when one carries it
  std::vector<std::string> mis_loads;  // rule ids it loads silently wrong
  std::vector<std::string> assumes;    // as LayerConsumer's, when it loads
  std::vector<std::string> unchecked;
};

struct InspectSummary {
  std::uint64_t tensors = 0;
  Total parameters = 0;  // elements as stored: a packed int4 byte counts once
  Total bytes = 0;
  // `parameters` with each quantized weight's stored elements replaced by its
  // logical N * K (a layer without one keeps its stored count); and the bytes
  // of the quantized layers. Both null when the markers could not be read.
  Total logical_parameters = 0;
  Total quantized_bytes = 0;
  std::vector<DtypeTotal> dtypes;  // in dtype_table() order, only those present
  std::vector<TensorGroup> groups;
  std::vector<QuantLayerSummary> layers;
  std::vector<CheckpointVerdict> verdicts;  // every consumer, kConsumers order
  // When the check could not judge the checkpoint: why (no consumer column then).
  std::string check_error;
  std::vector<std::string> metadata_keys;  // every file's, in order, each once
};

struct SummaryFile {
  std::string path;
  const Model* model = nullptr;  // never null
};

// The files of one checkpoint, in the order inspect lists them, and their
// check (check_paths of the file, or of the index: FileReport::path names
// each file as `files` does).
InspectSummary summarize(const std::vector<SummaryFile>& files, const std::vector<FileReport>& reports);

std::string render_summary_text(const InspectSummary& s, bool verbose = false);
std::string render_summary_json(const InspectSummary& s);

}  // namespace safespec
