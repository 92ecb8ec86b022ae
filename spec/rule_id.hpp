// Stable identifiers for every rule safespec decides. The spelling ("ST-...")
// lives in the catalogue (rule_catalogue.cpp); code refers to rules by enum.
#pragma once

#include <cstdint>

namespace safespec {

enum class RuleId : std::uint16_t {
  // File prefix and header text (F1-F6): the first of these ends parsing.
  FileTooSmall,          // F1
  HeaderTooLarge,        // F2, F3, W6
  HeaderLength,          // F4
  HeaderUtf8,            // F5
  JsonSyntax,            // F6.1, F6.2, F6.4
  JsonDepth,             // F6.6
  JsonNotObject,         // F6.3
  MetadataDuplicate,     // F6.8
  MetadataType,          // F6.7
  TensorNotObject,       // F6.10
  TensorFieldMissing,    // F6.11
  TensorFieldDuplicate,  // F6.11
  DtypeUnknown,          // F6.12
  ShapeType,             // F6.13, F6.15
  OffsetsType,           // F6.14, F6.15
  // Model rules (F8-F13): every violation is reported.
  OffsetGap,             // F8
  OffsetOverlap,         // F8
  OffsetReversed,        // F8
  ShapeOverflow,         // F9
  NbitsOverflow,         // F10
  MisalignedBits,        // F11
  SizeMismatch,          // F12
  BufferTrailing,        // F13
  BufferTruncated,       // F13
  // What the written spec forbids but the reference lets through (strict).
  DuplicateTensor,       // X3, F6.16
  DuplicateTensorEscaped,// X3, F6.5
  DuplicateMetadataKey,  // X3, F6.9
  DuplicateNestedKey,    // X3, F6.11
  // Portability hazards (strict warnings).
  HeaderUnaligned,       // §6, W5
  HeaderLeadingSpace,    // X1
  TensorUnaligned,       // §6, W8
  MetadataNull,          // X8
  TensorUnknownField,    // F6.11, X19
  // Writer refusals.
  TensorNameReserved,    // X10
  // Sharded checkpoints (model.safetensors.index.json).
  IndexJson,
  IndexShardMissing,
  IndexTensorMissing,
  IndexTensorUnlisted,
  IndexTensorInTwoShards,
  IndexTotalSize,
  // Comfy quantized layers (comfy-quant-markers.md), checked over a whole
  // checkpoint; spec/quant/ decides them.
  QuantMarkerJson,         // CQ-MARKER-JSON
  QuantMarkerNotObject,    // CQ-MARKER-NOT-OBJECT
  QuantMarkerTooLarge,     // CQ-MARKER-SIZE
  QuantMarkerEncoding,     // CQ-MARKER-ENCODING
  QuantMarkerDtype,        // CQ-MARKER-DTYPE
  QuantMetaJson,           // CQ-QMETA-JSON
  QuantMetaNotObject,      // CQ-QMETA-NOT-OBJECT
  QuantMetaLayers,         // CQ-QMETA-LAYERS
  QuantMetaLayerNotObject, // CQ-QMETA-LAYER-NOT-OBJECT
  QuantMarkerConflict,     // CQ-MARKER-CONFLICT
  QuantMarkerOrphan,       // CQ-MARKER-ORPHAN
  QuantMarkerMissing,      // CQ-MARKER-MISSING
  QuantLegacyScaledFp8,    // CQ-LEGACY-SCALED-FP8
  QuantMxfp8Global,        // CQ-MXFP8-GLOBAL
  QuantFormatMissing,      // CQ-FORMAT-MISSING
  QuantFormatUnknown,      // CQ-FORMAT-UNKNOWN
  QuantSglangFormats,      // CQ-SGLANG-FORMATS
  QuantSglangCompanion,    // CQ-SGLANG-COMPANION
  QuantKeyType,            // CQ-MARKER-KEY-TYPE
  QuantKeyInt,             // CQ-MARKER-INT
  QuantParamsNested,       // CQ-MARKER-PARAMS
  QuantWeightCast,         // CQ-WEIGHT-CAST
  QuantDtypeComfyMmap,     // CQ-DTYPE-COMFY-MMAP
  QuantFp8Tensors,         // CQ-FP8-TENSORS
  QuantFp8Scale,           // CQ-FP8-SCALE
  QuantFp8Weight,          // CQ-FP8-WEIGHT
  QuantNvfp4Tensors,       // CQ-NVFP4-TENSORS
  QuantNvfp4Dtypes,        // CQ-NVFP4-DTYPES
  QuantNvfp4GlobalScale,   // CQ-NVFP4-GLOBAL-SCALE
  QuantNvfp4WeightRank,    // CQ-NVFP4-WEIGHT-RANK
  QuantNvfp4Shapes,        // CQ-NVFP4-SHAPES
  QuantNvfp4Layout,        // CQ-NVFP4-LAYOUT
  QuantNvfp4PreQuantScale, // CQ-NVFP4-PRE-QUANT-SCALE
  QuantNvfp4FullPrecision, // CQ-NVFP4-FULL-PRECISION
  QuantMxfp8Tensors,       // CQ-MXFP8-TENSORS
  QuantMxfp8Dtypes,        // CQ-MXFP8-DTYPES
  QuantMxfp8Layout,        // CQ-MXFP8-LAYOUT
  QuantInt8Tensors,        // CQ-INT8-TENSORS
  QuantInt8WeightRank,     // CQ-INT8-WEIGHT-RANK
  QuantInt8Dtypes,         // CQ-INT8-DTYPES
  QuantInt8Shapes,         // CQ-INT8-SHAPES
  QuantInt8Convrot,        // CQ-INT8-CONVROT
  QuantInt8ConvrotGroupsize, // CQ-INT8-CONVROT-GROUPSIZE
  QuantW4a4Tensors,        // CQ-W4A4-TENSORS
  QuantW4a4Dtypes,         // CQ-W4A4-DTYPES
  QuantW4a4Shapes,         // CQ-W4A4-SHAPES
  QuantW4a4Groupsize,      // CQ-W4A4-GROUPSIZE
  QuantW4a4K,              // CQ-W4A4-K
  QuantW4a4LinearDtype,    // CQ-W4A4-LINEAR-DTYPE
  QuantW4a8Tensors,        // CQ-W4A8-TENSORS
  QuantW4a8GroupSize,      // CQ-W4A8-GROUP-SIZE
  QuantW4a8Dtypes,         // CQ-W4A8-DTYPES
  QuantW4a8ChannelDtype,   // CQ-W4A8-CHANNEL-DTYPE
  QuantW4a8WeightRank,     // CQ-W4A8-WEIGHT-RANK
  QuantW4a8Shapes,         // CQ-W4A8-SHAPES
  QuantW4a8Codebook,       // CQ-W4A8-CODEBOOK
  QuantW4a8Correction,     // CQ-W4A8-CORRECTION
  QuantW4a8CorrectionIgnored, // CQ-W4A8-CORRECTION-IGNORED
  QuantW4a8Convrot,        // CQ-W4A8-CONVROT
  QuantW4a8K,              // CQ-W4A8-K
  QuantW4a8Hadamard,       // CQ-W4A8-HADAMARD
  QuantW4a8CudaGroupsize,  // CQ-W4A8-CUDA-GROUPSIZE
  QuantAwqTensors,         // CQ-AWQ-TENSORS
  QuantAwqShapes,          // CQ-AWQ-SHAPES
  QuantKInt32,             // NUM-K-INT32-OVERFLOW
  DataScale,               // CQ-DATA-SCALE
  DataSRel,                // CQ-DATA-S-REL
  DataCodebook,            // CQ-DATA-CODEBOOK
  DataCodebookOrder,       // CQ-DATA-CODEBOOK-ORDER
  DataE8m0,                // CQ-DATA-E8M0
  DataSwizzlePadding,      // CQ-DATA-SWIZZLE-PADDING
  DataW4a4Range,           // CQ-DATA-W4A4-RANGE
  DataInt8Range,           // CQ-DATA-INT8-RANGE
};

inline constexpr std::uint16_t kRuleCount = static_cast<std::uint16_t>(RuleId::DataInt8Range) + 1;

}  // namespace safespec
