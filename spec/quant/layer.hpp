// What a per-format rule module sees of one marked layer, and where it puts
// its findings. Each module (fp8_rules.cpp, w4a8_rules.cpp, ...) decides the
// invariants of its format for every consumer at once: one function per rule,
// each finding carrying the Verdict of every consumer it affects.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "spec/finding.hpp"
#include "spec/finding_sink.hpp"
#include "spec/unchecked.hpp"
#include "spec/python/python_repr.hpp"
#include "spec/python/python_json.hpp"
#include "spec/result.hpp"
#include "spec/quant/consumer_messages.hpp"
#include "spec/quant/formats.hpp"
#include "spec/quant/message.hpp"
#include "spec/quant/tensor_table.hpp"

namespace safespec::quant {

// Where a layer's marker was read (§1): a "P.comfy_quant" tensor, an entry of
// __metadata__._quantization_metadata.layers, or the global __metadata__
// quant_format that marks every unmarked tracked weight (S7). A layer declared
// in several places keeps the site of its first declaration.
enum class MarkerSite : unsigned char { Tensor, Metadata, QuantFormat };

struct Layer {
  std::string prefix;               // P: the marker key without ".comfy_quant", or the metadata layer name
  const py::Value* marker;          // a py::Dict, never null: the last of equal declarations (sglang stores the later)
  std::size_t index = 0;            // insertion order (§3.1); also ComfyUI's and kitchen's layer order
  std::size_t file = 0;             // the file that declared it
  std::string format;               // str(marker.get("format")): "None" when absent
  // The config sglang's resolution picks for the whole checkpoint (S11):
  // "KitchenInt8Config", "KitchenW4A8Config", "KitchenW4A4Config",
  // "ComfyFp8Config", "ComfyNvfp4Config", "MXFP8Config", or "" when it raises.
  std::string_view sglang_config;
  MarkerSite site = MarkerSite::Tensor;

  bool is(QuantFormat f) const { return format == format_name(f); }
};

struct LocatedFinding {
  std::size_t file;  // index into the checkpoint's files
  Finding finding;
};

struct LocatedUnchecked {
  std::size_t file;  // index into the checkpoint's files
  Unchecked item;
};

// Where the quant and data rules put findings: one FindingSink per file of
// the checkpoint, so they are bounded and counted as every other rule's.
class Sink {
 public:
  // Severity comes from the rule catalogue.
  void add(std::size_t file, RuleId rule, Place where, std::string message, std::vector<Verdict> verdicts);
  // File by file: each file's listed findings, then its count lines.
  std::vector<LocatedFinding> findings() const;
  // What a rule could not evaluate (spec/unchecked.hpp); each (file, what) once,
  // with the union of the consumers named.
  void skip(std::size_t file, std::string what, std::string why, std::vector<Consumer> consumers);
  std::vector<LocatedUnchecked>& unchecked() { return unchecked_; }

  // A sink that keeps every add() and skip() in order, to be replayed into
  // another: the data rules of each layer run on a worker thread into their
  // own recorder, and analyze() replays them in layer order, so bounds,
  // counts and the order of findings are those of one sequential run.
  static Sink recorder();
  void replay_into(Sink& to) &&;

 private:
  struct Call {
    bool skip = false;
    std::size_t file = 0;
    RuleId rule{};
    Place where;
    std::string text;  // add: the message; skip: what was not checked
    std::string why;
    std::vector<Verdict> verdicts;
    std::vector<Consumer> consumers;
  };
  std::vector<FindingSink> files_;  // indexed by file
  std::vector<LocatedUnchecked> unchecked_;
  // (file, what) -> its place in unchecked_: every unread marker of a large
  // header is one item, and a scan per item was quadratic in them.
  std::unordered_map<std::string, std::size_t> unchecked_at_;
  bool recording_ = false;
  std::vector<Call> calls_;
};

// The full name of a layer's companion tensor: "P.weight_scale".
inline std::string tensor_name(const Layer& l, std::string_view suffix) { return l.prefix + "." + std::string(suffix); }

// What every rule of a format sees of one marked layer: the one context of
// all the format modules.
struct LayerCheck {
  const Layer& l;
  const TensorTable& t;
  Sink& out;
  const FormatSpec& format;

