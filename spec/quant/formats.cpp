// The table of quantization formats (formats.hpp). Facts from
// comfy-quant-markers.md: the layouts L10-L17, sglang's phase 3 (S9.0) and
// resolution (S11), ComfyUI's storage casts (C13).
#include "spec/quant/formats.hpp"

#include "spec/quant/data_rules.hpp"
#include "spec/quant/layer.hpp"

namespace safespec::quant {

namespace {

using D = Dtype;

// The dtypes the numerics reader takes a tensor in (FormatTensor::accepts).
constexpr Dtype kReadFloats[] = {D::F32, D::BF16, D::F16};
constexpr Dtype kReadF32[] = {D::F32};
constexpr Dtype kReadE4m3[] = {D::F8_E4M3};
constexpr Dtype kReadE5m2[] = {D::F8_E5M2};
constexpr Dtype kReadI8[] = {D::I8};
constexpr Dtype kReadI8U8[] = {D::I8, D::U8};
constexpr Dtype kReadU8I8[] = {D::U8, D::I8};
constexpr Dtype kReadNvfp4Scale[] = {D::F8_E4M3, D::U8};
constexpr Dtype kReadMxfp8Scale[] = {D::U8, D::F8_E8M0};
// U8 is viewed as E4M3 (CU ops.py:1220-1221); F32 is taken as values.
constexpr Dtype kReadSRel[] = {D::F8_E4M3, D::U8, D::F32};

// The tensors of each format: required ones first, in the exporter's order.
constexpr FormatTensor kFp8E4m3[] = {{"weight", true, true, D::F8_E4M3, 2, {4, 64}, kReadE4m3},
                                     {"weight_scale", true, true, D::F32, 0, {}, kReadFloats},
                                     {"input_scale", false, true, D::F32, 0, {}}};
// Any other weight dtype is value-cast by ComfyUI (L10), not the stored codes.
constexpr FormatTensor kFp8E5m2[] = {{"weight", true, true, D::F8_E5M2, 2, {4, 64}, kReadE5m2},
                                     {"weight_scale", true, true, D::F32, 0, {}, kReadFloats},
                                     {"input_scale", false, true, D::F32, 0, {}}};
constexpr FormatTensor kNvfp4[] = {{"weight", true, true, D::U8, 2, {128, 32}, kReadU8I8},
                                   {"weight_scale", true, true, D::F8_E4M3, 2, {128, 4}, kReadNvfp4Scale},
                                   {"weight_scale_2", true, true, D::F32, 0, {}, kReadFloats},
                                   {"input_scale", false, true, D::F32, 0, {}},
                                   {"pre_quant_scale", false, false, D::F32, 1, {64}}};
// input_scale is loaded and never used (L13).
constexpr FormatTensor kMxfp8[] = {{"weight", true, true, D::F8_E4M3, 2, {128, 128}, kReadE4m3},
                                   {"weight_scale", true, true, D::U8, 2, {128, 4}, kReadMxfp8Scale},
                                   {"input_scale", false, false, D::F32, 0, {}}};
constexpr FormatTensor kInt8[] = {{"weight", true, true, D::I8, 2, {4, 256}, kReadI8U8},
                                  {"weight_scale", true, true, D::F32, 2, {4, 1}, kReadFloats}};
constexpr FormatTensor kW4a4[] = {{"weight", true, true, D::I8, 2, {4, 128}, kReadI8U8},
                                  {"weight_scale", true, true, D::F32, 1, {4}, kReadFloats}};
constexpr FormatTensor kW4a8[] = {{"weight", true, true, D::I8, 2, {4, 128}, kReadI8U8},
                                  {"weight_s_rel", true, true, D::F8_E4M3, 2, {4, 16}, kReadSRel},
                                  {"weight_s_channel", true, true, D::F32, 1, {4}, kReadF32},
                                  {"weight_codebook", false, true, D::F32, 1, {16}, kReadF32},
                                  {"weight_correction", false, false, D::F32, 2, {16, 4}, kReadFloats}};
// The reader takes weight_zeros only in weight_scale's dtype, one of these.
constexpr FormatTensor kAwq[] = {{"weight", true, true, D::I8, 2, {4, 64}, kReadI8U8},
                                 {"weight_scale", true, true, D::F16, 2, {2, 4}, kReadFloats},
                                 {"weight_zeros", true, true, D::F16, 2, {2, 4}, kReadFloats}};
// comfy-quants' spelling (docs/formats/svdquant_w4a4_kitchen_tilepack.md, L20):
// the natural layout; the tile-packed one is chosen by the marker's "layout".
constexpr FormatTensor kSvdquant[] = {{"weight", true, true, D::I8, 2, {128, 32}, kReadI8},
                                      {"weight_scale", true, true, D::BF16, 2, {1, 128}, kReadFloats},
                                      {"smooth_factor", true, true, D::BF16, 1, {64}, kReadFloats},
                                      {"proj_down", true, true, D::BF16, 2, {64, 4}, kReadFloats},
                                      {"proj_up", true, true, D::BF16, 2, {128, 4}, kReadFloats}};

// The dtypes whose bits survive ComfyUI's .to(torch dtype) of the weight.
constexpr Dtype kKeepE4m3[] = {D::F8_E4M3};
constexpr Dtype kKeepE5m2[] = {D::F8_E5M2};
constexpr Dtype kKeepBytes[] = {D::U8, D::I8};
constexpr Dtype kKeepInt8[] = {D::I8, D::U8};

// In the order of QuantFormat.
constexpr FormatSpec kFormats[] = {
    {QuantFormat::Fp8E4m3, "float8_e4m3fn", true, kFp8E4m3, kKeepE4m3, "float8_e4m3fn", "ComfyFp8Config", true,
     RuleId::QuantFp8Tensors, WeightPacking::Plain, {}, check_fp8_layer, data_fp8, nullptr},
    // sglang skips float8_e5m2 in phase 3 and refuses it at resolution (G11).
    {QuantFormat::Fp8E5m2, "float8_e5m2", true, kFp8E5m2, kKeepE5m2, "float8_e5m2", "", false, RuleId::QuantFp8Tensors,
     WeightPacking::Plain, {}, check_fp8_layer, data_fp8, nullptr},
    {QuantFormat::Nvfp4, "nvfp4", true, kNvfp4, kKeepBytes, "uint8", "ComfyNvfp4Config", true, RuleId::QuantNvfp4Tensors,
     WeightPacking::Nibbles, {}, check_nvfp4_layer, data_nvfp4, nullptr},
    // sglang's phase 3 does not validate mxfp8 (S9.0); MXFP8Config loads it.
    {QuantFormat::Mxfp8, "mxfp8", true, kMxfp8, kKeepE4m3, "float8_e4m3fn", "MXFP8Config", false, RuleId::QuantMxfp8Tensors,
     WeightPacking::Plain, {}, check_mxfp8_layer, data_mxfp8, nullptr},
    {QuantFormat::Int8, "int8_tensorwise", true, kInt8, kKeepInt8, "int8", "KitchenInt8Config", true, RuleId::QuantInt8Tensors,
     WeightPacking::Plain, {.convrot_groupsize = 256}, check_int8_layer, data_int8, k_bound_int8},
    {QuantFormat::W4a4, "convrot_w4a4", true, kW4a4, kKeepInt8, "int8", "KitchenW4A4Config", true, RuleId::QuantW4a4Tensors,
     WeightPacking::Nibbles, {.convrot_groupsize = 256}, check_w4a4_layer, data_w4a4, k_bound_w4a4},
    {QuantFormat::W4a8, "asym_w4a8_int8", true, kW4a8, kKeepInt8, "int8", "KitchenW4A8Config", true, RuleId::QuantW4a8Tensors,
     WeightPacking::Nibbles, {.group_size = 16, .convrot_groupsize = 256}, check_w4a8_layer, data_w4a8, k_bound_w4a8, w4a8_packing},
    // awq_w4a16 (L17) is ComfyUI's only; its values have no rules (outside L10-L16).
    {QuantFormat::Awq, "awq_w4a16", true, kAwq, kKeepInt8, "int8", "", false, RuleId::QuantAwqTensors,
     WeightPacking::Nibbles, {.group_size = 64}, check_awq_layer, nullptr, nullptr},
    // Written by comfy-quants and laid out by comfy-kitchen; ComfyUI (CU, CL)
    // does not register it and sglang refuses it at resolution. No value rules:
    // every nibble is a valid signed code. Tile-packed under its layout key.
    {QuantFormat::Svdquant, "svdquant_w4a4", false, kSvdquant, kKeepInt8, "int8", "", false,
     RuleId::QuantSvdquantTensors, WeightPacking::Nibbles, {}, check_svdquant_layer, nullptr, nullptr, svdquant_packing},
};
static_assert(std::size(kFormats) == kQuantFormatCount);

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < kQuantFormatCount; ++i)
    if (static_cast<std::size_t>(kFormats[i].format) != i) return false;
  return true;
}
static_assert(in_enum_order(), "kFormats rows follow QuantFormat");

}  // namespace

std::span<const FormatSpec> all_formats() { return kFormats; }

const FormatSpec& format_spec(QuantFormat f) { return kFormats[static_cast<std::size_t>(f)]; }

WeightPacking layer_packing(const FormatSpec& f, const Layer& l, const TensorTable& t) {
  return f.packing_of ? f.packing_of(l, t) : f.packing;
}

const FormatTensor* find_tensor(const FormatSpec& f, std::string_view suffix) {
  for (const FormatTensor& t : f.tensors)
    if (t.suffix == suffix) return &t;
  return nullptr;
}

const FormatSpec* find_format(std::string_view name) {
  for (const FormatSpec& f : kFormats)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace safespec::quant
