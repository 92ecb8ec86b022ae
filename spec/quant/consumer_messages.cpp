// The consumer matrix (consumer_messages.hpp). Rows are grouped by the check
// that emits them; each cites where upstream raises the message.
#include "spec/quant/consumer_messages.hpp"

#include "spec/quant/order.hpp"

namespace safespec::quant {

namespace {

using C = Consumer;
using E = Effect;
using R = RuleId;

constexpr MessageRow kRows[] = {
    // S9.1, shared by every format sglang validates in phase 3.
    {Msg::SharedSgMissingTensors, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy layer {prefix!r} is missing checkpoint tensors: {sorted(missing)}",
      "quantization_utils.py:225-229"},
     0, {R::QuantFp8Tensors, R::QuantNvfp4Tensors, R::QuantInt8Tensors, R::QuantW4a4Tensors, R::QuantW4a8Tensors}},
    {Msg::LayerCuMissingWeight, Site::CuLayer, {C::Comfyui, E::Warns, "warning",
      "Missing weight for layer {layer_name}",
      "comfy/ops.py:1137 (C6)"}, 0, {R::QuantMarkerOrphan}},
    {Msg::LayerCuUnknownFormat, Site::CuLayer, {C::Comfyui, E::Rejects, "ValueError",
      "Unknown quantization format for layer {layer_name}",
      "comfy/ops.py:1165-1166 (C10)"}, 1, {R::QuantFormatMissing}},
    {Msg::LayerCuKeyError, Site::CuLayer, {C::Comfyui, E::Rejects, "KeyError",
      "{format!r}",
      "comfy/ops.py:1168 (C11)"}, 1, {R::QuantFormatUnknown}},
    {Msg::LayerCuUnhashable, Site::CuLayer, {C::Comfyui, E::Rejects, "TypeError",
      "unhashable type: '{type}'",
      "comfy/ops.py:1168 (C11, Python's own message)"}, 1, {R::QuantFormatUnknown}},
    // sglang, quantization_utils.py (inspect_comfy_quant_markers).
    {Msg::MarkerSgQmetaJson, Site::SgQmeta, {C::Sglang, E::Rejects, "ValueError",
      "Invalid _quantization_metadata in {path}",
      "quantization_utils.py:127 (S3.1)"}, 0, {R::QuantMetaJson}},
    {Msg::MarkerSgQmetaObject, Site::SgQmeta, {C::Sglang, E::Rejects, "ValueError",
      "_quantization_metadata in {path} must contain an object",
      "quantization_utils.py:131 (S3.2)"}, 1, {R::QuantMetaNotObject}},
    {Msg::MarkerSgQmetaLayers, Site::SgQmeta, {C::Sglang, E::Rejects, "ValueError",
      "_quantization_metadata in {path} must contain a layers object",
      "quantization_utils.py:136 (S3.3)"}, 2, {R::QuantMetaLayers}},
    {Msg::MarkerSgQmetaLayer, Site::SgQmetaLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy quantization metadata for {prefix!r} must be an object",
      "quantization_utils.py:141 (S3.4)"}, 0, {R::QuantMetaLayerNotObject}},
    {Msg::MarkerSgConflict, Site::Computed, {C::Sglang, E::Rejects, "ValueError",
      "Conflicting Comfy quantization markers for {prefix!r}",
      "quantization_utils.py:146, 177 (S3.4, S6.3)"}, 0, {R::QuantMarkerConflict}},
    {Msg::MarkerSgMarkerJson, Site::SgTensorMarker, {C::Sglang, E::Rejects, "ValueError",
      "Invalid Comfy quantization marker {key!r} in {path}",
      "quantization_utils.py:167 (S6.1)"}, 0, {R::QuantMarkerJson}},
    {Msg::MarkerSgMarkerObject, Site::SgTensorMarker, {C::Sglang, E::Rejects, "ValueError",
      "Comfy quantization marker {key!r} must contain a JSON object",
      "quantization_utils.py:171 (S6.2)"}, 0, {R::QuantMarkerNotObject}},
    {Msg::MarkerSgMxfp8, Site::SgMxfp8Global, {C::Sglang, E::Rejects, "ValueError",
      "MXFP8 layer {prefix!r} has incompatible weight/scale metadata: {weight_meta} and {scale_meta}",
      "quantization_utils.py:181-196 (S7)"}, 0, {R::QuantMxfp8Global}},
    {Msg::MarkerSgMissing, Site::SgMissingMarkers, {C::Sglang, E::Rejects, "ValueError",
      "Quantized weights are missing comfy_quant metadata: {sorted(missing)[:5]}",
      "quantization_utils.py:198-203 (S8)"}, 0, {R::QuantMarkerMissing}},
    // sglang's MiniMax-H3 loader, legacy INT8 (vivym/sglang b8b85d66
    // runtime/loader/minimax_h3_weights.py, search-index id 69267248320; LI2-LI6).
    {Msg::LegacySgConvrot, Site::Computed, {C::Sglang, E::Rejects, "ValueError",
      "Legacy MiniMax-H3 quant_method='int8' requires convrot=true",
      "minimax_h3_weights.py is_legacy_minimax_h3_int8_config (LI2)"}, 0, {R::QuantLegacyInt8Config}},
    {Msg::LegacySgConfigType, Site::Computed, {C::Sglang, E::Rejects, "TypeError",
      "{source} must be a mapping or transformers.PretrainedConfig, got {type(value).__name__}",
      "srt/model_loader/checkpoint_quantization.py _as_config_mapping (LI2)"}, 0, {R::QuantLegacyInt8Config}},
    {Msg::LegacySgMixMarkers, Site::Computed, {C::Sglang, E::Rejects, "ValueError",
      "Legacy MiniMax-H3 INT8 checkpoints cannot mix .comfy_quant markers",
      "minimax_h3_weights.py inspect_minimax_h3_safetensors (LI3)"}, 0, {R::QuantLegacyInt8Markers}},
    {Msg::LegacySgMissingScale, Site::Computed, {C::Sglang, E::Rejects, "ValueError",
      "Legacy MiniMax-H3 INT8 tensor {key!r} is missing {scale_key!r}",
      "minimax_h3_weights.py _validate_legacy_int8_tensors (LI4)"}, 0, {R::QuantLegacyInt8ScaleMissing}},
    {Msg::LegacySgScaleMeta, Site::Computed, {C::Sglang, E::Rejects, "ValueError",
      "Legacy MiniMax-H3 INT8 weight/scale metadata mismatch for {key!r}: weight={weight.get_dtype()}{weight_shape}, "
      "scale={scale.get_dtype()}{tuple(scale.get_shape())}",
      "minimax_h3_weights.py _validate_legacy_int8_tensors (LI5)"}, 0, {R::QuantLegacyInt8ScaleMeta}},
    {Msg::LegacySgNoWeights, Site::Computed, {C::Sglang, E::Rejects, "ValueError",
      "Legacy MiniMax-H3 INT8 checkpoint contains no I8 weights",
      "minimax_h3_weights.py _validate_legacy_int8_tensors (LI6)"}, 0, {R::QuantLegacyInt8NoWeights}},
    // ComfyUI (C2.1, C7) raises Python's own exceptions: their messages are
    // CPython 3.11's and are not part of ComfyUI's contract (§6.12).
    {Msg::MarkerCuNoLayers, Site::CuConvert, {C::Comfyui, E::Rejects, "KeyError",
      "'layers'",
      "comfy/utils.py:1457 (C2.1)"}, 2, {R::QuantMetaLayers}},
    {Msg::MarkerCuAttribute, Site::CuConvert, {C::Comfyui, E::Rejects, "AttributeError",
      "'{type}' object has no attribute '{attr}'",
      "comfy/utils.py:1457-1459, comfy/ops.py:1154-1160 (C2.1, C7)"}, 2, {R::QuantMetaLayers}},
    {Msg::MarkerCuAttributeLayer, Site::CuLayer, {C::Comfyui, E::Rejects, "AttributeError",
      "'{type}' object has no attribute '{attr}'",
      "comfy/utils.py:1457-1459, comfy/ops.py:1154-1160 (C2.1, C7)"},
     0, {R::QuantMetaLayerNotObject, R::QuantMarkerNotObject}},
    {Msg::ResolutionSgUnsupported, Site::SgResolution, {C::Sglang, E::Rejects, "NotImplementedError",
      "Unsupported Comfy quantization format(s): {formats}",
      "quantization_utils.py:416-418 (S11)"}, 0, {R::QuantSglangFormats}},
    {Msg::ResolutionSgW4a8Companion, Site::SgConfig, {C::Sglang, E::Rejects, "ValueError",
      "Unsupported Comfy W4A8 format for {prefix!r}: {marker_format!r}",
      "kitchen_w4a8_config.py:57-60 (S12.3)"}, 0, {R::QuantSglangCompanion}},
    {Msg::ResolutionSgNvfp4Companion, Site::SgConfig, {C::Sglang, E::Rejects, "ValueError",
      "Unsupported Comfy NVFP4 companion for {prefix!r}: {marker_format!r}",
      "comfy_nvfp4.py (S19)"}, 0, {R::QuantSglangCompanion}},
    {Msg::KindsSgLinearMarker, Site::SgMethod, {C::Sglang, E::Rejects, "ValueError",
      "Unsupported quantized linear marker for {prefix!r}",
      "kitchen_w4a8_config.py:108-109 (S13.3), comfy_nvfp4.py (S19)"}, 0, {R::QuantSglangCompanion}},
    {Msg::KindsSgEmbeddingMarker, Site::SgMethod, {C::Sglang, E::Rejects, "ValueError",
      "Unsupported quantized embedding marker for {prefix!r}: {marker}",
      "kitchen_w4a8_config.py:93-103 (S13.1)"}, 0, {R::QuantSglangCompanion}},
    // KeyError prints the repr of the unknown dtype string (§6.12).
    {Msg::MmapCuMmapKeyError, Site::CuContainer, {C::Comfyui, E::Warns, "KeyError",
      "{dtype!r}",
      "comfy/utils.py:106, 111"}, 0, {R::QuantDtypeComfyMmap}},
    // S9.1's kitchen side for fp8: the fixed first line of the NoCapableBackendError
    // comfy-kitchen raises when weight_scale is None; the per-backend reason lines
    // that follow depend on the machine (fp8_rules.cpp).
    {Msg::Fp8KtNoBackend, Site::KtOperands, {C::Kitchen, E::Rejects, "NoCapableBackendError",
      "No backend can handle 'dequantize_per_tensor_fp8': (then one line per installed backend with its "
      "reason, which depends on the machine; weight_scale is None)",
      "comfy-kitchen dispatch (K3, K12)"}, 0, {R::QuantFp8Tensors}},
    // sglang quantization_utils.py:318-355 (S9.5), in its order.
    {Msg::Nvfp4SgDtypes, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy NVFP4 layer {prefix!r} needs U8 packed weights and FP8 block scales, got {weight_dtype} and "
      "{scale_dtype}",
      "quantization_utils.py:318-355 (S9.5.1)"}, 1, {R::QuantNvfp4Dtypes}},
    {Msg::Nvfp4SgGlobalScale, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy NVFP4 layer {prefix!r} needs a scalar F32 weight_scale_2, got {scale_2_dtype}{scale_2_shape}",
      "quantization_utils.py:318-355 (S9.5.2)"}, 2, {R::QuantNvfp4GlobalScale}},
    {Msg::Nvfp4SgWeightRank, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy NVFP4 layer {prefix!r} needs a 2D packed weight, got {weight_shape}",
      "quantization_utils.py:318-355 (S9.5.3)"}, 3, {R::QuantNvfp4WeightRank}},
    {Msg::Nvfp4SgShapes, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy NVFP4 layer {prefix!r} has incompatible weight/scale shapes: {weight_shape} and {scale_shape}",
      "quantization_utils.py:318-355 (S9.5.4)"}, 4, {R::QuantNvfp4Shapes}},
    {Msg::Nvfp4SgPreQuantScale, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy NVFP4 layer {prefix!r} has an incompatible pre_quant_scale: {dtype}{shape}",
      "quantization_utils.py:318-355 (S9.5.5)"}, 5, {R::QuantNvfp4PreQuantScale}},
    // comfy_nvfp4.py, ComfyNvfp4Config.__init__ (S19).
    {Msg::Nvfp4SgFullPrecision, Site::SgConfig, {C::Sglang, E::Rejects, "ValueError",
      "Comfy NVFP4 layer {prefix!r} must request full_precision_matrix_mult",
      "comfy_nvfp4.py, ComfyNvfp4Config (S19)"}, 1, {R::QuantNvfp4FullPrecision}},
    // ComfyUI comfy/ops.py:1183-1184 (C12).
    {Msg::Nvfp4CuMissingScales, Site::CuLayer, {C::Comfyui, E::Rejects, "ValueError",
      "Missing NVFP4 scales for layer {layer_name}",
      "comfy/ops.py:1183-1184"}, 12, {R::QuantNvfp4Tensors}},
    // Silent mis-loads carry no exception and no message.
    {Msg::Nvfp4CuMisLoads, Site::CuLayer, {C::Comfyui, E::MisLoads, "",
      "",
      "comfy/ops.py:1172-1185, 1239"}, 13, {R::QuantWeightCast, R::QuantNvfp4Dtypes, R::QuantNvfp4Layout}},
    {Msg::Nvfp4KtMisLoads, Site::KtOperands, {C::Kitchen, E::MisLoads, "",
      "",
      "float_utils.cuh:111-126 (L3)"}, 0, {R::QuantNvfp4Layout}},
    // ComfyUI comfy/ops.py:1177-1178 (C12).
    {Msg::Mxfp8CuMissingScale, Site::CuLayer, {C::Comfyui, E::Rejects, "ValueError",
      "Missing MXFP8 block scales for layer {layer_name}",
      "comfy/ops.py:1177-1178"}, 12, {R::QuantMxfp8Tensors}},
    // Silent mis-loads carry no exception and no message.
    {Msg::Mxfp8CuMisLoads, Site::CuLayer, {C::Comfyui, E::MisLoads, "",
      "",
      "comfy/ops.py:1172-1185, 1239"}, 13, {R::QuantWeightCast, R::QuantMxfp8Dtypes, R::QuantMxfp8Layout}},
    {Msg::Mxfp8KtMisLoads, Site::KtOperands, {C::Kitchen, E::MisLoads, "",
      "",
      "float_utils.cuh:111-126 (L3)"}, 0, {R::QuantMxfp8Layout}},
    {Msg::Int8SgTensorwise2d, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy tensorwise INT8 layer {prefix!r} needs a 2D weight, got {weight_shape}",
      "quantization_utils.py:362-365"}, 2, {R::QuantInt8WeightRank}},
    {Msg::Int8SgDtypes, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy INT8 layer {prefix!r} needs I8 weights and F32 scales, got {weight_dtype} and {scale_dtype}",
      "quantization_utils.py:368-372"}, 1, {R::QuantInt8Dtypes}},
    {Msg::Int8SgShapes, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy INT8 layer {prefix!r} has incompatible weight/scale shapes: {weight_shape} and {scale_shape}",
      "quantization_utils.py:373-377"}, 3, {R::QuantInt8Shapes}},
    {Msg::Int8SgConvrot, Site::SgConfig, {C::Sglang, E::Rejects, "ValueError",
      "Serialized kitchen_int8 layer {prefix!r} must set convrot=true",
      "kitchen_int8_config.py (S17)"}, 0, {R::QuantInt8Convrot}},
    {Msg::Int8SgGroupsize, Site::SgConfig, {C::Sglang, E::Rejects, "ValueError",
      "Serialized kitchen_int8 layer {prefix!r} must declare convrot_groupsize in (16, 64, 256), got {value!r}",
      "kitchen_int8_config.py (S17)"}, 1, {R::QuantInt8ConvrotGroupsize}},
    // §3.8 records this message with its placeholder expressions elided ("{…}").
    // safespec names them and renders the checkpoint's K and the marker value as
    // str(): the model's layer.input_size equals K for a checkpoint that fits its
    // model, and whether sglang prints the value through int() is not recorded.
    {Msg::Int8SgInputSize, Site::SgMethod, {C::Sglang, E::Rejects, "ValueError",
      "Serialized kitchen_int8 layer {prefix!r} has input size {input_size}, which is not divisible by its "
      "ConvRot group size {convrot_group_size}",
      "kitchen_int8_config.py get_quant_method (S17)"}, 0, {R::QuantInt8ConvrotGroupsize}},
    // The same checks in ConvRotInt8Config (convrot_int8_config.py 7c482815),
    // which the sglang versions of sglang_versions.hpp name; the kernel choice
    // is its own (with backend 'auto', sgl-kernel usable, comfy_kitchen absent).
    {Msg::Int8SgConvRotConvrot, Site::SgConfig, {C::Sglang, E::Rejects, "ValueError",
      "Serialized convrot_int8 layer {prefix!r} must set convrot=true",
      "convrot_int8_config.py 7c482815 __init__"}, 0, {R::QuantInt8Convrot}},
    {Msg::Int8SgConvRotGroupsize, Site::SgConfig, {C::Sglang, E::Rejects, "ValueError",
      "Serialized convrot_int8 layer {prefix!r} must declare convrot_groupsize in (16, 64, 256), got {value!r}",
      "convrot_int8_config.py 7c482815 __init__"}, 1, {R::QuantInt8ConvrotGroupsize}},
    {Msg::Int8SgConvRotInputSize, Site::SgMethod, {C::Sglang, E::Rejects, "ValueError",
      "Serialized convrot_int8 layer {prefix!r} has input size {input_size}, which is not divisible by its "
      "ConvRot group size {convrot_group_size}",
      "convrot_int8_config.py 7c482815 get_quant_method"}, 0, {R::QuantInt8ConvrotGroupsize}},
    {Msg::Int8SgConvRotNoKernel, Site::SgMethod, {C::Sglang, E::Rejects, "ValueError",
      "Serialized convrot_int8 layer {prefix!r} has no kernel: ConvRot group {group_size}, {out_size} outputs; "
      "backend 'auto'; sgl_kernel serves group sizes (64, 128, 256, 512) with an output width that is a multiple "
      "of 8, comfy_kitchen serves group sizes (16, 64, 256) and is not installed (pip install comfy-kitchen)",
      "convrot_int8_config.py 7c482815 get_quant_method, _no_kernel_reason"}, 1, {R::QuantInt8ConvrotGroupsize}},
    {Msg::Int8CuMissingScale, Site::CuLayer, {C::Comfyui, E::Rejects, "ValueError",
      "Missing INT8 weight scale for layer {layer_name}",
      "comfy/ops.py:1188-1189"}, 2, {R::QuantInt8Tensors}},
    // K10 records both shapes as "{shape}"; the eager source prints
    // tuple(weight_scale.shape) after reshape(-1), i.e. (numel,), and
    // tuple(weight.shape). Distinct names keep fill() unambiguous.
    {Msg::Int8KtScale, Site::KtOperands, {C::Kitchen, E::Rejects, "ValueError",
      "INT8 weight scale must be scalar or per-output-channel, got {tuple(weight_scale.shape)} for weight "
      "shape {tuple(weight.shape)}",
      "backends/eager/quantization.py:999-1016 (K10)"}, 0, {R::QuantInt8Shapes}},
    {Msg::Int8KtConvrotDivide, Site::KtOperands, {C::Kitchen, E::Rejects, "ValueError",
      "ConvRot group size {g} does not divide input features {k}",
      "backends/eager/quantization.py:999-1016 (K10)"}, 1, {R::QuantInt8ConvrotGroupsize}},
    // K10's divisibility test is Python's `%`: a group size of 0 raises before
    // any message (CPython 3.11 wording).
    {Msg::Int8KtModuloZero, Site::KtOperands, {C::Kitchen, E::Rejects, "ZeroDivisionError",
      "integer modulo by zero",
      "backends/eager/quantization.py:999-1016 (K10)"}, 1, {R::QuantInt8ConvrotGroupsize}},
    {Msg::Int8KtHadamard, Site::KtOperands, {C::Kitchen, E::Rejects, "ValueError",
      "Regular Hadamard size must be a power of 4, got {size}",
      "tensor/int8_utils.py:21-22 (K6)"}, 2, {R::QuantInt8ConvrotGroupsize}},
    // sglang, quantization_utils.py (S9.4) and kitchen_w4a4_config.py (S15.5).
    {Msg::W4a4SgDtypes, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy W4A4 layer {prefix!r} needs I8 packed weights and F32 scales, got {weight_dtype} and {scale_dtype}",
      "quantization_utils.py:294-298"}, 1, {R::QuantW4a4Dtypes}},
    {Msg::W4a4SgShapes, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy W4A4 layer {prefix!r} has incompatible weight/scale shapes: {weight_shape} and {scale_shape}",
      "quantization_utils.py:299-303"}, 2, {R::QuantW4a4Shapes}},
    {Msg::W4a4SgGroupsize, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy W4A4 layer {prefix!r} has unsupported convrot_groupsize={convrot_group_size}",
      "quantization_utils.py:305-310"}, 3, {R::QuantW4a4Groupsize}},
    {Msg::W4a4SgInputSize, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy W4A4 layer {prefix!r} has input size {logical_input_size}, incompatible with quant_group_size=64 "
      "and convrot_groupsize={convrot_group_size}",
      "quantization_utils.py:311-316"}, 4, {R::QuantW4a4K}},
    {Msg::W4a4SgLinearDtype, Site::SgConfig, {C::Sglang, E::Rejects, "ValueError",
      "Serialized W4A4 layer {prefix!r} has unsupported linear_dtype={linear_dtype!r}; expected one of "
      "('int4', 'int8')",
      "kitchen_w4a4_config.py:122-137"}, 5, {R::QuantW4a4LinearDtype}},
    // ComfyUI, comfy/ops.py (C12, C13).
    {Msg::W4a4CuMissingScale, Site::CuLayer, {C::Comfyui, E::Rejects, "ValueError",
      "Missing ConvRot W4A4 weight scale for layer {layer_name}",
      "comfy/ops.py:1201-1202"}, 12, {R::QuantW4a4Tensors}},
    {Msg::W4a4CuWeightCast, Site::CuLayer, {C::Comfyui, E::MisLoads, "",
      "",
      "comfy/ops.py:1239"}, 13, {R::QuantWeightCast}},
    // comfy-kitchen: W4A4 Params (K2, raised by ComfyUI too, from C13), then the
    // run-time checks (K9, and the eager Hadamard K6).
    {Msg::W4a4KtLinearDtype, Site::KtParams, {C::Kitchen, E::Rejects, "ValueError",
      "ConvRot W4A4 linear_dtype must be 'int4' or 'int8', got {v!r}",
      "tensor/convrot_w4a4.py:128-131"}, 2, {R::QuantW4a4LinearDtype}},
    {Msg::W4a4KtInputK, Site::KtOperands, {C::Kitchen, E::Rejects, "ValueError",
      "Input K={a} not divisible by convrot_groupsize {c}",
      "backends/cuda/__init__.py:1169-1174, 1201-1207, 1237-1244"}, 91, {R::QuantW4a4K}},
    {Msg::W4a4KtHadamard, Site::KtOperands, {C::Kitchen, E::Rejects, "ValueError",
      "Regular Hadamard size must be a power of 4, got {size}",
      "backends/eager/convrot_w4a4.py:15-41"}, 96, {R::QuantW4a4Groupsize}},
    {Msg::W4a4CuParamsLinearDtype, Site::CuLayer, {C::Comfyui, E::Rejects, "ValueError",
      "ConvRot W4A4 linear_dtype must be 'int4' or 'int8', got {v!r}",
      "tensor/convrot_w4a4.py:128-131"}, 21, {R::QuantW4a4LinearDtype}},
    // sglang, quantization_utils.py (S9.3) and the W4A8 config (S12.3, S13.5).
    {Msg::W4a8SgGroupSize, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy W4A8 layer {prefix!r} has invalid group_size={group_size}",
      "quantization_utils.py:239-243"}, 1, {R::QuantW4a8GroupSize}},
    {Msg::W4a8SgDtypes, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy W4A8 layer {prefix!r} needs I8 weights and FP8 group scales, got {weight_dtype} and {scale_dtype}",
      "quantization_utils.py:244-248"}, 2, {R::QuantW4a8Dtypes}},
    {Msg::W4a8SgChannelDtype, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy W4A8 layer {prefix!r} needs F32 channel scales, got {channel_dtype}",
      "quantization_utils.py:249-253"}, 3, {R::QuantW4a8ChannelDtype}},
    {Msg::W4a8SgWeightRank, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy W4A8 layer {prefix!r} needs a 2D packed weight, got {weight_shape}",
      "quantization_utils.py:254-258"}, 4, {R::QuantW4a8WeightRank}},
    {Msg::W4a8SgShapes, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy W4A8 layer {prefix!r} has incompatible weight/scale shapes: {weight_shape}, {scale_shape}, and "
      "{channel_shape}",
      "quantization_utils.py:259-267"}, 5, {R::QuantW4a8Shapes}},
    {Msg::W4a8SgCodebook, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy W4A8 layer {prefix!r} needs an F32[16] codebook",
      "quantization_utils.py:272-278"}, 7, {R::QuantW4a8Codebook}},
    {Msg::W4a8SgCorrection, Site::SgLayer, {C::Sglang, E::Rejects, "ValueError",
      "Comfy W4A8 layer {prefix!r} has an incompatible correction tensor",
      "quantization_utils.py:279-289"}, 8, {R::QuantW4a8Correction}},
    {Msg::W4a8SgConvrot, Site::SgConfig, {C::Sglang, E::Rejects, "ValueError",
      "Serialized W4A8 layer {prefix!r} must set convrot=true",
      "kitchen_w4a8_config.py:61-64"}, 3, {R::QuantW4a8Convrot}},
    {Msg::W4a8SgInputSize, Site::SgMethod, {C::Sglang, E::Rejects, "ValueError",
      "Serialized W4A8 layer {prefix!r} has input size {layer.input_size}, incompatible with "
      "group_size={group_size} and convrot_groupsize={convrot_group_size}",
      "kitchen_w4a8_config.py:113-120"}, 5, {R::QuantW4a8K}},
    // Python's own: K % 0 in _supports_input_size (S13.5), CPython 3.11 text.
    {Msg::W4a8SgZeroDivision, Site::SgMethod, {C::Sglang, E::Rejects, "ZeroDivisionError",
      "integer modulo by zero",
      "kitchen_w4a8_config.py:129-139"}, 5, {R::QuantW4a8K}},
    // ComfyUI, comfy/ops.py (C12, C13).
    {Msg::W4a8CuMissingSRel, Site::CuLayer, {C::Comfyui, E::Rejects, "ValueError",
      "Missing W4A8 group scale (weight_s_rel) for layer {layer_name}",
      "comfy/ops.py:1218-1219"}, 12, {R::QuantW4a8Tensors}},
    {Msg::W4a8CuCorrectionDropped, Site::CuLayer, {C::Comfyui, E::MisLoads, "",
      "",
      "comfy/ops.py:1225-1233"}, 12, {R::QuantW4a8CorrectionIgnored}},
    {Msg::W4a8CuWeightCast, Site::CuLayer, {C::Comfyui, E::MisLoads, "",
      "",
      "comfy/ops.py:1239"}, 13, {R::QuantWeightCast}},
    // comfy-kitchen W4A8 Params (K1, CK tensor/w4a8_int8.py:142-176): ComfyUI
    // raises them too, from C13.
    {Msg::W4a8KtOrigShape, Site::KtParams, {C::Kitchen, E::Rejects, "ValueError",
      "orig_shape must be 2D, got {shape}",
      "tensor/w4a8_int8.py:142-176"}, 1, {R::QuantW4a8WeightRank}},
    {Msg::W4a8KtKRule, Site::KtParams, {C::Kitchen, E::Rejects, "ValueError",
      "K={k} must be divisible by 16, group_size={g}, and convrot_groupsize={c}; group_size must be >=4 and "
      "divide 16 or be a multiple of 16",
      "tensor/w4a8_int8.py:142-176"}, 2, {R::QuantW4a8K}},
    {Msg::W4a8KtZeroDivision, Site::KtParams, {C::Kitchen, E::Rejects, "ZeroDivisionError",
      "integer modulo by zero",
      "tensor/w4a8_int8.py:142-176"}, 2, {R::QuantW4a8K}},
    {Msg::W4a8KtScale, Site::KtParams, {C::Kitchen, E::Rejects, "ValueError",
      "scale must have shape {(n,groups)}, got {…}",
      "tensor/w4a8_int8.py:142-176"}, 3, {R::QuantW4a8Shapes}},
    {Msg::W4a8KtChannel, Site::KtParams, {C::Kitchen, E::Rejects, "ValueError",
      "s_channel must have shape {(n,)}, got {…}",
      "tensor/w4a8_int8.py:142-176"}, 4, {R::QuantW4a8Tensors, R::QuantW4a8Shapes}},
    {Msg::W4a8KtCodebook, Site::KtParams, {C::Kitchen, E::Rejects, "ValueError",
      "codebook must have shape (16,), got {…}",
      "tensor/w4a8_int8.py:142-176"}, 6, {R::QuantW4a8Codebook}},
    // Run time: the eager/Triton Hadamard (K6) and the CUDA fused activation
    // quantizer every CUDA W4A8 call goes through (K7). The check sits in CUDA
    // C++ (int8_linear.cu), where a failed TORCH_CHECK reaches Python as
    // RuntimeError; the reference records no class, so this is inferred.
    {Msg::W4a8KtHadamard, Site::KtOperands, {C::Kitchen, E::Rejects, "ValueError",
      "Regular Hadamard size must be a power of 4, got {size}",
      "tensor/int8_utils.py:21-22"}, 80, {R::QuantW4a8Hadamard}},
    {Msg::W4a8KtCudaGroup, Site::KtOperands, {C::Kitchen, E::Rejects, "RuntimeError",
      "convrot fused kernel only supports group_size 256",
      "backends/cuda/ops/int8_linear.cu:1101-1106"}, 71, {R::QuantW4a8CudaGroupsize}},
    {Msg::W4a8KtCudaK, Site::KtOperands, {C::Kitchen, E::Rejects, "RuntimeError",
      "convrot fused kernel requires K divisible by 256",
      "backends/cuda/ops/int8_linear.cu:1101-1106"}, 72, {R::QuantW4a8CudaGroupsize}},
    {Msg::W4a8CuParamsChannel, Site::CuLayer, {C::Comfyui, E::Rejects, "ValueError",
      "s_channel must have shape {(n,)}, got {…}",
      "tensor/w4a8_int8.py:142-176"}, 24, {R::QuantW4a8Tensors, R::QuantW4a8Shapes}},
    {Msg::W4a8CuParamsOrigShape, Site::CuLayer, {C::Comfyui, E::Rejects, "ValueError",
      "orig_shape must be 2D, got {shape}",
      "tensor/w4a8_int8.py:142-176"}, 21, {R::QuantW4a8WeightRank}},
    {Msg::W4a8CuParamsScale, Site::CuLayer, {C::Comfyui, E::Rejects, "ValueError",
      "scale must have shape {(n,groups)}, got {…}",
      "tensor/w4a8_int8.py:142-176"}, 23, {R::QuantW4a8Shapes}},
    {Msg::W4a8CuParamsCodebook, Site::CuLayer, {C::Comfyui, E::Rejects, "ValueError",
      "codebook must have shape (16,), got {…}",
      "tensor/w4a8_int8.py:142-176"}, 26, {R::QuantW4a8Codebook}},
    {Msg::W4a8CuParamsZeroDivision,
     Site::CuLayer, {C::Comfyui, E::Rejects, "ZeroDivisionError",
      "integer modulo by zero",
      "tensor/w4a8_int8.py:142-176"}, 22, {R::QuantW4a8K}},
    {Msg::W4a8CuParamsKRule, Site::CuLayer, {C::Comfyui, E::Rejects, "ValueError",
      "K={k} must be divisible by 16, group_size={g}, and convrot_groupsize={c}; group_size must be >=4 and "
      "divide 16 or be a multiple of 16",
      "tensor/w4a8_int8.py:142-176"}, 22, {R::QuantW4a8K}},
    // comfy-kitchen 2a6f4ef9's eager operand checks on a 6-bit layer
    // (validate_w4a8_operands, _w4a8_geometry, _check_six_bit_layout), in
    // its order and before K7: verdicts of kitchen 2a6f4ef only.
    {Msg::W6a8KtGroupSize, Site::KtOperands, {C::Kitchen, E::Rejects, "ValueError",
      "group_size={group_size} must be >=4 and divide 16 or be a multiple of 16",
      "backends/eager/w4a8_int8.py (2a6f4ef9) validate_w4a8_operands"}, 61, {R::QuantW6a8Geometry}},
    {Msg::W6a8KtLayout, Site::KtOperands, {C::Kitchen, E::Rejects, "ValueError",
      "6-bit storage needs K divisible by 32 and group_size a multiple of 16, got K={k}, group_size={group_size}",
      "backends/eager/w4a8_int8.py (2a6f4ef9) _check_six_bit_layout"}, 62, {R::QuantW6a8Geometry}},
    {Msg::W6a8KtCodebook, Site::KtOperands, {C::Kitchen, E::Rejects, "ValueError",
      "6-bit storage is uniform and symmetric: no codebook or correction",
      "backends/eager/w4a8_int8.py (2a6f4ef9) validate_w4a8_operands"}, 63, {R::QuantW6a8Codebook}},
    {Msg::AwqCuMissingScales, Site::CuLayer, {C::Comfyui, E::Rejects, "ValueError",
      "Missing AWQ W4A16 scale/zeros for layer {layer_name}",
      "CL comfy/ops.py, awq branch"}, 2, {R::QuantAwqTensors, R::QuantAwqZeroSpelling}},
};

