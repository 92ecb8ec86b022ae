// RapidCheck generators of valid quantized ("comfy_quant") checkpoints:
// layers of every format with dimensions drawn from the format's real
// constraints (comfy-quant-markers.md §2.2 L10-L17, §3), markers written as
// Python's json.dumps writes them (M2), declared either as a P.comfy_quant
// tensor (M1) or in __metadata__._quantization_metadata (M5), spread over one
// or more files that the project's writer serializes.
//
// Two validity levels:
// - all consumers: sglang, ComfyUI and comfy-kitchen (CUDA) all load it as
//   meant. Format sets are those of sglang's resolution table (S11), nvfp4 and
//   mxfp8 use shapes where kitchen's swizzled padding and sglang's logical
//   shapes coincide (G12, G13), W4A8 markers carry sglang's "convrot": true
//   (G1) and C = 256 (K7).
// - ComfyUI only: what ComfyUI and kitchen load but sglang refuses, one gap at
//   a time (G1, G2, G3, G11, G13, G16, G18, G25).
//
// The checkpoint stays structured (QCheckpoint) until serialize_checkpoint,
// so a mutation (quant_mutations.hpp) can break one invariant and a property
// can predict sglang's insertion order from the structure.
#pragma once

#include <rapidcheck.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/dtype.hpp"
#include "spec/quant/formats.hpp"
#include "src/io/writer.hpp"

namespace safespec::gen::quant {

// The spec's formats (spec/quant/formats.hpp): a generator per row.
using Format = safespec::quant::QuantFormat;
using safespec::quant::format_name;  // the marker's "format" string

// Which consumers a generated layer or checkpoint is valid for.
enum class Validity : unsigned char { AllConsumers, ComfyOnly };

// The roles an int8_tensorwise layer plays in sglang's configs (S12.3, S17,
// S19): alone (KitchenInt8Config: convrot true, explicit C), beside W4A8 (a
// non-ConvRot embedding: scalar or (N, 1) scale), beside NVFP4 (row-wise).
enum class Int8Role : unsigned char { Convrot, Embedding, Rowwise, Plain };

// Where a layer's marker lives.
enum class Site : unsigned char { Tensor, Metadata };

struct QTensor {
  std::string name;  // full tensor name
  Dtype dtype = Dtype::U8;
  std::vector<std::uint64_t> shape;
  std::vector<std::uint8_t> data;  // empty: zero bytes of the right size; else exactly that size

  friend bool operator==(const QTensor&, const QTensor&) = default;
};

// A marker as ordered (key, raw JSON value text) pairs, so a mutation can put
// any JSON value (2^70, NaN, "16", null) under a key.
struct MarkerEntry {
  std::string key;
  std::string json;

  friend bool operator==(const MarkerEntry&, const MarkerEntry&) = default;
};
using Marker = std::vector<MarkerEntry>;

struct QLayer {
  std::string prefix;
  Format format = Format::Fp8E4m3;
  Marker marker;
  Site site = Site::Tensor;
  std::size_t file = 0;
  std::vector<QTensor> tensors;  // the layer's own tensors, names prefix + "." + suffix
  // Raw bytes for a Site::Tensor marker instead of json_dumps(marker), and
  // its dtype/shape (a mutation may re-encode or re-type the marker tensor).
  std::optional<std::string> marker_bytes;
  Dtype marker_dtype = Dtype::U8;
  bool marker_2d = false;
  // The logical dimensions the generator chose (N out, K in features).
  std::uint64_t n = 0, k = 0;

  QTensor* find(std::string_view suffix);
  const QTensor* find(std::string_view suffix) const;
  std::string name(std::string_view suffix) const { return prefix + "." + std::string(suffix); }

  friend bool operator==(const QLayer&, const QLayer&) = default;
};

struct QFile {
  std::string name;                                        // the path sglang prints ({path})
  std::vector<std::pair<std::string, std::string>> metadata;  // other __metadata__ entries (quant_format)
  std::vector<QTensor> extra;                              // tensors outside any layer
  std::optional<std::string> qmeta_raw;                    // replaces the generated _quantization_metadata text
  std::vector<MarkerEntry> qmeta_extra;                    // extra "layers" entries (name, raw JSON), after the layers'

  friend bool operator==(const QFile&, const QFile&) = default;
};

struct QCheckpoint {
  std::vector<QFile> files;
  std::vector<QLayer> layers;
  Validity validity = Validity::AllConsumers;

  QLayer* find_layer(std::string_view prefix);

