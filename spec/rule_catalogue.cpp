#include "spec/rule_catalogue.hpp"

#include <array>

namespace safespec {

namespace {
using enum RuleId;
constexpr Severity E = Severity::Error;
constexpr Severity W = Severity::Warning;

constexpr std::array<RuleInfo, kRuleCount> kRules{{
    {FileTooSmall, "ST-FILE-TOO-SMALL", E, "F1", "HeaderTooSmall",
     "the file holds at least the 8-byte header length"},
    {HeaderTooLarge, "ST-HEADER-TOO-LARGE", E, "F3", "HeaderTooLarge",
     "the header length N is at most 100,000,000 bytes"},
    {HeaderLength, "ST-HEADER-LENGTH", E, "F4", "InvalidHeaderLength",
     "8 + N does not exceed the file size"},
    {HeaderUtf8, "ST-HEADER-UTF8", E, "F5", "InvalidHeader",
     "all N header bytes, padding included, are valid UTF-8"},
    {JsonSyntax, "ST-JSON-SYNTAX", E, "F6.1, F6.2, F6.4", "InvalidHeaderDeserialization",
     "the header is exactly one strict RFC 8259 JSON value surrounded only by SP, TAB, LF, CR"},
    {JsonDepth, "ST-JSON-DEPTH", E, "F6.6", "InvalidHeaderDeserialization",
     "arrays and objects nest at most 127 deep (serde_json's recursion limit of 128)"},
    {JsonNotObject, "ST-JSON-NOT-OBJECT", E, "F6.3", "InvalidHeaderDeserialization",
     "the header's top-level value is an object"},
    {MetadataDuplicate, "ST-METADATA-DUPLICATE", E, "F6.8", "InvalidHeaderDeserialization",
     "the key __metadata__ appears at most once"},
    {MetadataType, "ST-METADATA-TYPE", E, "F6.7", "InvalidHeaderDeserialization",
     "__metadata__ is null or an object whose values are all strings"},
    {TensorNotObject, "ST-TENSOR-NOT-OBJECT", E, "F6.10", "InvalidHeaderDeserialization",
     "every top-level key other than __metadata__ maps to a tensor object"},
    {TensorFieldMissing, "ST-TENSOR-FIELD-MISSING", E, "F6.11", "InvalidHeaderDeserialization",
     "a tensor entry has dtype, shape and data_offsets"},
    {TensorFieldDuplicate, "ST-TENSOR-FIELD-DUPLICATE", E, "F6.11", "InvalidHeaderDeserialization",
     "a tensor entry names each of dtype, shape and data_offsets once"},
    {DtypeUnknown, "ST-DTYPE-UNKNOWN", E, "F6.12", "InvalidHeaderDeserialization",
     "dtype is a string naming one of the 22 dtypes exactly"},
    {ShapeType, "ST-SHAPE-TYPE", E, "F6.13", "InvalidHeaderDeserialization",
     "shape is an array of integers in [0, 2^64-1]"},
    {OffsetsType, "ST-OFFSETS-TYPE", E, "F6.14", "InvalidHeaderDeserialization",
     "data_offsets is an array of exactly two integers in [0, 2^64-1]"},
    {OffsetGap, "ST-OFFSET-GAP", E, "F8", "InvalidOffset",
     "sorted by (begin, end), each tensor begins where the previous one ended (no gap)"},
    {OffsetOverlap, "ST-OFFSET-OVERLAP", E, "F8", "InvalidOffset",
     "sorted by (begin, end), no tensor begins before the previous one ended (no overlap)"},
    {OffsetReversed, "ST-OFFSET-REVERSED", E, "F8", "InvalidOffset",
     "data_offsets end is not below begin"},
    {ShapeOverflow, "ST-SHAPE-OVERFLOW", E, "F9", "ValidationOverflow",
     "the shape product, folded left to right from 1, fits in 64 bits"},
    {NbitsOverflow, "ST-NBITS-OVERFLOW", E, "F10", "ValidationOverflow",
     "element count times dtype bits fits in 64 bits"},
    {MisalignedBits, "ST-MISALIGNED-BITS", E, "F11", "MisalignedSlice",
     "element count times dtype bits is a whole number of bytes"},
    {SizeMismatch, "ST-SIZE-MISMATCH", E, "F12", "TensorInvalidInfo",
     "end - begin equals the tensor's byte size"},
    {BufferTrailing, "ST-BUFFER-TRAILING", E, "F13", "MetadataIncompleteBuffer",
     "no bytes follow the last tensor's data"},
    {BufferTruncated, "ST-BUFFER-TRUNCATED", E, "F13", "MetadataIncompleteBuffer",
     "the file holds every byte the tensors' offsets name"},
    {DuplicateTensor, "ST-DUPLICATE-TENSOR", E, "X3", "",
     "no tensor name appears twice (the reference keeps the last)"},
    {DuplicateTensorEscaped, "ST-DUPLICATE-TENSOR-ESCAPED", E, "X3", "",
     "no two tensor names differ only in JSON escapes (F6.5 makes them one name)"},
    {DuplicateMetadataKey, "ST-DUPLICATE-METADATA-KEY", E, "X3", "",
     "no __metadata__ key appears twice (the reference keeps the last, F6.9)"},
    {DuplicateNestedKey, "ST-DUPLICATE-NESTED-KEY", E, "X3", "",
     "no key repeats among a tensor entry's unknown fields or inside their values (the reference ignores them)"},
    {HeaderUnaligned, "ST-HEADER-UNALIGNED", W, "W5", "",
     "8 + N is a multiple of 8, so the data section is 8-aligned"},
    {HeaderLeadingSpace, "ST-HEADER-LEADING-SPACE", W, "X1", "",
     "the header begins with '{' (README:78; the reference accepts leading whitespace)"},
    {TensorUnaligned, "ST-TENSOR-UNALIGNED", W, "W8", "",
     "each tensor's data starts at a file offset that is a multiple of its element size"},
    {MetadataNull, "ST-METADATA-NULL", W, "X8", "",
     "__metadata__ is an object or absent, not null"},
    {TensorUnknownField, "ST-TENSOR-UNKNOWN-FIELD", W, "X19", "",
     "a tensor entry has no fields besides dtype, shape and data_offsets"},
    {TensorNameReserved, "ST-TENSOR-NAME-RESERVED", E, "X10", "",
     "no tensor is named __metadata__ (the writer refuses; a reader sees metadata)"},
    {IndexJson, "ST-INDEX-JSON", E, "index", "",
     "the shard index is a JSON object with a weight_map of strings"},
    {IndexShardMissing, "ST-INDEX-SHARD-MISSING", E, "index", "",
     "every shard the weight_map names is a readable file"},
    {IndexTensorMissing, "ST-INDEX-TENSOR-MISSING", E, "index", "",
     "every weight_map entry exists in the shard it names"},
    {IndexTensorUnlisted, "ST-INDEX-TENSOR-UNLISTED", E, "index", "",
     "every tensor of every shard is listed in weight_map"},
    {IndexTensorInTwoShards, "ST-INDEX-TENSOR-IN-TWO-SHARDS", E, "index", "",
     "no tensor lives in two shards"},
    {IndexTotalSize, "ST-INDEX-TOTAL-SIZE", E, "index", "",
     "metadata.total_size equals the sum of the shards' tensor byte sizes"},
}};

static_assert([] {
  for (std::size_t i = 0; i < kRules.size(); ++i)
    if (static_cast<std::size_t>(kRules[i].id) != i) return false;
  return true;
}(), "rule catalogue must be in RuleId order");
}  // namespace

std::span<const RuleInfo> rule_catalogue() { return kRules; }

const RuleInfo& rule_info(RuleId id) { return kRules[static_cast<std::size_t>(id)]; }

std::string_view rule_name(RuleId id) { return rule_info(id).name; }

bool profile_applies(Profile p, RuleId id) {
  if (p == Profile::Strict) return true;
  const RuleInfo& info = rule_info(id);
  // The index rules describe a set of files the reference never reads as one;
  // a sharded checkpoint the index lies about fails to load in every consumer,
  // so they stay on in the safetensors profile too.
  return !info.reference.empty() || info.rule_number == "index";
}

std::string_view profile_name(Profile p) {
  return p == Profile::Strict ? "strict" : "safetensors";
}

Finding to_finding(const Error& e) {
  return Finding{e.rule, rule_info(e.rule).severity, e.where, e.message};
}

}  // namespace safespec
