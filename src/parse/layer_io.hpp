// Reading one marked layer of a checkpoint into the numeric reference's
// structs (spec/numerics/): the marker through the quantized-layer analysis
// (spec/quant/), the tensors by bounded reads (src/io/tensor_data.hpp), every
// dtype (the format row's accepts column) and size checked before a value is
// decoded (the readers are in layer_readers.cpp). Errors are data: a rule and
// a place as well as the text.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/model.hpp"
#include "spec/place.hpp"
#include "spec/rule_id.hpp"
#include "spec/numerics/dequant.hpp"
#include "spec/numerics/float_type.hpp"
#include "spec/numerics/int_linear.hpp"
#include "spec/numerics/svdquant.hpp"
#include "spec/numerics/w4a8_reference.hpp"
#include "spec/quant/analyze.hpp"
#include "spec/quant/markers.hpp"
#include "spec/quant/tensor_table.hpp"
#include "src/io/tensor_data.hpp"

namespace safespec {

// Why a layer could not be read. `refused`: the layer fails one of its
// format's invariants (the analysis's finding, the reference's refusal, or the
// reader's own marker, dtype or shape check; exit 1); otherwise the files
// could not be read or the request names what is not there (exit 2).
// `rule`: the rule that decides it, where one does; `where`: the tensor or
// layer at fault (a place in the file for a parse error), empty for a
// whole-file I/O problem. `message` is the whole readable text; the functions
// below build all four, so the text always says what the fields hold.
struct LayerError {
  std::string message;
  bool refused = false;
  std::optional<RuleId> rule = std::nullopt;
  Place where = {};
};

// The reader's own check fails at `where`: "PLACE: detail" (refused).
LayerError layer_invalid(Place where, std::string_view detail, std::optional<RuleId> rule = std::nullopt);
// A tensor the reader needs is not there: "expected a tensor 'NAME', found
// none" (refused); `rule`: the format's tensors_rule when the row requires it.
LayerError tensor_missing(std::string_view name, std::optional<RuleId> rule);
// The analysis or the parser finds the layer or the file breaking `rule`:
// "FILE: RULE at PLACE: detail" (refused).
LayerError rule_broken(std::string_view file, RuleId rule, Place where, std::string_view detail);
// The numeric reference refuses the layer's values: "layer 'P' refused: RULE
// at ARGUMENT: detail" (refused); the error's place is the layer P.
LayerError values_refused(std::string_view layer, const Error& e);
// The file cannot be read, or the request names what it does not hold:
// "FILE: detail" (exit 2); `where` is what is not there, if anything.
LayerError not_read(std::string_view file, std::string_view detail, Place where = {});
// The same where the text names no file, or another reader's text names it.
LayerError not_read(std::string_view message);
// A tensor or layer cannot be read or used as asked: "PLACE: detail" (exit 2).
LayerError not_read_at(Place where, std::string_view detail);
// `e` about a file read as an input rather than as the layer (exit 2), its
// text named by `file` when given and not named already.
LayerError input_error(LayerError e, std::string_view file = {});

template <class T>
using LayerResult = Result<T, LayerError>;

// One checkpoint file, parsed, with its markers collected and analysed.
// Not copyable or movable: the table and layers point into the model.
class CheckpointReader {
 public:
  static LayerResult<std::unique_ptr<CheckpointReader>> open(const std::string& path);
  // A whole file held in memory (the C API's layers), named `name` in errors.
  static LayerResult<std::unique_ptr<CheckpointReader>> from_memory(std::string name, std::vector<std::uint8_t> file);

  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;

  // The marked layer P (marker "P.comfy_quant"), or an error naming the
  // layers there are.
  LayerResult<const quant::Layer*> layer(std::string_view prefix) const;

  // Refuses a layer with an error finding that comfy-kitchen or ComfyUI
  // rejects (they run the numerics). Findings only sglang's loader raises
  // (convrot=true, F8_E4M3-only s_rel, F32-only correction) do not stop the
  // computation; the reader's own checks below still hold. CQ-W4A8-CUDA-
  // GROUPSIZE (K7) concerns only the CUDA kernel: it refuses only when
  // `cuda_kernel` (the eager backend and the dequantization take any C = 4^k).
  // A 6-bit (W6A8) layer, read by comfy-kitchen 2a6f4ef only, is judged by
  // that version's verdicts alone.
  LayerResult<Unit> refuse_invalid(const quant::Layer& l, bool cuda_kernel) const;
  // An asym_w4a8_int8 layer whose weight is 3K/4 wide (spec/quant/w4a8_geometry.hpp).
  bool six_bit(const quant::Layer& l) const;

