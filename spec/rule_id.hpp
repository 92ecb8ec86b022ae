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
};

inline constexpr std::uint16_t kRuleCount = static_cast<std::uint16_t>(RuleId::IndexTotalSize) + 1;

}  // namespace safespec
