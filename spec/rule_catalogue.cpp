#include "spec/rule_catalogue.hpp"

#include <array>

namespace safespec {

namespace {
using enum RuleId;
constexpr Severity E = Severity::Error;
constexpr Severity W = Severity::Warning;
constexpr RuleScope Cn = RuleScope::Container, St = RuleScope::Strict, Wr = RuleScope::Writer,
                    Ix = RuleScope::Index, Qn = RuleScope::Quant;
constexpr RuleTier Hd = RuleTier::Header, Dt = RuleTier::Data;

constexpr std::array<RuleInfo, kRuleCount> kRules{{
    {FileTooSmall, "ST-FILE-TOO-SMALL", E, Cn, Hd, "F1", "HeaderTooSmall",
     "the file holds at least the 8-byte header length",
     "the file is cut short: copy or download it again"},
    {HeaderTooLarge, "ST-HEADER-TOO-LARGE", E, Cn, Hd, "F3", "HeaderTooLarge",
     "the header length N is at most 100,000,000 bytes",
     "move large metadata out of the header (it must stay under 100,000,000 bytes) or shard the checkpoint"},
    {HeaderLength, "ST-HEADER-LENGTH", E, Cn, Hd, "F4", "InvalidHeaderLength",
     "8 + N does not exceed the file size",
     "the file is cut short or its first 8 bytes are wrong: copy it again, or rewrite it with a safetensors writer"},
    {HeaderUtf8, "ST-HEADER-UTF8", E, Cn, Hd, "F5", "InvalidHeader",
     "all N header bytes, padding included, are valid UTF-8",
     "write the header as UTF-8 (names and metadata included) and pad it with spaces, not NUL bytes"},
    {JsonSyntax, "ST-JSON-SYNTAX", E, Cn, Hd, "F6.1, F6.2, F6.4", "InvalidHeaderDeserialization",
     "the header is exactly one strict RFC 8259 JSON value surrounded only by SP, TAB, LF, CR",
     "write the header with a JSON serializer: no comments, trailing commas, NaN or single quotes"},
    {JsonDepth, "ST-JSON-DEPTH", E, Cn, Hd, "F6.6", "InvalidHeaderDeserialization",
     "arrays and objects nest at most 127 deep (serde_json's recursion limit of 128)",
     "flatten the nested values in the header to at most 127 levels"},
    {JsonNotObject, "ST-JSON-NOT-OBJECT", E, Cn, Hd, "F6.3", "InvalidHeaderDeserialization",
     "the header's top-level value is an object",
     "make the header one JSON object mapping tensor names to entries"},
    {MetadataDuplicate, "ST-METADATA-DUPLICATE", E, Cn, Hd, "F6.8", "InvalidHeaderDeserialization",
     "the key __metadata__ appears at most once",
     "merge the __metadata__ objects into one"},
    {MetadataType, "ST-METADATA-TYPE", E, Cn, Hd, "F6.7", "InvalidHeaderDeserialization",
     "__metadata__ is null or an object whose values are all strings",
     "store every __metadata__ value as a string (json.dumps nested values first)"},
    {TensorNotObject, "ST-TENSOR-NOT-OBJECT", E, Cn, Hd, "F6.10", "InvalidHeaderDeserialization",
     "every top-level key other than __metadata__ maps to a tensor object",
     "give every tensor an object {dtype, shape, data_offsets}, or move the value into __metadata__"},
    {TensorFieldMissing, "ST-TENSOR-FIELD-MISSING", E, Cn, Hd, "F6.11", "InvalidHeaderDeserialization",
     "a tensor entry has dtype, shape and data_offsets",
     "add the missing dtype, shape or data_offsets field to the tensor entry"},
    {TensorFieldDuplicate, "ST-TENSOR-FIELD-DUPLICATE", E, Cn, Hd, "F6.11", "InvalidHeaderDeserialization",
     "a tensor entry names each of dtype, shape and data_offsets once",
     "keep one of each of dtype, shape and data_offsets in the tensor entry"},
    {DtypeUnknown, "ST-DTYPE-UNKNOWN", E, Cn, Hd, "F6.12", "InvalidHeaderDeserialization",
     "dtype is a string naming one of the 22 dtypes exactly",
     "spell dtype as one of the 22 safetensors names, case included (F32, BF16, F8_E4M3, ...)"},
    {ShapeType, "ST-SHAPE-TYPE", E, Cn, Hd, "F6.13", "InvalidHeaderDeserialization",
     "shape is an array of integers in [0, 2^64-1]",
     "write shape as an array of non-negative integers, without fractions, exponents or signs"},
    {OffsetsType, "ST-OFFSETS-TYPE", E, Cn, Hd, "F6.14", "InvalidHeaderDeserialization",
     "data_offsets is an array of exactly two integers in [0, 2^64-1]",
     "write data_offsets as two non-negative integers [begin, end] relative to the data section"},
    {OffsetGap, "ST-OFFSET-GAP", E, Cn, Hd, "F8", "InvalidOffset",
     "sorted by (begin, end), each tensor begins where the previous one ended (no gap)",
     "pack the tensors' data back to back (rewrite the file with a safetensors writer)"},
    {OffsetOverlap, "ST-OFFSET-OVERLAP", E, Cn, Hd, "F8", "InvalidOffset",
     "sorted by (begin, end), no tensor begins before the previous one ended (no overlap)",
     "give each tensor its own bytes; two tensors cannot share or overlap data"},
    {OffsetReversed, "ST-OFFSET-REVERSED", E, Cn, Hd, "F8", "InvalidOffset",
     "data_offsets end is not below begin",
     "write data_offsets as [begin, end] with end >= begin"},
    {ShapeOverflow, "ST-SHAPE-OVERFLOW", E, Cn, Hd, "F9", "ValidationOverflow",
     "the shape product, folded left to right from 1, fits in 64 bits",
     "fix the shape: the product of its dimensions must fit in 64 bits"},
    {NbitsOverflow, "ST-NBITS-OVERFLOW", E, Cn, Hd, "F10", "ValidationOverflow",
     "element count times dtype bits fits in 64 bits",
     "fix the shape or dtype: the tensor's size in bits must fit in 64 bits"},
    {MisalignedBits, "ST-MISALIGNED-BITS", E, Cn, Hd, "F11", "MisalignedSlice",
     "element count times dtype bits is a whole number of bytes",
     "give a sub-byte dtype (F4, F6) an element count that fills whole bytes"},
    {SizeMismatch, "ST-SIZE-MISMATCH", E, Cn, Hd, "F12", "TensorInvalidInfo",
     "end - begin equals the tensor's byte size",
     "make end - begin equal the shape's element count times the dtype's size"},
    {BufferTrailing, "ST-BUFFER-TRAILING", E, Cn, Hd, "F13", "MetadataIncompleteBuffer",
     "no bytes follow the last tensor's data",
     "remove the bytes after the last tensor, or declare the tensor they belong to"},
    {BufferTruncated, "ST-BUFFER-TRUNCATED", E, Cn, Hd, "F13", "MetadataIncompleteBuffer",
     "the file holds every byte the tensors' offsets name",
     "the file is cut short: copy or download it again"},
    {DuplicateTensor, "ST-DUPLICATE-TENSOR", E, St, Hd, "X3", "",
     "no tensor name appears twice (the reference keeps the last)",
     "rename or drop one of the two tensors with this name (readers keep only one)"},
    {DuplicateTensorEscaped, "ST-DUPLICATE-TENSOR-ESCAPED", E, St, Hd, "X3", "",
     "no two tensor names differ only in JSON escapes (F6.5 makes them one name)",
     "write each tensor name once, without JSON escapes for plain characters"},
    {DuplicateMetadataKey, "ST-DUPLICATE-METADATA-KEY", E, St, Hd, "X3", "",
     "no __metadata__ key appears twice (the reference keeps the last, F6.9)",
     "keep one value per __metadata__ key"},
    {DuplicateNestedKey, "ST-DUPLICATE-NESTED-KEY", E, St, Hd, "X3", "",
     "no key repeats among a tensor entry's unknown fields or inside their values (the reference ignores them)",
     "remove the repeated key from the tensor entry's extra fields, or drop those fields"},
    {HeaderUnaligned, "ST-HEADER-UNALIGNED", W, St, Hd, "W5", "",
     "8 + N is a multiple of 8, so the data section is 8-aligned",
     "pad the header with spaces to a multiple of 8 bytes"},
    {HeaderLeadingSpace, "ST-HEADER-LEADING-SPACE", W, St, Hd, "X1", "",
     "the header begins with '{' (README:78; the reference accepts leading whitespace)",
     "start the header with '{': move padding spaces to its end"},
    {TensorUnaligned, "ST-TENSOR-UNALIGNED", W, St, Hd, "W8", "",
     "each tensor's data starts at a file offset that is a multiple of its element size",
     "order or pad the tensors so each one's data starts at a multiple of its element size"},
    {MetadataNull, "ST-METADATA-NULL", W, St, Hd, "X8", "",
     "__metadata__ is an object or absent, not null",
     "drop __metadata__ or make it an object"},
    {TensorUnknownField, "ST-TENSOR-UNKNOWN-FIELD", W, St, Hd, "X19", "",
     "a tensor entry has no fields besides dtype, shape and data_offsets",
     "remove the extra fields from the tensor entry; put such information in __metadata__"},
    {TensorNameReserved, "ST-TENSOR-NAME-RESERVED", E, Wr, Hd, "X10", "",
     "no tensor is named __metadata__ (the writer refuses; a reader sees metadata)",
     "rename the tensor: __metadata__ is the header's metadata key"},
    {IndexJson, "ST-INDEX-JSON", E, Ix, Hd, "index", "",
     "the shard index is a JSON object with a weight_map of strings",
     "write the index as a JSON object with a weight_map of tensor names to shard file names"},
    {IndexShardMissing, "ST-INDEX-SHARD-MISSING", E, Ix, Hd, "index", "",
     "every shard the weight_map names is a readable file",
     "put the named shard beside the index, or correct its file name in weight_map"},
    {IndexTensorMissing, "ST-INDEX-TENSOR-MISSING", E, Ix, Hd, "index", "",
     "every weight_map entry exists in the shard it names",
     "add the tensor to the shard weight_map names, or correct weight_map"},
    {IndexTensorUnlisted, "ST-INDEX-TENSOR-UNLISTED", E, Ix, Hd, "index", "",
     "every tensor of every shard is listed in weight_map",
     "list the tensor in weight_map (loaders that go by the index never see it)"},
    {IndexTensorInTwoShards, "ST-INDEX-TENSOR-IN-TWO-SHARDS", E, Ix, Hd, "index", "",
     "no tensor lives in two shards",
     "keep the tensor in one shard only"},
    {IndexTotalSize, "ST-INDEX-TOTAL-SIZE", E, Ix, Hd, "index", "",
     "metadata.total_size equals the sum of the shards' tensor byte sizes",
     "set metadata.total_size to the sum of the shards' tensor byte sizes"},
    {QuantMarkerJson, "CQ-MARKER-JSON", E, Qn, Hd, "M3, S6.1, C7", "",
     "a P.comfy_quant tensor's bytes are one JSON value as Python's json.loads(bytes) reads it",
     "write the marker as json.dumps(dict).encode() in a U8 tensor"},
    {QuantMarkerNotObject, "CQ-MARKER-NOT-OBJECT", E, Qn, Hd, "M4, S6.2, C7", "",
     "a marker is a JSON object",
     "make the marker a JSON object such as {\"format\": \"float8_e4m3fn\"}"},
    {QuantMarkerTooLarge, "CQ-MARKER-SIZE", E, Qn, Hd, "M3", "",
     "a marker tensor holds at most 1 MiB (safespec's bound; real markers are under 200 bytes) and its data lies inside the file",
     "keep the marker to its few keys (real markers are under 200 bytes) and its data inside the file"},
    {QuantMarkerEncoding, "CQ-MARKER-ENCODING", W, Qn, Hd, "M2, M3", "",
     "a marker is UTF-8 without BOM or encoded surrogates, as json.dumps writes it (json.loads also takes UTF-16/32)",
     "encode the marker as UTF-8 without a BOM, as json.dumps(...).encode() does"},
    {QuantMarkerDtype, "CQ-MARKER-DTYPE", W, Qn, Hd, "M2, G21", "",
     "a marker tensor is 1-D U8 (no consumer checks; wider dtypes feed raw bytes to json.loads)",
     "store the marker as a 1-D U8 tensor of its UTF-8 bytes"},
    {QuantMetaJson, "CQ-QMETA-JSON", E, Qn, Hd, "M5, S3.1, C2.1", "",
     "__metadata__._quantization_metadata is JSON",
     "write __metadata__._quantization_metadata with json.dumps"},
    {QuantMetaNotObject, "CQ-QMETA-NOT-OBJECT", E, Qn, Hd, "M5, S3.2, C2.1", "",
     "_quantization_metadata is a JSON object",
     "make _quantization_metadata a JSON object with a layers object"},
    {QuantMetaLayers, "CQ-QMETA-LAYERS", E, Qn, Hd, "M5, S3.3, C2.1", "",
     "_quantization_metadata has a layers object",
     "add a layers object mapping layer names to their markers"},
    {QuantMetaLayerNotObject, "CQ-QMETA-LAYER-NOT-OBJECT", E, Qn, Hd, "M5, S3.4", "",
     "every _quantization_metadata layer entry is an object",
     "make each layers entry a marker object such as {\"format\": \"float8_e4m3fn\"}"},
    {QuantMarkerConflict, "CQ-MARKER-CONFLICT", E, Qn, Hd, "M6, M7, S3.4, S6.3, G9", "",
     "two declarations of one layer (metadata, tensor marker, another shard) are equal as Python values",
     "declare each layer once, or make its declarations identical"},
    {QuantMarkerOrphan, "CQ-MARKER-ORPHAN", W, Qn, Hd, "C6, S9.1", "",
     "a marked layer P has a tensor P.weight",
     "add the layer's P.weight, or remove the marker of a layer that does not exist"},
    {QuantMarkerMissing, "CQ-MARKER-MISSING", E, Qn, Hd, "S5, S8, C8, G10", "",
     "a .weight stored as F8_E4M3, I8 or U8 has a marker (else ComfyUI value-casts it without its scale)",
     "add a P.comfy_quant marker naming the layer's format, or store the weight in a float dtype"},
    {QuantLegacyScaledFp8, "CQ-LEGACY-SCALED-FP8", W, Qn, Hd, "M8, G22", "",
     "no legacy scaled_fp8 marker (only ComfyUI converts it; sglang sees unmarked fp8 weights)",
     "convert the checkpoint to per-layer comfy_quant markers (format float8_e4m3fn)"},
    {QuantMxfp8Global, "CQ-MXFP8-GLOBAL", E, Qn, Hd, "M9, S7, G12", "",
     "with quant_format mxfp8, every quantized weight is 2-D F8_E4M3 with K % 32 == 0 and a U8 (N, K/32) weight_scale",
     "store every quantized weight as 2-D F8_E4M3 with K % 32 == 0 and a U8 (N, K/32) weight_scale, or drop quant_format"},
    {QuantFormatMissing, "CQ-FORMAT-MISSING", E, Qn, Hd, "§1.5, C10, S11", "",
     "a marker has a format",
     "add \"format\" to the marker (float8_e4m3fn, nvfp4, asym_w4a8_int8, ...)"},
    {QuantFormatUnknown, "CQ-FORMAT-UNKNOWN", E, Qn, Hd, "C11, S11, L18", "",
     "a marker's format is one ComfyUI knows",
     "use a format ComfyUI knows; check the spelling against `safespec rules`"},
    {QuantSglangFormats, "CQ-SGLANG-FORMATS", E, Qn, Hd, "S11, G11, G18, G25", "",
     "the set of formats is one sglang resolves to a config",
     "quantize the checkpoint with one format, or a mix sglang resolves (see the sglang verdict)"},
    {QuantSglangCompanion, "CQ-SGLANG-COMPANION", E, Qn, Hd, "S12.3, S15.4, S18, S19", "",
     "every marker is a format the resolved sglang config accepts beside its main format",
     "quantize the other layers with a format the main format's config accepts beside it"},
    {QuantKeyType, "CQ-MARKER-KEY-TYPE", W, Qn, Hd, "§1.5, §6.11, G20", "",
     "known marker keys have their documented JSON type (consumers coerce others differently)",
     "write the marker key with its documented JSON type (a bool as true/false, a size as an integer)"},
    {QuantKeyInt, "CQ-MARKER-INT", E, Qn, Hd, "S9.3, S13.4, §6.11", "",
     "group_size and convrot_groupsize survive Python int() (no TypeError, ValueError, OverflowError)",
     "write group_size and convrot_groupsize as plain JSON integers"},
    {QuantParamsNested, "CQ-MARKER-PARAMS", W, Qn, Hd, "§1.5, G4", "",
     "marker keys are at top level, not only in the legacy params object (sglang never reads params)",
     "move the keys out of params to the marker's top level"},
    {QuantWeightCast, "CQ-WEIGHT-CAST", E, Qn, Hd, "§2.1, C13", "",
     "a quantized weight is stored in its format's storage dtype (ComfyUI value-casts any other dtype, corrupting it)",
     "store the quantized weight in its format's storage dtype (see the message)"},
    {QuantDtypeComfyMmap, "CQ-DTYPE-COMFY-MMAP", W, Qn, Hd, "§2.1, G23", "",
     "quantized layers avoid F8_E8M0 and F4 dtypes, which ComfyUI's own mmap reader does not know",
     "store these tensors as U8 (same bytes) so ComfyUI's mmap reader can load them"},
    {QuantFp8Tensors, "CQ-FP8-TENSORS", E, Qn, Hd, "L10, S9.1, G14", "",
     "an fp8 layer has weight and weight_scale",
     "add the missing weight or weight_scale tensor of the fp8 layer"},
    {QuantFp8Scale, "CQ-FP8-SCALE", E, Qn, Hd, "L10", "",
     "an fp8 layer's weight_scale and input_scale are single-element floats",
     "store weight_scale and input_scale as single-element F32 tensors"},
    {QuantFp8Weight, "CQ-FP8-WEIGHT", E, Qn, Hd, "L10", "",
     "an fp8 layer's weight is 2-D",
     "store the fp8 weight as a 2-D [N, K] tensor"},
    {QuantNvfp4Tensors, "CQ-NVFP4-TENSORS", E, Qn, Hd, "L12, S9.1, C12", "",
     "an nvfp4 layer has weight, weight_scale and weight_scale_2",
     "add the missing weight, weight_scale or weight_scale_2 tensor of the nvfp4 layer"},
    {QuantNvfp4Dtypes, "CQ-NVFP4-DTYPES", E, Qn, Hd, "L12, S9.5.1", "",
     "nvfp4 weight is U8 and weight_scale F8_E4M3",
     "store the nvfp4 weight as U8 (two codes a byte) and weight_scale as F8_E4M3"},
    {QuantNvfp4GlobalScale, "CQ-NVFP4-GLOBAL-SCALE", E, Qn, Hd, "L12, S9.5.2", "",
     "nvfp4 weight_scale_2 is F32 of shape () or (1,)",
     "store weight_scale_2 as an F32 scalar of shape () or (1,)"},
    {QuantNvfp4WeightRank, "CQ-NVFP4-WEIGHT-RANK", E, Qn, Hd, "L12, S9.5.3", "",
     "nvfp4 weight is 2-D",
     "store the nvfp4 weight as a 2-D [N, K/2] tensor"},
    {QuantNvfp4Shapes, "CQ-NVFP4-SHAPES", E, Qn, Hd, "L12, S9.5.4, G13", "",
     "nvfp4 weight_scale has sglang's shape (N, K/16) with K % 16 == 0",
     "make K a multiple of 16 and weight_scale (N, K/16)"},
    {QuantNvfp4Layout, "CQ-NVFP4-LAYOUT", E, Qn, Hd, "L3, L12, G13", "",
     "nvfp4 weight_scale has comfy-kitchen's swizzled shape [roundup(N16,128), roundup(K16/16,4)]",
     "store weight_scale in comfy-kitchen's swizzled, padded layout (the message gives the expected shape)"},
    {QuantNvfp4PreQuantScale, "CQ-NVFP4-PRE-QUANT-SCALE", E, Qn, Hd, "L12, S9.5.5", "",
     "an nvfp4 pre_quant_scale is BF16, F16 or F32 of shape (K,)",
     "store pre_quant_scale as a BF16, F16 or F32 vector of length K"},
    {QuantNvfp4FullPrecision, "CQ-NVFP4-FULL-PRECISION", E, Qn, Hd, "S19, G13", "",
     "an nvfp4 marker sets full_precision_matrix_mult to true (sglang requires it)",
     "set \"full_precision_matrix_mult\": true in the marker"},
    {QuantMxfp8Tensors, "CQ-MXFP8-TENSORS", E, Qn, Hd, "L13, C12", "",
     "an mxfp8 layer has weight and weight_scale",
     "add the missing weight or weight_scale tensor of the mxfp8 layer"},
    {QuantMxfp8Dtypes, "CQ-MXFP8-DTYPES", E, Qn, Hd, "L13", "",
     "mxfp8 weight is F8_E4M3 and weight_scale U8 or F8_E8M0",
     "store the mxfp8 weight as F8_E4M3 and weight_scale as U8 (E8M0 bytes)"},
    {QuantMxfp8Layout, "CQ-MXFP8-LAYOUT", E, Qn, Hd, "L3, L13, G12", "",
     "mxfp8 weight is [N32, K32] and weight_scale the swizzled [roundup(N32,128), roundup(K32/32,4)]",
     "make N and K multiples of 32 and store weight_scale in the swizzled, padded layout (the message gives the shape)"},
    {QuantInt8Tensors, "CQ-INT8-TENSORS", E, Qn, Hd, "L14, S9.1, C12", "",
     "an int8_tensorwise layer has weight and weight_scale",
     "add the missing weight or weight_scale tensor of the int8 layer"},
    {QuantInt8WeightRank, "CQ-INT8-WEIGHT-RANK", E, Qn, Hd, "L14, S9.6.1", "",
     "a tensor-wise int8 weight is 2-D",
     "store the int8 weight as a 2-D [N, K] tensor"},
    {QuantInt8Dtypes, "CQ-INT8-DTYPES", E, Qn, Hd, "L14, S9.6.2", "",
     "int8 weight is I8 and weight_scale F32",
     "store the int8 weight as I8 and weight_scale as F32"},
    {QuantInt8Shapes, "CQ-INT8-SHAPES", E, Qn, Hd, "L14, S9.6.2", "",
     "an int8 weight is 2-D with weight_scale () or (N, 1)",
     "store weight_scale with shape () (tensor-wise) or (N, 1) (per row)"},
    {QuantInt8Convrot, "CQ-INT8-CONVROT", E, Qn, Hd, "S17, G16", "",
     "in an int8-only checkpoint every marker sets convrot to true (sglang's KitchenInt8Config)",
     "set \"convrot\": true in every int8_tensorwise marker"},
    {QuantInt8ConvrotGroupsize, "CQ-INT8-CONVROT-GROUPSIZE", E, Qn, Hd, "L14, S17, K6, K10", "",
     "a ConvRot int8 layer declares convrot_groupsize in (16, 64, 256) dividing K",
     "set convrot_groupsize to 16, 64 or 256, dividing K"},
    {QuantW4a4Tensors, "CQ-W4A4-TENSORS", E, Qn, Hd, "L15, S9.1, C12", "",
     "a convrot_w4a4 layer has weight and weight_scale",
     "add the missing weight or weight_scale tensor of the convrot_w4a4 layer"},
    {QuantW4a4Dtypes, "CQ-W4A4-DTYPES", E, Qn, Hd, "L15, S9.4.1", "",
     "convrot_w4a4 weight is I8 and weight_scale F32",
     "store the convrot_w4a4 weight as I8 (packed codes) and weight_scale as F32"},
    {QuantW4a4Shapes, "CQ-W4A4-SHAPES", E, Qn, Hd, "L15, S9.4.2", "",
     "convrot_w4a4 weight is 2-D and weight_scale (N,)",
     "store the weight as a 2-D [N, K/2] tensor and weight_scale as (N,)"},
    {QuantW4a4Groupsize, "CQ-W4A4-GROUPSIZE", E, Qn, Hd, "L15, S9.4.3, S15.5, G17", "",
     "convrot_w4a4 convrot_groupsize is 16, 64 or 256",
     "set convrot_groupsize to 16, 64 or 256"},
    {QuantW4a4K, "CQ-W4A4-K", E, Qn, Hd, "L15, S9.4.4, S15.6", "",
     "convrot_w4a4 K is divisible by 64 and by convrot_groupsize",
     "make K a multiple of 64 and of convrot_groupsize"},
    {QuantW4a4LinearDtype, "CQ-W4A4-LINEAR-DTYPE", E, Qn, Hd, "S15.5, K2", "",
     "convrot_w4a4 linear_dtype is 'int4' or 'int8'",
     "set linear_dtype to \"int4\" or \"int8\", or leave it out"},
    {QuantW4a8Tensors, "CQ-W4A8-TENSORS", E, Qn, Hd, "L16, S9.1, C12, K1.4", "",
     "an asym_w4a8_int8 layer has weight, weight_s_rel and weight_s_channel",
     "add the missing weight, weight_s_rel or weight_s_channel tensor of the W4A8 layer"},
    {QuantW4a8GroupSize, "CQ-W4A8-GROUP-SIZE", E, Qn, Hd, "L16, S9.3 A1", "",
     "W4A8 group_size is at least 4",
     "set group_size to 4 or more"},
    {QuantW4a8Dtypes, "CQ-W4A8-DTYPES", E, Qn, Hd, "L16, S9.3 A2, G2", "",
     "W4A8 weight is I8 and weight_s_rel F8_E4M3",
     "store the W4A8 weight as I8 and weight_s_rel as F8_E4M3"},
    {QuantW4a8ChannelDtype, "CQ-W4A8-CHANNEL-DTYPE", E, Qn, Hd, "L16, S9.3 A3", "",
     "W4A8 weight_s_channel is F32",
     "store weight_s_channel as F32"},
    {QuantW4a8WeightRank, "CQ-W4A8-WEIGHT-RANK", E, Qn, Hd, "L16, S9.3 A4, K1.1", "",
     "W4A8 weight is 2-D",
     "store the W4A8 weight as a 2-D [N, K/2] tensor"},
    {QuantW4a8Shapes, "CQ-W4A8-SHAPES", E, Qn, Hd, "L16, S9.3 A5, K1.3, K1.4", "",
     "W4A8 weight_s_rel is (N, K // G) and weight_s_channel (N,)",
     "store weight_s_rel as (N, K // group_size) and weight_s_channel as (N,)"},
    {QuantW4a8Codebook, "CQ-W4A8-CODEBOOK", E, Qn, Hd, "L16, S9.3 A7, K1.6", "",
     "a W4A8 weight_codebook is F32 (16,)",
     "store weight_codebook as an F32 vector of 16 values"},
    {QuantW4a8Correction, "CQ-W4A8-CORRECTION", E, Qn, Hd, "L16, S9.3 A8, K1.5, G3", "",
     "a W4A8 weight_correction is F32 (K // G, N)",
     "store weight_correction as F32 of shape (K // group_size, N)"},
    {QuantW4a8CorrectionIgnored, "CQ-W4A8-CORRECTION-IGNORED", W, Qn, Hd, "L16, C12, G3", "",
     "a W4A8 layer has no weight_correction (ComfyUI does not load it and computes without it)",
     "drop weight_correction or fold it into the weights: ComfyUI computes without it"},
    {QuantW4a8Convrot, "CQ-W4A8-CONVROT", E, Qn, Hd, "S12.3, G1", "",
     "a W4A8 marker sets convrot to true (sglang's identity test; ComfyUI never writes it)",
     "set \"convrot\": true in the marker"},
    {QuantW4a8K, "CQ-W4A8-K", E, Qn, Hd, "L16, S13.5, K1.2, K4.2", "",
     "W4A8 K is divisible by 16, G and C; G >= 4 and G divides 16 or is a multiple of 16",
     "make K a multiple of 16, group_size and convrot_groupsize, with group_size dividing 16 or a multiple of 16"},
    {QuantW4a8Hadamard, "CQ-W4A8-HADAMARD", E, Qn, Hd, "L4, K6, G5", "",
     "a ConvRot group size is a power of 4, at least 4",
     "set convrot_groupsize to a power of 4 (16, 64 or 256)"},
    {QuantW4a8CudaGroupsize, "CQ-W4A8-CUDA-GROUPSIZE", E, Qn, Hd, "K7, G5", "",
     "W4A8 convrot_groupsize is 256 and K divisible by 256 (comfy-kitchen's CUDA activation kernel)",
     "set convrot_groupsize to 256 and make K a multiple of 256 for comfy-kitchen's CUDA kernel"},
    {QuantAwqTensors, "CQ-AWQ-TENSORS", E, Qn, Hd, "L17, C12", "",
     "an awq_w4a16 layer has weight, weight_scale and weight_zeros",
     "add the missing weight, weight_scale or weight_zeros tensor of the awq_w4a16 layer"},
    {QuantAwqShapes, "CQ-AWQ-SHAPES", E, Qn, Hd, "L17", "",
     "awq_w4a16 weight is I8 [N, K/2] and weight_scale, weight_zeros [K/G, N]",
     "store the weight as I8 [N, K/2] and weight_scale, weight_zeros as [K/group_size, N]"},
    {QuantAwqZeroSpelling, "CQ-AWQ-ZERO-SPELLING", E, Qn, Hd, "L17, C12", "",
     "an awq_w4a16 layer's zeros are named weight_zeros, the name ComfyUI and comfy-kitchen read, not comfy-quants' weight_zero",
     "rename P.weight_zero to P.weight_zeros (the values and shape stay the same)"},
    {QuantSvdquantTensors, "CQ-SVDQUANT-TENSORS", E, Qn, Hd, "L20", "",
     "an svdquant_w4a4 layer has weight, weight_scale, smooth_factor, proj_down and proj_up",
     "add the missing tensor of the svdquant_w4a4 layer (comfy-quants names them without the weight_ prefix)"},
    {QuantSvdquantLayout, "CQ-SVDQUANT-LAYOUT", E, Qn, Hd, "L20", "",
     "an svdquant_w4a4 marker's layout is absent (natural) or \"kitchen_tile_packed_w4a4\"",
     "drop the layout key for the natural layout, or set it to \"kitchen_tile_packed_w4a4\""},
    {QuantSvdquantShapes, "CQ-SVDQUANT-SHAPES", E, Qn, Hd, "L20", "",
     "svdquant_w4a4 tensors have the shapes and dtypes of their layout (natural: weight I8 [N, K/2], weight_scale [K/64, N]; tile-packed: weight [N/128, K/64, 32, 128], weight_scale F16/BF16 [N/128, K/64, 128], proj_up [N/128, R, 128])",
     "store each tensor in the shape and dtype its layout gives (comfy-quants docs/formats/svdquant_w4a4_kitchen_tilepack.md)"},
    {QuantSvdquantKeys, "CQ-SVDQUANT-KEYS", W, Qn, Hd, "L20", "",
     "svdquant_w4a4 optional marker keys have their documented values: act_unsigned and proj_down_smooth_folded booleans, lowrank_branch_input_basis \"raw\" or \"post_smoothing\"",
     "write act_unsigned and proj_down_smooth_folded as booleans, lowrank_branch_input_basis as \"raw\" or \"post_smoothing\""},
    {QuantKInt32, "NUM-K-INT32-OVERFLOW", E, Qn, Hd, "quant-numerics.md", "",
     "K is small enough that the int32 accumulator of an int8 or int4 GEMM cannot overflow",
     "split the layer (smaller K) so the int32 accumulator cannot overflow"},
    {DataScale, "CQ-DATA-SCALE", E, Qn, Dt, "L10-L16", "",
     "scale values (weight_s_channel, weight_scale, input_scale, weight_scale_2) are finite and positive; nvfp4 block scales finite and >= 0 (the quantizer gives an all-zero block scale 0)",
     "re-quantize: scales must be finite and positive (nvfp4 block scales finite and >= 0)"},
    {DataSRel, "CQ-DATA-S-REL", E, Qn, Dt, "L16", "",
     "W4A8 weight_s_rel values are not NaN and not zero",
     "re-quantize: weight_s_rel must not be NaN or 0"},
    {DataCodebook, "CQ-DATA-CODEBOOK", E, Qn, Dt, "L16", "",
     "W4A8 weight_codebook values are finite",
     "re-quantize: weight_codebook values must be finite"},
    {DataCodebookOrder, "CQ-DATA-CODEBOOK-ORDER", W, Qn, Dt, "L16", "",
     "W4A8 weight_codebook values increase (a Lloyd-Max table)",
     "sort the codebook in increasing order and remap the weight codes with it"},
    {DataE8m0, "CQ-DATA-E8M0", E, Qn, Dt, "L13, quant-numerics.md §2", "",
     "no E8M0 block scale is 0xFF (NaN)",
     "re-quantize: an E8M0 block scale of 0xFF is NaN"},
    {DataSwizzlePadding, "CQ-DATA-SWIZZLE-PADDING", E, Qn, Dt, "L3", "",
     "padding cells of swizzled block scales are zero",
     "zero the padding cells of the swizzled block scales"},
    {DataW4a4Range, "CQ-DATA-W4A4-RANGE", W, Qn, Dt, "L2, L15", "",
     "ConvRot W4A4 codes lie in -7..7 (what the quantizer emits)",
     "re-quantize: ConvRot W4A4 codes lie in -7..7"},
    {DataInt8Range, "CQ-DATA-INT8-RANGE", W, Qn, Dt, "L14", "",
     "int8 weights lie in -127..127 (what the quantizer emits)",
     "re-quantize: int8 weights lie in -127..127 (-128 has no positive twin)"},
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

bool is_quant_rule(RuleId id) { return rule_info(id).scope == RuleScope::Quant; }

bool profile_applies(Profile p, RuleScope s) {
  if (p == Profile::Strict) return true;
  switch (s) {
    // sglang and ComfyUI open every file with the reference reader, so they
    // inherit its rules. The index rules describe a set of files the
    // reference never reads as one; a sharded checkpoint the index lies
    // about fails to load in every consumer, so they stay on in the
    // safetensors profile too.
    case RuleScope::Container:
    case RuleScope::Index:
      return true;
    case RuleScope::Quant:
      return p != Profile::Safetensors;  // the reference never reads a layer
    case RuleScope::Strict:
    case RuleScope::Writer:
      return false;
  }
  return false;
}

bool profile_applies(Profile p, RuleId id) { return profile_applies(p, rule_info(id).scope); }

std::string_view scope_name(RuleScope s) {
  switch (s) {
    case RuleScope::Container: return "container";
    case RuleScope::Strict: return "strict";
    case RuleScope::Writer: return "writer";
    case RuleScope::Index: return "index";
    case RuleScope::Quant: return "quant";
  }
  return "container";
}

std::string_view tier_name(RuleTier t) { return t == RuleTier::Data ? "data" : "header"; }

std::string_view effect_name(Effect e) {
  switch (e) {
    case Effect::Rejects: return "rejects";
    case Effect::MisLoads: return "mis-loads";
    case Effect::Warns: return "warns";
  }
  return "rejects";
}

const Verdict* Finding::verdict(Consumer c) const { return verdict(c, consumer_info(c).default_version); }

const Verdict* Finding::verdict(Consumer c, std::size_t version) const {
  for (const Verdict& v : verdicts)
    if (v.consumer == c && v.holds_for(version)) return &v;
  return nullptr;
}

Finding to_finding(const Error& e) {
  return Finding{e.rule, rule_info(e.rule).severity, e.where, e.message, {}};
}

}  // namespace safespec
