// The quantization formats a "comfy_quant" marker can declare, as one table
// (formats.cpp): a format is a row, not a branch in every file that cares.
// Each row names the marker string, the format's tensors and their storage
// dtypes, what sglang does with it, and the functions that hold its rules.
// The dequantization of each format is the one column that reads tensor
// bytes, so it lives in src/ (src/commands/format_numerics.cpp), keyed by the same
// enum; the compiler holds the two in step (an array sized kQuantFormatCount).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "spec/dtype.hpp"
#include "spec/rule_catalogue.hpp"

namespace safespec::quant {

struct LayerCheck;
struct Layer;
class TensorTable;
class TensorData;

enum class QuantFormat : unsigned char { Fp8E4m3, Fp8E5m2, Nvfp4, Mxfp8, Int8, W4a4, W4a8, Awq, Svdquant };
inline constexpr std::size_t kQuantFormatCount = 9;

// One tensor of a layer, named by its suffix ("weight_scale" of "P.weight_scale").
struct FormatTensor {
  std::string_view suffix;
  bool required;  // sglang's S9.1 set where sglang validates, ComfyUI's C12 set otherwise
  bool typical;   // the format's exporter writes it by default
  Dtype dtype;    // what the format's exporter writes (comfy-quant-markers.md L10-L17)
  // A small shape that satisfies every consumer, for the fuzz oracles' plausible
  // layers; rank 0 is a scalar.
  std::size_t rank;
  std::uint64_t example[2];
  // The dtypes the numerics reader (src/parse/layer_readers.cpp) takes it in, in
  // the order its refusal names them; empty for a tensor it does not read.
  std::span<const Dtype> accepts = {};
};

// What int(marker.get(key, default)) gives a layer whose marker lacks the
// key: ComfyUI's default, and sglang's where sglang reads the key with one;
// 0 where the format reads no such key.
struct MarkerDefaults {
  std::int64_t group_size = 0;
  std::int64_t convrot_groupsize = 0;
};

// How a format's weight tensor holds its values, which turns the stored
// shape into the logical [N, K] (logical_size.hpp). A value per layout, not
// a flag, so a new layout is a new value and its formula in one place.
enum class WeightPacking : unsigned char {
  Plain,        // one stored element per weight value: [N, K]
  Nibbles,      // two 4-bit codes per byte along K: [N, K/2]
  Bits6,        // 6-bit codes packed along K: [N, K*6/8], K = bytes * 8 / 6
  TilePacked4,  // int4 tiles: [N/128, K/64, 32, 128], N = d0 * 128, K = d1 * 64
};

// The int32 accumulator bound of a format's integer GEMM (NUM-K-INT32-OVERFLOW):
// the largest logical K that cannot overflow, for the layer's marker.
struct KBound {
  std::uint64_t max_k;
  std::string_view gemm;  // "int8 x int8"
  std::string_view cite;  // quant-numerics.md section
};

struct FormatSpec {
  QuantFormat format;
  std::string_view name;  // the marker's "format" value
  // ComfyUI has the format in QUANT_ALGOS (C11): false for a format only a
  // producer and comfy-kitchen define, which ComfyUI refuses by name
  // (CQ-FORMAT-UNKNOWN) before any of the format's own rules.
  bool comfyui_registers;
  std::span<const FormatTensor> tensors;
  // CQ-WEIGHT-CAST: the weight dtypes that keep the stored bits through
  // ComfyUI's .to(torch dtype), and that torch dtype.
  std::span<const Dtype> weight_keeps;
  std::string_view comfy_torch_dtype;
  // The config sglang resolves a checkpoint of only this format to (S11), ""
  // when it refuses it; sglang runs the data of these formats.
  std::string_view sglang_config;
  bool sglang_validates;  // phase 3 (S9.0) checks the layer's tensors
  RuleId tensors_rule;    // the format's "required tensors missing" rule
  WeightPacking packing;  // how the weight's stored shape gives [N, K]
  MarkerDefaults defaults;
  // The format's rules over the header (one call per layer) and over tensor
  // values (--data); data is null for a format without value rules.
  void (*header_rules)(const LayerCheck&);
  void (*data_rules)(const LayerCheck&, const TensorData&);
  // null for a format without an integer GEMM.
  std::optional<KBound> (*k_bound)(const LayerCheck&);
  // Where one layer's packing is not the row's `packing` alone (a layout
  // key, a width that says 6 bits): that layer's packing; null otherwise.
  WeightPacking (*packing_of)(const Layer&, const TensorTable&) = nullptr;
};

std::span<const FormatSpec> all_formats();
const FormatSpec& format_spec(QuantFormat f);
// The row whose name is `name`, exactly; null for a format no consumer knows.
const FormatSpec* find_format(std::string_view name);
inline std::string_view format_name(QuantFormat f) { return format_spec(f).name; }
inline const MarkerDefaults& marker_defaults(QuantFormat f) { return format_spec(f).defaults; }
// The row's tensor of that suffix; null when the format has none.
const FormatTensor* find_tensor(const FormatSpec& f, std::string_view suffix);
// The packing of one layer's weight: the row's packing_of, else its packing.
WeightPacking layer_packing(const FormatSpec& f, const Layer& l, const TensorTable& t);

}  // namespace safespec::quant