constexpr bool rows_in_enum_order() {
  for (std::size_t i = 0; i < std::size(kRows); ++i)
    if (static_cast<std::size_t>(kRows[i].id) != i + 1) return false;
  return true;
}
static_assert(rows_in_enum_order(), "kRows follow Msg, after Msg::None");

constexpr std::string_view kMsgNames[] = {
    "",
#define SAFESPEC_MSG_NAME(name) #name,
    SAFESPEC_CONSUMER_MESSAGES(SAFESPEC_MSG_NAME)
#undef SAFESPEC_MSG_NAME
};
static_assert(std::size(kMsgNames) == std::size(kRows) + 1, "one row for every Msg but Msg::None");

}  // namespace

std::span<const MessageRow> consumer_matrix() { return kRows; }

const MessageRow& message_row(Msg m) { return kRows[static_cast<std::size_t>(m) - 1]; }

std::string_view msg_name(Msg m) { return kMsgNames[static_cast<std::size_t>(m)]; }

std::string_view site_name(Site s) {
  switch (s) {
    case Site::SgContainer:
      return "sg_container";
    case Site::SgQmeta:
      return "sg_qmeta";
    case Site::SgQmetaLayer:
      return "sg_qmeta_layer";
    case Site::SgTensorMarker:
      return "sg_tensor_marker";
    case Site::SgMxfp8Global:
      return "sg_mxfp8_global";
    case Site::SgMissingMarkers:
      return "sg_missing_markers";
    case Site::SgLayer:
      return "sg_layer";
    case Site::SgResolution:
      return "sg_resolution";
    case Site::SgConfig:
      return "sg_config";
    case Site::SgMethod:
      return "sg_method";
    case Site::CuContainer:
      return "cu_container";
    case Site::CuConvert:
      return "cu_convert";
    case Site::CuLayer:
      return "cu_layer";
    case Site::KtContainer:
      return "kt_container";
    case Site::KtParams:
      return "kt_params";
    case Site::KtOperands:
      return "kt_operands";
    case Site::Computed:
      return "computed";
  }
  return "";
}