  const quant::TensorRef* find(const std::string& name) const { return table_->find(name); }
  const std::vector<std::string_view>& tensor_names() const { return table_->names(); }
  const quant::TensorTable& table() const { return *table_; }
  const std::vector<quant::Layer>& layers() const { return collected_->layers; }
  // The file's one tensor, or an error naming how many there are.
  LayerResult<const quant::TensorRef*> only_tensor() const;
  // A copy of the tensor's bytes; its size already equals the header's.
  LayerResult<std::vector<std::uint8_t>> bytes(const quant::TensorRef& t) const;

  const std::string& path() const { return path_; }

 private:
  CheckpointReader() = default;
  // The markers read and analysed, once the model is in place.
  void analyse(std::vector<quant::MarkerBytes> markers);
  std::string path_;
  std::vector<std::uint8_t> memory_;  // from_memory's file; then data_ is null
  std::unique_ptr<Model> model_;
  std::vector<quant::CheckpointFile> files_;
  std::unique_ptr<quant::TensorTable> table_;
  std::unique_ptr<quant::Collected> collected_;
  quant::Analysis analysis_;
  std::unique_ptr<FileTensorData> data_;
};

// group_size or convrot_groupsize, ComfyUI's lookup (top level, then
// "params") with Python int(); `fallback` when absent (the format row's
// defaults).
LayerResult<std::uint64_t> marker_uint(const quant::Layer& l, std::string_view key, std::int64_t fallback);

// asym_w4a8_int8 (L16): weight I8/U8 [N, K/2]; s_rel F8_E4M3, U8 (viewed as
// E4M3) or F32 [N, K/G]; s_channel F32 [N]; optional codebook F32 [16],
// correction F32/BF16/F16 [K/G, N], and bias `P.bias` F32/BF16/F16 [N].
LayerResult<numerics::W4a8Layer> read_w4a8(const CheckpointReader& c, const quant::Layer& l);

// The other formats' stored tensors (dequant.hpp's structs).
LayerResult<deq::Fp8Weight> read_fp8(const CheckpointReader& c, const quant::Layer& l);
LayerResult<deq::Int8Weight> read_int8(const CheckpointReader& c, const quant::Layer& l);
LayerResult<deq::W4a4Weight> read_w4a4(const CheckpointReader& c, const quant::Layer& l);
LayerResult<deq::Nvfp4Weight> read_nvfp4(const CheckpointReader& c, const quant::Layer& l);
LayerResult<deq::Mxfp8Weight> read_mxfp8(const CheckpointReader& c, const quant::Layer& l);
LayerResult<deq::AwqWeight> read_awq(const CheckpointReader& c, const quant::Layer& l);
// svdquant_w4a4 (L20), natural or tile-packed (un-tiled here): weight I8,
// weight_scale, proj_down, proj_up F32/BF16/F16.
LayerResult<deq::SvdquantWeight> read_svdquant(const CheckpointReader& c, const quant::Layer& l);
// Its smooth_factor: F32, BF16 or F16, K values.
LayerResult<std::vector<float>> read_svdquant_smooth(const CheckpointReader& c, const quant::Layer& l, std::uint64_t k);
// `P.bias` when present: F32, BF16 or F16, exactly `n` values.
LayerResult<std::optional<std::vector<float>>> read_bias(const CheckpointReader& c, const quant::Layer& l,
                                                         std::uint64_t n);

// Floating-point tensor values as binary32: F32, BF16, F16 (and F64 rounded
// is not offered: a reader must not change values silently).
std::optional<numerics::FloatType> float_type_of(Dtype d);
std::vector<float> decode_floats(numerics::FloatType t, std::span<const std::uint8_t> bytes);
// The safetensors bytes of binary32 values of T (each value already in T).
std::vector<std::uint8_t> encode_floats(numerics::FloatType t, std::span<const float> values);
Dtype dtype_of(numerics::FloatType t);

}  // namespace safespec
