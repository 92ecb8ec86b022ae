// Phases 1-2 of sglang's inspector and ComfyUI's convert_old_quants: where
// each layer's marker comes from, in which order, and what makes a marker
// unreadable or contradictory (comfy-quant-markers.md §1, §3.1-§3.2, §4.1).
#include "spec/quant/markers.hpp"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "spec/name_index.hpp"
#include "spec/python/python_json.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"
#include "spec/quote.hpp"
#include "spec/utf8.hpp"

namespace safespec::quant {

namespace {

using C = Consumer;
using E = Effect;


// Python 3.11's TypeError for obj["layers"] on a non-dict (C2.1).
std::string subscript_error(const py::Value& v) {
  const std::string_view t = type_name(v);
  if (t == "list") return "list indices must be integers or slices, not str";
  if (t == "str") return "string indices must be integers, not 'str'";
  return "'" + std::string(t) + "' object is not subscriptable";
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string ascii_lower(std::string s) {
  // Python's str.lower() differs only outside ASCII, where no character
  // lowers into "mxfp8", the one value S7 compares against.
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

const std::string* metadata_value(const Header& h, std::string_view key) {
  for (const auto& [k, v] : h.metadata)
    if (k == key) return &v;
  return nullptr;
}

// A Python exception from json.loads, as a verdict.
// sglang reads a marker as json.loads(get_tensor(key).numpy().tobytes()) and
// catches only JSON and Unicode errors: a dtype that safe_open's torch
// mapping or torch's .numpy() refuses stops its scan with that error
// (torch/csrc/utils/tensor_numpy.cpp aten_to_numpy_dtype; safetensors
// bindings/python/src/lib.rs get_pydtype at 24b0b28). Every other dtype
// converts and gives the stored bytes.
std::vector<Verdict> sglang_tensor_read(const TensorEntry& t, CheckOrder order) {
  std::string_view scalar;
  switch (t.dtype) {
    case Dtype::BF16: scalar = "BFloat16"; break;
    case Dtype::F8_E4M3: scalar = "Float8_e4m3fn"; break;
    case Dtype::F8_E5M2: scalar = "Float8_e5m2"; break;
    case Dtype::F8_E8M0: scalar = "Float8_e8m0fnu"; break;
    case Dtype::F8_E4M3FNUZ: scalar = "Float8_e4m3fnuz"; break;
    case Dtype::F8_E5M2FNUZ: scalar = "Float8_e5m2fnuz"; break;
    case Dtype::F6_E2M3:
    case Dtype::F6_E3M2:
      return {Verdict{C::Sglang, E::Rejects, "SafetensorError", "Dtype not understood: " + std::string(dtype_name(t.dtype)),
                      order}};
    case Dtype::F4:
      // safe_open halves the last dimension first, and refuses an odd one
      // with a message whose shape text safespec does not model.
      if (t.shape.empty() || t.shape.back() % 2 != 0)
        return {Verdict{C::Sglang, E::Rejects, "unchecked",
                        "safespec does not model safe_open's refusal of an F4 tensor with an odd last dimension", order}};
      scalar = "Float4_e2m1fn_x2";
      break;
    default: return {};
  }
  return {Verdict{C::Sglang, E::Rejects, "TypeError", "Got unsupported ScalarType " + std::string(scalar), order}};
}

Verdict python_error(C consumer, const py::JsonLoadError& e, CheckOrder order) {
  return Verdict{consumer, E::Rejects, std::string(py::kind_name(e.kind)), e.message, order};
}

class Collector {
 public:
  Collector(std::span<const CheckpointFile> files, const TensorTable& tensors, Sink& out, bool allow_missing)
      : files_(files), tensors_(tensors), out_(out), allow_missing_(allow_missing) {}

  Collected run() {
    std::size_t markers = 0;
    for (const CheckpointFile& f : files_) markers += f.markers.size();
    by_prefix_.reset(markers);
    stored_.reserve(markers);
    c_.layers.reserve(markers);
    for (std::size_t f = 0; f < files_.size(); ++f) scan_file(f);
    global_mxfp8();
    missing_markers();
    return std::move(c_);
  }

 private:
  std::span<const CheckpointFile> files_;
  const TensorTable& tensors_;
  Sink& out_;
  bool allow_missing_;
  Collected c_;
  // The layer of each stored prefix: open addressing over the layers' own
  // prefixes (a node per prefix was a tenth of a quantized header's check).
  NameIndex by_prefix_;
  std::string_view prefix_at(std::size_t i) const { return c_.layers[i].prefix; }
  std::size_t layer_of(std::string_view prefix) const {
    return by_prefix_.find(prefix, [this](std::size_t i) { return prefix_at(i); });
  }
  bool declared(std::string_view prefix) const { return layer_of(prefix) != NameIndex::npos; }
  // Records prefix for the layer about to be pushed; npos, or the layer that has it.
  std::size_t declare(std::string_view prefix) {
    return by_prefix_.find_or_insert(prefix, c_.layers.size(), [this](std::size_t i) { return prefix_at(i); });
  }
  std::vector<py::Value*> stored_;  // the marker sglang holds for each layer, by layer index
  // S5: views into the models' names, in file order, repeats kept: S7 and S8
  // sort what they need (a set of strings, or sorting them all, was a fifth
  // of checking a quantized header).
  std::vector<std::string_view> tracked_;
  std::set<std::string> global_formats_;
  // Layers ComfyUI sees marked in a file through _quantization_metadata,
  // which overwrites that file's tensor markers (M6).
  std::set<std::pair<std::size_t, std::string>> comfy_metadata_layers_;
  // Prefixes whose marker tensor's bytes are not in the file: unchecked, not
  // missing (the consumers reject the file at safe_open).
  std::set<std::string> unread_;
  bool legacy_ = false;

  void scan_file(std::size_t f) {
    const Header& h = files_[f].model->header;
    if (const std::string* q = metadata_value(h, "quant_format"); q && !q->empty())
      global_formats_.insert(ascii_lower(*q));  // S2
    const std::string* qmeta = metadata_value(h, "_quantization_metadata");
    if (qmeta) scan_metadata(f, *qmeta);  // S3
    for (const TensorEntry& t : h.tensors) {
      constexpr std::string_view weight = ".weight";
      if (ends_with(t.name, weight) && (t.dtype == Dtype::F8_E4M3 || t.dtype == Dtype::I8 || t.dtype == Dtype::U8))
        tracked_.push_back(t.name.view().substr(0, t.name.size() - weight.size()));  // S5
      if (!qmeta && (t.name == "scaled_fp8" || ends_with(t.name, ".scaled_fp8"))) legacy(f, t);
    }
    const auto& markers = files_[f].markers;
    for (std::size_t i = 0; i < markers.size(); ++i) scan_tensor_marker(f, i, markers[i]);  // S6
  }

  void scan_metadata(std::size_t f, const std::string& text) {
    const std::string& path = files_[f].path;
    const Place where = Place::metadata_key("_quantization_metadata");
    auto parsed = py::loads_str(text, py::LoadLimits{kMaxMarkerReadBytes, kPythonJsonDepth});
    if (!parsed) {
      const py::JsonLoadError& e = parsed.error();
      if (e.kind == py::JsonErrorKind::SizeLimit) {
        // Past safespec's bound: what the consumers do is not simulated.
        out_.add(f, RuleId::QuantMetaJson, where, "expected _quantization_metadata to be JSON, found " + e.what(), {});
        return;
      }
      // sglang catches JSONDecodeError only; anything else propagates as is.
      Verdict sg = e.kind == py::JsonErrorKind::JSONDecodeError
                       ? verdict(Msg::MarkerSgQmetaJson, At{f}, {{"path", path}})
                       : python_error(C::Sglang, e, order::sg_qmeta(f, 0));
      out_.add(f, RuleId::QuantMetaJson, where,
               "expected _quantization_metadata to be JSON, found " + e.what(),
               {std::move(sg), python_error(C::Comfyui, e, order::cu_convert(f, 0))});
      return;
    }
    const py::Value& doc = parsed.value();
    if (!is_dict(doc)) {
      out_.add(f, RuleId::QuantMetaNotObject, where,
               "expected _quantization_metadata to be a JSON object, found a " + std::string(type_name(doc)),
               {verdict(Msg::MarkerSgQmetaObject, At{f}, {{"path", path}}),
                Verdict{C::Comfyui, E::Rejects, "TypeError", subscript_error(doc), order::cu_convert(f, 1)}});
      return;
    }
    const py::Value* layers = get(doc, "layers");
    if (!layers || !is_dict(*layers)) {
      // ComfyUI indexes ["layers"] (KeyError when absent) and then iterates
      // .items() (CU utils.py:1456-1459; the call is inferred from M6).
      Verdict cu = layers ? verdict(Msg::MarkerCuAttribute, At{f}, {{"type", std::string(type_name(*layers))}, {"attr", "items"}})
                          : verdict(Msg::MarkerCuNoLayers, At{f}, {});
      out_.add(f, RuleId::QuantMetaLayers, where,
               layers ? "expected _quantization_metadata.layers to be an object, found a " +
                            std::string(type_name(*layers))
                      : "expected _quantization_metadata to have a layers object, found none",
               {verdict(Msg::MarkerSgQmetaLayers, At{f}, {{"path", path}}), std::move(cu)});
      return;
    }
    const auto& entries = std::get<py::Dict>(layers->data).items;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto* name = std::get_if<std::string>(&entries[i].key.data);
      if (!name) continue;  // json.loads keys are always str
      const py::Value& marker = entries[i].value;
      comfy_metadata_layers_.emplace(f, *name);
      if (!is_dict(marker)) {
        // ComfyUI writes json.dumps(entry) as the marker tensor and fails
        // when the layer reads it (C7).
        out_.add(f, RuleId::QuantMetaLayerNotObject, where.below("layers").below(*name),
                 "expected the layer entry to be an object, found a " + std::string(type_name(marker)),
                 {verdict(Msg::MarkerSgQmetaLayer, At{f, i}, {{"prefix!r", repr(*name)}}),
                  verdict(Msg::MarkerCuAttributeLayer, At{c_.layers.size()}, {{"type", std::string(type_name(marker))}, {"attr", "get"}})});
        continue;  // sglang raised at the first; safespec lists every one
      }
      store(f, *name, marker, order::sg_qmeta_layer(f, i), [] { return std::string("_quantization_metadata"); },
            MarkerSite::Metadata);
    }
  }

  void scan_tensor_marker(std::size_t f, std::size_t i, const MarkerBytes& mb) {
    const Place where = Place::tensor(mb.tensor);
    const std::string prefix = mb.tensor.substr(0, mb.tensor.size() - std::min(mb.tensor.size(), kMarkerSuffix.size()));
    const TensorRef* ref = tensors_.find(mb.tensor);
    if (ref && (ref->entry->dtype != Dtype::U8 || ref->entry->shape.size() != 1))
      out_.add(f, RuleId::QuantMarkerDtype, where,
               "expected a 1-D U8 marker tensor, found " + dtype_str(*ref) + shape_str(*ref),
               sglang_tensor_read(*ref->entry, order::sg_tensor_marker(f, i)));
    if (ref && ref->entry->end >= ref->entry->begin && ref->entry->end - ref->entry->begin > kMaxMarkerBytes &&
        (mb.read || ref->entry->end <= files_[f].model->buffer_size())) {
      // Real markers are tiny; the consumers parse it all the same (M3).
      const TensorEntry& t = *ref->entry;
      const std::uint64_t size = t.end - t.begin;
      std::vector<Verdict> v;
      if (!mb.read)  // over safespec's memory bound: not parsed, so never "loads"
        for (C c : {C::Sglang, C::Comfyui})
          v.push_back(Verdict{c, E::Rejects, "unchecked",
                              "safespec does not read a marker of " + std::to_string(size) + " bytes (over " +
                                  std::to_string(kMaxMarkerReadBytes) + " bytes, or past the file's budget of " +
                                  std::to_string(kMaxLargeMarkerBytesPerFile) + " for markers over " +
                                  std::to_string(kMaxMarkerBytes) + ")",
                              c == C::Sglang ? order::sg_tensor_marker(f, i) : order::cu_layer(c_.layers.size(), 0)});
      out_.add(f, RuleId::QuantMarkerTooLarge, where,
               "expected marker data of at most " + std::to_string(kMaxMarkerBytes) + " bytes inside the file, found " +
                   std::to_string(size) + " bytes at data_offsets [" + std::to_string(t.begin) + ", " +
                   std::to_string(t.end) + "]",
               std::move(v));
      if (!mb.read) return;
    } else if (!mb.read && !mb.unread.empty()) {
      // Its bytes are in the file but could not be read: unchecked, and said why.
      unread_.insert(prefix);
      out_.skip(f, "marker tensor " + quote_name(mb.tensor), mb.unread, {C::Sglang, C::Comfyui, C::Kitchen});
      return;
    } else if (!mb.read) {
      // Its bytes are not in the file (ST-BUFFER-TRUNCATED, or reversed
      // offsets): one cause, one error; the marker is unchecked, not missing.
      const TensorEntry* t = ref ? ref->entry : nullptr;
      const std::string span =
          t ? "data_offsets [" + std::to_string(t->begin) + ", " + std::to_string(t->end) + "]" : std::string();
      unread_.insert(prefix);
      out_.skip(f, "marker tensor " + quote_name(mb.tensor),
                !t                  ? std::string("its data is not in the file")
                : t->end < t->begin ? "its " + span + " are reversed"
                                    : std::to_string(t->end - t->begin) + " bytes at " + span +
                                          ", which lie outside the file",
                {C::Sglang, C::Comfyui, C::Kitchen});
      return;
    }
    // ComfyUI never reads a tensor marker that the same file's metadata
    // replaces (M6).
    const bool comfy_reads = comfy_metadata_layers_.empty() || !comfy_metadata_layers_.count({f, prefix});
    if (const py::Value* seen = parsed_before(mb.bytes)) {
      store(f, prefix, *seen, order::sg_tensor_marker(f, i), [&] { return where.text(); }, MarkerSite::Tensor);
      return;
    }
    auto parsed = py::loads(mb.bytes, py::LoadLimits{kMaxMarkerReadBytes, kPythonJsonDepth});
    if (!parsed) {
      const py::JsonLoadError& e = parsed.error();
      const bool caught = e.kind == py::JsonErrorKind::JSONDecodeError || e.kind == py::JsonErrorKind::UnicodeDecodeError;
      std::vector<Verdict> v{caught ? verdict(Msg::MarkerSgMarkerJson, At{f, i}, {{"key!r", repr(mb.tensor)}, {"path", files_[f].path}})
                                    : python_error(C::Sglang, e, order::sg_tensor_marker(f, i))};
      if (comfy_reads) v.push_back(python_error(C::Comfyui, e, order::cu_layer(c_.layers.size(), 0)));
      out_.add(f, RuleId::QuantMarkerJson, where, "expected the marker bytes to be JSON, found " + e.what(),
               std::move(v));
      return;
    }
    const bool clean = check_encoding(f, where, mb.bytes);
    py::Value& marker = parsed.value();
    if (!is_dict(marker)) {
      std::vector<Verdict> v{verdict(Msg::MarkerSgMarkerObject, At{f, i}, {{"key!r", repr(mb.tensor)}})};
      if (comfy_reads)
        v.push_back(verdict(Msg::MarkerCuAttributeLayer, At{c_.layers.size()}, {{"type", std::string(type_name(marker))}, {"attr", "get"}}));
      out_.add(f, RuleId::QuantMarkerNotObject, where,
               "expected the marker to be a JSON object, found a " + std::string(type_name(marker)), std::move(v));
      return;
    }
    if (clean) remember(mb.bytes, marker);
    store(f, prefix, std::move(marker), order::sg_tensor_marker(f, i), [&] { return where.text(); }, MarkerSite::Tensor);
  }

  // False when the bytes drew a finding.
  bool check_encoding(std::size_t f, const Place& where, const std::string& bytes) {
    std::string problem;
    if (bytes.substr(0, 3) == "\xef\xbb\xbf") problem = "a UTF-8 byte order mark";
    else if (auto bad = first_invalid_utf8(bytes)) problem = "bytes that are not UTF-8 from byte " + std::to_string(*bad);
    // JSON text in UTF-8 never holds a NUL byte (a string must escape it), so
    // a NUL means json.loads detected UTF-16 or UTF-32 (M3).
    else if (auto nul = bytes.find('\0'); nul != std::string::npos)
      problem = "a NUL byte at " + std::to_string(nul) + " (UTF-16 or UTF-32 text)";
    if (!problem.empty())
      out_.add(f, RuleId::QuantMarkerEncoding, where,
               "expected the marker as json.dumps writes it (UTF-8, no BOM, no surrogates), found " + problem, {});
    return problem.empty();
  }

  // A checkpoint's markers are mostly a few texts repeated on every layer;
  // each text that parsed to an object and drew no finding is parsed once.
  // The cache is bounded: a header of distinct markers parses each one.
  std::unordered_map<std::string, py::Value> parsed_;
  // The text found last is tried first: layers of one format repeat it.
  const std::pair<const std::string, py::Value>* last_parsed_ = nullptr;
  const py::Value* parsed_before(const std::string& bytes) {
    if (last_parsed_ && last_parsed_->first == bytes) return &last_parsed_->second;
    auto it = parsed_.find(bytes);
    if (it == parsed_.end()) return nullptr;
    last_parsed_ = &*it;
    return &it->second;
  }
  void remember(const std::string& bytes, const py::Value& marker) {
    if (parsed_.size() < kMaxParsedMarkersKept && bytes.size() <= kMaxParsedMarkerKeptBytes)
      last_parsed_ = &*parsed_.emplace(bytes, marker).first;
  }

  // `source` says where the declaration is, for the one message that needs it.
  template <class Source>
  void store(std::size_t f, const std::string& prefix, py::Value marker, CheckOrder sg_order, const Source& source,
             MarkerSite site) {
    const std::size_t at = declare(prefix);
    if (at == NameIndex::npos) {
      c_.values.push_back(std::move(marker));
      py::Value* stored = &c_.values.back();
      stored_.push_back(stored);
      c_.layers.push_back(Layer{prefix, stored, c_.layers.size(), f, sglang_format(*stored), {}, site});
      return;
    }
    Layer& first = c_.layers[at];
    if (py::py_equal(*first.marker, marker)) {
      // raw_markers[prefix] = marker: sglang keeps the later of two equal
      // declarations (convrot 1 after true fails `is True`), at the first's
      // position.
      *stored_[at] = std::move(marker);
      first.format = sglang_format(*first.marker);
      return;
    }
    // ComfyUI keeps the metadata's declaration within a file (M6) and
    // merges files key by key, so it loads one of them without a word.
    out_.add(f, RuleId::QuantMarkerConflict, Place::layer(prefix),
             "expected every declaration of the layer to be equal, found " + source() + " = " + py::repr(marker) +
                 " after " + py::repr(*first.marker),
             {verdict(Msg::MarkerSgConflict, sg_order, {{"prefix!r", repr(prefix)}})});
  }

  void legacy(std::size_t f, const TensorEntry& t) {
    if (legacy_) return;
    legacy_ = true;
    out_.add(f, RuleId::QuantLegacyScaledFp8, Place::tensor(t.name),
             "expected comfy_quant markers, found a legacy scaled_fp8 marker: ComfyUI converts it (M8), sglang "
             "does not and sees unmarked fp8 weights (G22)",
             {});
  }

  // S7: quant_format mxfp8 marks every tracked weight without a marker.
  void global_mxfp8() {
    if (global_formats_ != std::set<std::string>{"mxfp8"}) return;
    std::size_t i = 0;
    std::vector<std::string_view> sorted = tracked_;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    for (std::string_view view : sorted) {  // upstream iterates a set: order not recorded (§8); sorted here
      const std::string prefix(view);
      const TensorRef* w = tensors_.find(prefix + ".weight");
      const TensorRef* s = tensors_.find(prefix + ".weight_scale");
      if (!w) continue;
      const auto& shape = w->entry->shape;
      const bool ok = w->entry->dtype == Dtype::F8_E4M3 && shape.size() == 2 && shape[1] % 32 == 0 && s &&
                      s->entry->dtype == Dtype::U8 && s->entry->shape.size() == 2 && s->entry->shape[0] == shape[0] &&
                      s->entry->shape[1] == shape[1] / 32;
      if (!ok)
        out_.add(w->file, RuleId::QuantMxfp8Global, Place::layer(prefix),
                 "expected quant_format mxfp8 layers to have a 2-D F8_E4M3 weight with K % 32 == 0 and a U8 "
                 "(N, K/32) weight_scale, found " + meta_repr(w) + " and " + meta_repr(s),
                 {verdict(Msg::MarkerSgMxfp8, At{i}, {{"prefix!r", repr(prefix)}, {"weight_meta", meta_repr(w)}, {"scale_meta", meta_repr(s)}})});
      if (!declared(prefix)) {
        c_.values.push_back(py::dict({{"format", "mxfp8"}}));
        stored_.push_back(&c_.values.back());
        declare(prefix);
        c_.layers.push_back(Layer{prefix, &c_.values.back(), c_.layers.size(), w->file,
                                   std::string(format_name(QuantFormat::Mxfp8)), {}, MarkerSite::QuantFormat});
        synthesized_.insert(prefix);
      }
      ++i;
    }
  }
  std::set<std::string> synthesized_;

  bool has_scale(const std::string& prefix) const {
    for (std::string_view s : {".weight_scale", ".weight_s_rel", ".weight_s_channel", ".weight_scale_2", ".scale_weight"})
      if (tensors_.find(prefix + std::string(s))) return true;
    return false;
  }

  // S8 for sglang; C8 for ComfyUI, which value-casts an unmarked weight and
  // drops its scale. A plain fp8 or int8 cast without any scale tensor is
  // loaded as intended by ComfyUI, so only a weight with a scale beside it is
  // a ComfyUI mis-load. ComfyUI also casts F8_E5M2, which sglang never tracks.
  void missing_markers() {
    std::vector<std::string> missing;
    for (std::string_view p : tracked_)
      if (!declared(p) && (unread_.empty() || !unread_.count(std::string(p)))) missing.emplace_back(p);
    std::sort(missing.begin(), missing.end());
    missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
    std::set<std::string> comfy;
    const auto& names = tensors_.names();
    for (std::size_t k = 0; k < names.size(); ++k) {
      const std::string_view name = names[k];
      constexpr std::string_view weight = ".weight";
      if (!ends_with(name, weight)) continue;
      const Dtype d = tensors_.named(k).entry->dtype;
      if (d != Dtype::F8_E4M3 && d != Dtype::F8_E5M2 && d != Dtype::I8 && d != Dtype::U8) continue;
      const std::string_view view = name.substr(0, name.size() - weight.size());
      const bool comfy_marked = declared(view) && (synthesized_.empty() || !synthesized_.count(std::string(view)));
      if (comfy_marked) continue;
      std::string prefix(view);
      if (unread_.count(prefix)) continue;
      if (!(legacy_ && tensors_.find(prefix + ".scale_weight")) && has_scale(prefix)) comfy.insert(std::move(prefix));
    }
    std::set<std::string> all(missing.begin(), missing.end());
    all.insert(comfy.begin(), comfy.end());
    bool first = true;
    for (const std::string& p : all) {
      const TensorRef* w = tensors_.find(p + ".weight");
      std::vector<Verdict> v;
      const bool sg = std::binary_search(missing.begin(), missing.end(), p);
      if (sg && first && !allow_missing_) {
        v.push_back(verdict(Msg::MarkerSgMissing, At{}, {{"sorted(missing)[:5]", sorted_list_repr(missing, 5)}}));
        first = false;
      }
      if (comfy.count(p)) v.push_back(Verdict{C::Comfyui, E::MisLoads, "", "", order::cu_layer(SIZE_MAX, 0)});
      out_.add(w ? w->file : 0, RuleId::QuantMarkerMissing, Place::layer(p),
               "expected a comfy_quant marker for the quantized weight " + quote_name(p + ".weight") + " (" +
                   (w ? dtype_str(*w) : std::string("?")) + "), found none",
               std::move(v));
    }
  }
};

}  // namespace

Collected collect_markers(std::span<const CheckpointFile> files, const TensorTable& tensors, Sink& out,
                          bool allow_missing_markers) {
  return Collector(files, tensors, out, allow_missing_markers).run();
}

}  // namespace safespec::quant