CheckOrder order_at(Site s, At at, std::uint32_t step) {
  switch (s) {
    case Site::SgContainer:
      return order::sg_container(at.index);
    case Site::SgQmeta:
      return order::sg_qmeta(at.index, step);
    case Site::SgQmetaLayer:
      return order::sg_qmeta_layer(at.index, at.second);
    case Site::SgTensorMarker:
      return order::sg_tensor_marker(at.index, at.second);
    case Site::SgMxfp8Global:
      return order::sg_mxfp8_global(at.index);
    case Site::SgMissingMarkers:
      return order::sg_missing_markers();
    case Site::SgLayer:
      return order::sg_layer(at.index, step);
    case Site::SgResolution:
      return order::sg_resolution();
    case Site::SgConfig:
      return order::sg_config(at.index, step);
    case Site::SgMethod:
      return order::sg_method(at.index, step);
    case Site::CuContainer:
      return order::cu_container(at.index);
    case Site::CuConvert:
      return order::cu_convert(at.index, step);
    case Site::CuLayer:
      return order::cu_layer(at.index, step);
    case Site::KtContainer:
      return order::kt_container(at.index);
    case Site::KtParams:
      return order::kt_params(at.index, step);
    case Site::KtOperands:
      return order::kt_operands(at.index, step);
    case Site::Computed:
      break;
  }
  return {};
}

Verdict verdict(Msg m, At at, std::initializer_list<Arg> args) {
  const MessageRow& r = message_row(m);
  return verdict(m, order_at(r.site, at, r.step), args);
}

Verdict verdict(Msg m, CheckOrder order, std::initializer_list<Arg> args) {
  Verdict v = verdict(message_row(m).t, order, args);
  v.row = static_cast<std::uint16_t>(m);
  return v;
}

}  // namespace safespec::quant