  // The rules of one layer ask for the same few companions again and again;
  // each is looked up once (a name built and hashed per ask was a third of
  // checking a quantized header).
  const TensorRef* tensor(std::string_view suffix) const;
  const TensorRef* weight() const { return tensor("weight"); }
  void add(RuleId rule, Place where, std::string message, std::vector<Verdict> v) const {
    out.add(l.file, rule, std::move(where), std::move(message), std::move(v));
  }
  // At the layer itself.
  void add(RuleId rule, std::string message, std::vector<Verdict> v) const {
    add(rule, Place::layer(l.prefix), std::move(message), std::move(v));
  }
  std::string prefix_repr() const;

  // A copy of the suffix, not a view: a caller may ask with a temporary.
  struct Looked {
    std::array<char, 32> suffix;
    std::size_t size;
    const TensorRef* ref;
  };
  mutable std::array<Looked, 12> looked_{};
  mutable std::size_t looked_count_ = 0;
};

inline bool has_dtype(const TensorRef* t, Dtype d) { return t && t->entry->dtype == d; }

// The rules every format shares, each written once.

// The format's required tensors (its table row) that no file has, as full names.
std::vector<std::string> missing_tensors(const LayerCheck& c);

// The format's "required tensors missing" rule (its row's tensors_rule), when
// `missing` is not empty. sglang's S9.1 verdict is added where sglang
// validates the format; `others` are the other consumers' verdicts, which
// depend on which tensor is missing. `note` ends the message.
void check_required_tensors(const LayerCheck& c, const std::vector<std::string>& missing, std::vector<Verdict> others,
                            std::string_view note = {});

// CQ-WEIGHT-CAST (§2.1, C13): ComfyUI converts a quantized weight with
// .to(torch dtype), which keeps the stored bits only for the row's
// weight_keeps; any other dtype is converted by value and the codes are lost.
// `comfy` is ComfyUI's verdict (its message and its place in ComfyUI's order
// are the format's), empty where ComfyUI never casts it.
void check_weight_cast(const LayerCheck& c, std::vector<Verdict> comfy);
// Whether CQ-WEIGHT-CAST has nothing to say (no weight, or one the row
// keeps): the rules ask it before they build ComfyUI's verdict.
bool weight_kept(const LayerCheck& c);

// CQ-MARKER-INT: one Python int() a consumer applies to a marker key. `at`
// is the consumer's place in its order, nullopt where the failure stops no
// consumer at this point (it is still reported).
struct IntRead {
  std::string_view key;
  const Result<py::Value, py::PyException>& result;
  Consumer consumer;
  std::optional<CheckOrder> at;
};
// One finding for every read that raised, with one verdict per consumer (its first failure).
void check_marker_ints(const LayerCheck& c, std::initializer_list<IntRead> reads);


// 2 * packed, exactly, as Python computes K from a packed int4 width; the
// decimal is exact even when the product passes 2^64.
std::string times2_str(std::uint64_t packed);
// 2 * packed when it fits in 64 bits.
std::optional<std::uint64_t> times2(std::uint64_t packed);

// Each format module's header rules, the header_rules column of its row
// (formats.cpp).
void check_fp8_layer(const LayerCheck& c);    // float8_e4m3fn, float8_e5m2
void check_nvfp4_layer(const LayerCheck& c);  // nvfp4
void check_mxfp8_layer(const LayerCheck& c);  // mxfp8
void check_int8_layer(const LayerCheck& c);   // int8_tensorwise
void check_w4a4_layer(const LayerCheck& c);   // convrot_w4a4
void check_w4a8_layer(const LayerCheck& c);   // asym_w4a8_int8
void check_awq_layer(const LayerCheck& c);    // awq_w4a16
void check_svdquant_layer(const LayerCheck& c);  // svdquant_w4a4

// The packing_of column: Bits6 for a W4A8 weight 3K/4 wide (w4a8_geometry.hpp),
// TilePacked4 for a svdquant_w4a4 layer marked "kitchen_tile_packed_w4a4".
WeightPacking w4a8_packing(const Layer& l, const TensorTable& t);
WeightPacking svdquant_packing(const Layer& l, const TensorTable& t);

}  // namespace safespec::quant
