// Shared pieces of the quantized-layer mutation catalogue (quant_mutations*.cpp):
// sglang's verbatim templates (comfy-quant-markers.md §3), how a mutation
// records what sglang does with its mutant, and the checkpoint edits several
// mutations make. Private to gen/.
#pragma once

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gen/quant_mutations.hpp"
#include "spec/quant/render.hpp"

namespace safespec::gen::quant::mut {


using rc::gen::element;
using rc::gen::inRange;
using safespec::quant::repr;
using Shape = std::vector<std::uint64_t>;

// sglang, quantization_utils.py and the configs (§3), verbatim.
inline constexpr std::string_view kS31 = "Invalid _quantization_metadata in {path}";
inline constexpr std::string_view kS32 = "_quantization_metadata in {path} must contain an object";
inline constexpr std::string_view kS33 = "_quantization_metadata in {path} must contain a layers object";
inline constexpr std::string_view kS34 = "Comfy quantization metadata for {prefix!r} must be an object";
inline constexpr std::string_view kConflict = "Conflicting Comfy quantization markers for {prefix!r}";  // S3.4, S6.3
inline constexpr std::string_view kS61 = "Invalid Comfy quantization marker {key!r} in {path}";
inline constexpr std::string_view kS62 = "Comfy quantization marker {key!r} must contain a JSON object";
inline constexpr std::string_view kS7 =
    "MXFP8 layer {prefix!r} has incompatible weight/scale metadata: {weight_meta} and {scale_meta}";
inline constexpr std::string_view kS8 = "Quantized weights are missing comfy_quant metadata: {sorted(missing)[:5]}";
inline constexpr std::string_view kS91 = "Comfy layer {prefix!r} is missing checkpoint tensors: {sorted(missing)}";
inline constexpr std::string_view kA1 = "Comfy W4A8 layer {prefix!r} has invalid group_size={group_size}";
inline constexpr std::string_view kA2 =
    "Comfy W4A8 layer {prefix!r} needs I8 weights and FP8 group scales, got {weight_dtype} and {scale_dtype}";
inline constexpr std::string_view kA3 = "Comfy W4A8 layer {prefix!r} needs F32 channel scales, got {channel_dtype}";
inline constexpr std::string_view kA4 = "Comfy W4A8 layer {prefix!r} needs a 2D packed weight, got {weight_shape}";
inline constexpr std::string_view kA5 =
    "Comfy W4A8 layer {prefix!r} has incompatible weight/scale shapes: {weight_shape}, {scale_shape}, and "
    "{channel_shape}";
inline constexpr std::string_view kA7 = "Comfy W4A8 layer {prefix!r} needs an F32[16] codebook";
inline constexpr std::string_view kA8 = "Comfy W4A8 layer {prefix!r} has an incompatible correction tensor";
inline constexpr std::string_view kW4a4Dtypes =
    "Comfy W4A4 layer {prefix!r} needs I8 packed weights and F32 scales, got {weight_dtype} and {scale_dtype}";
inline constexpr std::string_view kW4a4Shapes =
    "Comfy W4A4 layer {prefix!r} has incompatible weight/scale shapes: {weight_shape} and {scale_shape}";
inline constexpr std::string_view kW4a4Group =
    "Comfy W4A4 layer {prefix!r} has unsupported convrot_groupsize={convrot_group_size}";
inline constexpr std::string_view kW4a4K =
    "Comfy W4A4 layer {prefix!r} has input size {logical_input_size}, incompatible with quant_group_size=64 and "
    "convrot_groupsize={convrot_group_size}";
inline constexpr std::string_view kNvDtypes =
    "Comfy NVFP4 layer {prefix!r} needs U8 packed weights and FP8 block scales, got {weight_dtype} and {scale_dtype}";
inline constexpr std::string_view kNvScale2 =
    "Comfy NVFP4 layer {prefix!r} needs a scalar F32 weight_scale_2, got {scale_2_dtype}{scale_2_shape}";
inline constexpr std::string_view kNvRank = "Comfy NVFP4 layer {prefix!r} needs a 2D packed weight, got {weight_shape}";
inline constexpr std::string_view kNvShapes =
    "Comfy NVFP4 layer {prefix!r} has incompatible weight/scale shapes: {weight_shape} and {scale_shape}";
inline constexpr std::string_view kNvPqs = "Comfy NVFP4 layer {prefix!r} has an incompatible pre_quant_scale: {dtype}{shape}";
inline constexpr std::string_view kInt8Rank = "Comfy tensorwise INT8 layer {prefix!r} needs a 2D weight, got {weight_shape}";
inline constexpr std::string_view kInt8Dtypes =
    "Comfy INT8 layer {prefix!r} needs I8 weights and F32 scales, got {weight_dtype} and {scale_dtype}";
inline constexpr std::string_view kInt8Shapes =
    "Comfy INT8 layer {prefix!r} has incompatible weight/scale shapes: {weight_shape} and {scale_shape}";
inline constexpr std::string_view kS11 = "Unsupported Comfy quantization format(s): {formats}";
inline constexpr std::string_view kS12Companion = "Unsupported Comfy W4A8 format for {prefix!r}: {marker_format!r}";
inline constexpr std::string_view kS12Convrot = "Serialized W4A8 layer {prefix!r} must set convrot=true";
inline constexpr std::string_view kS135 =
    "Serialized W4A8 layer {prefix!r} has input size {layer.input_size}, incompatible with group_size={group_size} "
    "and convrot_groupsize={convrot_group_size}";
inline constexpr std::string_view kS155 =
    "Serialized W4A4 layer {prefix!r} has unsupported linear_dtype={linear_dtype!r}; expected one of ('int4', 'int8')";
inline constexpr std::string_view kS17Convrot = "Serialized kitchen_int8 layer {prefix!r} must set convrot=true";
inline constexpr std::string_view kS17Group =
    "Serialized kitchen_int8 layer {prefix!r} must declare convrot_groupsize in (16, 64, 256), got {value!r}";
inline constexpr std::string_view kS19Companion = "Unsupported Comfy NVFP4 companion for {prefix!r}: {marker_format!r}";
inline constexpr std::string_view kS19Full = "Comfy NVFP4 layer {prefix!r} must request full_precision_matrix_mult";

using Args = std::vector<std::pair<std::string, std::string>>;

inline std::string shape(const Shape& s) { return safespec::quant::shape_repr(s); }
inline std::string dt(Dtype d) { return std::string(dtype_name(d)); }
inline std::uint64_t roundup(std::uint64_t a, std::uint64_t m) { return (a + m - 1) / m * m; }

inline Applied rejects(std::string what, std::string_view tmpl, Args args, Stage stage, std::string key, std::size_t file = 0,
                std::string_view error = "ValueError") {
  Applied a;
  a.ok = true;
  a.what = std::move(what);
  a.sg = SgKind::Rejects;
  a.sg_error = error;
  a.sg_template = tmpl;
  a.args = std::move(args);
  a.stage = stage;
  a.key = std::move(key);
  a.file = file;
  return a;
}

// A mutation applied, its verdicts left as the rules give them.
inline Applied applied(std::string what) {
  Applied a;
  a.ok = true;
  a.what = std::move(what);
  return a;
}

inline Applied accepts(std::string what) {
  Applied a = applied(std::move(what));
  a.sg = SgKind::Accepts;
  return a;
}

// A phase-3 rejection of layer l.
inline Applied layer_rejects(const QLayer& l, std::string what, std::string_view tmpl, Args args) {
  args.insert(args.begin(), {"prefix!r", repr(l.prefix)});
  return rejects(std::move(what), tmpl, std::move(args), Stage::Layer, l.prefix);
}

inline bool has_format(const QCheckpoint& c, Format f) {
  return std::any_of(c.layers.begin(), c.layers.end(), [f](const QLayer& l) { return l.format == f; });
}

// An int8 layer sglang accepts only as a companion of W4A8 or NVFP4 (S12.3,
// S19): damaging its weight or scale also makes it no companion.
inline bool int8_companion(const QCheckpoint& c, const QLayer& l) {
  return l.format == Format::Int8 && (has_format(c, Format::W4a8) || has_format(c, Format::Nvfp4));
}

template <class Pred>
QLayer* pick(QCheckpoint& c, std::set<std::string>& used, Pred pred) {
  std::vector<QLayer*> ok;
  for (QLayer& l : c.layers)
    if (!used.count(l.prefix) && !l.tensors.empty() && pred(l)) ok.push_back(&l);
  if (ok.empty()) return nullptr;
  QLayer* l = ok[*inRange<std::size_t>(0, ok.size())];
  used.insert(l->prefix);
  return l;
}

inline QLayer* pick_format(QCheckpoint& c, std::set<std::string>& used, Format f) {
  return pick(c, used, [f](const QLayer& l) { return l.format == f; });
}

inline std::string fresh_prefix(const QCheckpoint& c, std::string stem) {
  for (int i = 0;; ++i) {
    std::string p = stem + "." + std::to_string(i);
    bool taken = false;
    for (const QLayer& l : c.layers) taken = taken || l.prefix == p;
    for (const QFile& f : c.files)
      for (const QTensor& t : f.extra) taken = taken || t.name.rfind(p + ".", 0) == 0;
    if (!taken) return p;
  }
}

inline void strip_global(QCheckpoint& c) {
  for (QFile& f : c.files)
    std::erase_if(f.metadata, [](const auto& kv) { return kv.first == "quant_format"; });
}

// Every marker of file f becomes a tensor marker, so the file's metadata can
// be replaced without losing a declaration.
inline void to_tensor_site(QCheckpoint& c, std::size_t f) {
  for (QLayer& l : c.layers)
    if (l.file == f) l.site = Site::Tensor;
  c.files[f].qmeta_extra.clear();
}

inline QTensor bytes_tensor(std::string name, const std::string& bytes) {
  return QTensor{std::move(name), Dtype::U8, {bytes.size()}, std::vector<std::uint8_t>(bytes.begin(), bytes.end())};
}

inline std::size_t any_file(const QCheckpoint& c) { return *inRange<std::size_t>(0, c.files.size()); }


// The mutations, one per rule (quant_mutations_markers.cpp, quant_mutations_formats.cpp).
Applied marker_json(QCheckpoint& c, std::set<std::string>& used);
Applied marker_not_object(QCheckpoint& c, std::set<std::string>& used);
Applied marker_too_large(QCheckpoint& c, std::set<std::string>& used);
Applied marker_bom(QCheckpoint& c, std::set<std::string>& used);
Applied marker_padded(QCheckpoint& c, std::set<std::string>& used);
Applied marker_dtype(QCheckpoint& c, std::set<std::string>& used);
Applied qmeta_json(QCheckpoint& c, std::set<std::string>& used);
Applied qmeta_not_object(QCheckpoint& c, std::set<std::string>& used);
Applied qmeta_layers(QCheckpoint& c, std::set<std::string>& used);
Applied qmeta_layer_not_object(QCheckpoint& c, std::set<std::string>& used);
Applied marker_conflict(QCheckpoint& c, std::set<std::string>& used);
Applied marker_orphan(QCheckpoint& c, std::set<std::string>& used);
Applied marker_missing(QCheckpoint& c, std::set<std::string>& used);
Applied legacy_scaled_fp8(QCheckpoint& c, std::set<std::string>& used);
Applied mxfp8_global(QCheckpoint& c, std::set<std::string>& used);
Applied format_missing(QCheckpoint& c, std::set<std::string>& used);
Applied format_unknown(QCheckpoint& c, std::set<std::string>& used);
Applied sglang_formats_mix(QCheckpoint& c, std::set<std::string>& used);
Applied sglang_companion(QCheckpoint& c, std::set<std::string>& used);
Applied key_type(QCheckpoint& c, std::set<std::string>& used);
Applied key_int(QCheckpoint& c, std::set<std::string>& used);
Applied params_nested(QCheckpoint& c, std::set<std::string>& used);
Applied dtype_comfy_mmap(QCheckpoint& c, std::set<std::string>& used);
Applied weight_cast(QCheckpoint& c, std::set<std::string>& used);
Applied fp8_tensors(QCheckpoint& c, std::set<std::string>& used);
Applied fp8_scale(QCheckpoint& c, std::set<std::string>& used);
Applied fp8_weight(QCheckpoint& c, std::set<std::string>& used);
Applied nvfp4_tensors(QCheckpoint& c, std::set<std::string>& used);
Applied nvfp4_dtypes(QCheckpoint& c, std::set<std::string>& used);
Applied nvfp4_global_scale(QCheckpoint& c, std::set<std::string>& used);
Applied nvfp4_weight_rank(QCheckpoint& c, std::set<std::string>& used);
Applied nvfp4_shapes(QCheckpoint& c, std::set<std::string>& used);
Applied nvfp4_layout(QCheckpoint& c, std::set<std::string>& used);
Applied nvfp4_pre_quant_scale(QCheckpoint& c, std::set<std::string>& used);
Applied nvfp4_full_precision(QCheckpoint& c, std::set<std::string>& used);
Applied mxfp8_tensors(QCheckpoint& c, std::set<std::string>& used);
Applied mxfp8_dtypes(QCheckpoint& c, std::set<std::string>& used);
Applied mxfp8_layout(QCheckpoint& c, std::set<std::string>& used);
Applied int8_tensors(QCheckpoint& c, std::set<std::string>& used);
Applied int8_weight_rank(QCheckpoint& c, std::set<std::string>& used);
Applied int8_dtypes(QCheckpoint& c, std::set<std::string>& used);
Applied int8_shapes(QCheckpoint& c, std::set<std::string>& used);
Applied int8_convrot(QCheckpoint& c, std::set<std::string>& used);
Applied int8_convrot_groupsize(QCheckpoint& c, std::set<std::string>& used);
Applied k_int32(QCheckpoint& c, std::set<std::string>& used);
Applied w4a4_tensors(QCheckpoint& c, std::set<std::string>& used);
Applied w4a4_dtypes(QCheckpoint& c, std::set<std::string>& used);
Applied w4a4_shapes(QCheckpoint& c, std::set<std::string>& used);
Applied w4a4_groupsize(QCheckpoint& c, std::set<std::string>& used);
Applied w4a4_k(QCheckpoint& c, std::set<std::string>& used);
Applied w4a4_linear_dtype(QCheckpoint& c, std::set<std::string>& used);
Applied w4a8_tensors(QCheckpoint& c, std::set<std::string>& used);
Applied w4a8_group_size(QCheckpoint& c, std::set<std::string>& used);
Applied w4a8_dtypes(QCheckpoint& c, std::set<std::string>& used);
Applied w4a8_channel_dtype(QCheckpoint& c, std::set<std::string>& used);
Applied w4a8_weight_rank(QCheckpoint& c, std::set<std::string>& used);
Applied w4a8_shapes(QCheckpoint& c, std::set<std::string>& used);
Applied w4a8_codebook(QCheckpoint& c, std::set<std::string>& used);
Applied w4a8_correction(QCheckpoint& c, std::set<std::string>& used);
Applied w4a8_correction_ignored(QCheckpoint& c, std::set<std::string>& used);
Applied w4a8_convrot(QCheckpoint& c, std::set<std::string>& used);
Applied w4a8_k(QCheckpoint& c, std::set<std::string>& used);
Applied w4a8_hadamard(QCheckpoint& c, std::set<std::string>& used);
Applied w4a8_cuda_groupsize(QCheckpoint& c, std::set<std::string>& used);
Applied w6a8_geometry(QCheckpoint& c, std::set<std::string>& used);
Applied w6a8_codebook(QCheckpoint& c, std::set<std::string>& used);
Applied awq_tensors(QCheckpoint& c, std::set<std::string>& used);
Applied awq_shapes(QCheckpoint& c, std::set<std::string>& used);
Applied awq_zero_spelling(QCheckpoint& c, std::set<std::string>& used);
Applied svdquant_tensors(QCheckpoint& c, std::set<std::string>& used);
Applied svdquant_layout(QCheckpoint& c, std::set<std::string>& used);
Applied svdquant_shapes(QCheckpoint& c, std::set<std::string>& used);
Applied svdquant_keys(QCheckpoint& c, std::set<std::string>& used);

}  // namespace safespec::gen::quant::mut