  friend bool operator==(const QCheckpoint&, const QCheckpoint&) = default;
};

// Python json.dumps of a str (ensure_ascii: non-ASCII as \uXXXX, surrogate
// pairs above the BMP) and of a marker ({"k": v, ...} with ", " and ": ").
std::string py_json_string(std::string_view utf8);
std::string json_dumps(const Marker& m);
std::string json_int(std::int64_t v);
// The raw JSON value under key, or nullptr.
const std::string* marker_get(const Marker& m, std::string_view key);
void marker_set(Marker& m, std::string_view key, std::string json);  // replaces in place or appends
bool marker_erase(Marker& m, std::string_view key);

// str(marker.get("format")) as sglang's resolution computes it (S11), for the
// raw JSON values the generators and mutations write (strings without
// escapes, integers, true/false/null).
std::string sglang_format(const Marker& m);
// sorted({str(format)}) over every layer, as S11 joins them.
std::vector<std::string> sglang_formats(const QCheckpoint& c);

// The marker text a Site::Tensor layer stores.
std::string marker_text(const QLayer& l);

// The whole _quantization_metadata text of a file, or nullopt when it has
// none: {"format_version": "1.0", "layers": {...}} as json.dumps writes it.
std::optional<std::string> qmeta_text(const QCheckpoint& c, std::size_t file);

// Every tensor of a file (layers' tensors, marker tensors, extras).
std::vector<QTensor> file_tensors(const QCheckpoint& c, std::size_t file);

// One file's bytes through src/io/writer.hpp's serialize; an error when the
// writer refuses (a generator bug).
Result<std::vector<std::uint8_t>> serialize_file(const QCheckpoint& c, std::size_t file);
// Every file; throws std::runtime_error when the writer refuses.
std::vector<std::vector<std::uint8_t>> serialize_checkpoint(const QCheckpoint& c);

// sglang's marker insertion order (§3.1): per file, the
// _quantization_metadata layers in JSON order, then the .comfy_quant tensors
// in keys() (sorted) order. Indices into c.layers; a layer whose prefix was
// already declared keeps its first position.
std::vector<std::size_t> sglang_insertion_order(const QCheckpoint& c);
// Position of a layer in that order, or SIZE_MAX.
std::size_t sglang_index(const QCheckpoint& c, std::string_view prefix);

// ---- generators ---------------------------------------------------------

// A fresh layer prefix: mostly "model.diffusion_model.blocks.<i>.<part>",
// sometimes one that repr() must escape (quote, backslash, non-ASCII).
rc::Gen<std::string> layer_prefix(std::size_t i);

// One layer of a format. The prefix, file and site are the checkpoint's to
// set. `validity` picks among the variants listed in quant_layers.cpp.
rc::Gen<QLayer> layer(Format f, Validity validity, Int8Role role = Int8Role::Convrot);

// A checkpoint valid for every consumer: a format set from S11's table, 1-4
// layers over 1-2 files, markers on either site.
rc::Gen<QCheckpoint> valid_checkpoint();
// The same with at least one layer of `f` (f must be one sglang resolves:
// not Fp8E5m2, not Awq).
rc::Gen<QCheckpoint> valid_checkpoint_with(Format f);
// Exactly the format set `formats` (one row of S11's table, in any order).
rc::Gen<QCheckpoint> valid_checkpoint_of(std::vector<Format> formats);
// Checkpoints of one format that ComfyUI does not register (svdquant_w4a4),
// valid under the format's producer contract: ComfyUI and sglang refuse the
// format by name, and nothing else is wrong.
rc::Gen<QCheckpoint> producer_checkpoint_with(Format f);
// A checkpoint valid for ComfyUI and comfy-kitchen but not for sglang: any mix
// of formats, including float8_e5m2 and awq_w4a16, and the per-format ComfyUI
// variants (G1, G2, G3, G13, G16).
rc::Gen<QCheckpoint> comfy_checkpoint();
// comfy_checkpoint with at least one layer of `f`.
rc::Gen<QCheckpoint> comfy_checkpoint_with(Format f);

// Rewrites an asym_w4a8_int8 layer (K = l.k) into 6-bit storage (W6A8, L16):
// weight I8 [N, 3K/4], weight_s_rel [N, K/g], group_size g in the marker, no
// correction, and a weight_codebook F32 (16,) only when `codebook` (which
// breaks CQ-W6A8-CODEBOOK). Only comfy-kitchen 2a6f4ef reads such a layer:
// sglang, ComfyUI and the 4-bit kitchens read K = 2 * columns and reject it.
void to_w6a8(QLayer& l, std::uint64_t g, bool codebook);

// Whether sglang's resolution (S11) takes this sorted format list.
bool sglang_resolves(const std::vector<std::string>& sorted_formats);

void showValue(const QCheckpoint& c, std::ostream& os);

}  // namespace safespec::gen::quant
