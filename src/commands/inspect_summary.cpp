#include "src/commands/inspect_summary.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <unordered_map>

#include <fmt/format.h>

#include "spec/dtype.hpp"
#include "spec/format_rules.hpp"
#include "spec/python/python_repr.hpp"
#include "spec/quant/logical_size.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quant/markers.hpp"
#include "spec/quant/tensor_table.hpp"
#include "spec/quote.hpp"
#include "src/io/byte_file.hpp"
#include "src/commands/check.hpp"
#include "src/parse/marker_reader.hpp"

namespace safespec {

namespace {

void add(Total& sum, std::optional<std::uint64_t> n) {
  if (!sum || !n || *n > UINT64_MAX - *sum) sum.reset();
  else *sum += *n;
}

std::optional<std::uint64_t> element_count(std::span<const std::uint64_t> shape) {
  std::uint64_t n = 1;
  for (std::uint64_t s : shape) {
    if (s != 0 && n > UINT64_MAX / s) return std::nullopt;
    n *= s;
  }
  return n;
}

void count_tensors(const std::vector<SummaryFile>& files, InspectSummary& s) {
  std::array<DtypeTotal, kDtypeCount> by_dtype{};
  for (std::size_t i = 0; i < kDtypeCount; ++i) by_dtype[i].dtype = dtype_table()[i].dtype;
  std::unordered_map<std::string, std::size_t> group_of;
  for (const SummaryFile& f : files) {
    for (const TensorEntry& t : f.model->header.tensors) {
      const auto n = element_count(t.shape);
      const auto bytes = tensor_byte_size(t.shape, t.dtype);
      ++s.tensors;
      add(s.parameters, n);
      add(s.bytes, bytes);
      DtypeTotal& d = by_dtype[static_cast<std::size_t>(t.dtype)];
      ++d.tensors;
      add(d.parameters, n);
      add(d.bytes, bytes);
      const auto dot = t.name.view().rfind('.');
      std::string prefix = dot == std::string::npos ? "" : t.name.str().substr(0, dot);
      auto [it, fresh] = group_of.emplace(prefix, s.groups.size());
      if (fresh) s.groups.push_back(TensorGroup{std::move(prefix), {}, 0, 0});
      TensorGroup& g = s.groups[it->second];
      g.suffixes.push_back(dot == std::string::npos ? t.name.str() : t.name.str().substr(dot + 1));
      add(g.parameters, n);
      add(g.bytes, bytes);
    }
    for (const auto& [key, value] : f.model->header.metadata)
      if (std::find(s.metadata_keys.begin(), s.metadata_keys.end(), key) == s.metadata_keys.end())
        s.metadata_keys.push_back(key);
  }
  for (const DtypeTotal& d : by_dtype)
    if (d.tensors) s.dtypes.push_back(d);
}

// Whether a finding is about the layer: at the layer, at one of its tensors,
// or at its entry of _quantization_metadata.
bool about(const Place& at, const std::string& prefix) {
  if (at.kind == PlaceKind::Layer) return at.name == prefix;
  if (at.kind == PlaceKind::Tensor || at.kind == PlaceKind::TensorField)
    return at.name.size() > prefix.size() && at.name.starts_with(prefix) && at.name[prefix.size()] == '.';
  if (at.kind == PlaceKind::MetadataKey && at.name == "_quantization_metadata" && at.path.size() >= 2) {
    const auto* name = std::get_if<std::string>(&at.path[1]);
    return name && *name == prefix;
  }
  return false;
}

std::string marker_text(const quant::Layer& l) {
  switch (l.site) {
    case quant::MarkerSite::Tensor: return Place::tensor(l.prefix + std::string(quant::kMarkerSuffix)).text();
    case quant::MarkerSite::Metadata:
      return Place::metadata_key("_quantization_metadata").below("layers").below(l.prefix).text();
    case quant::MarkerSite::QuantFormat: break;
  }
  return Place::metadata_key("quant_format").text() + " (every unmarked F8_E4M3 weight)";
}

std::string_view site_name(quant::MarkerSite s) {
  switch (s) {
    case quant::MarkerSite::Tensor: return "tensor";
    case quant::MarkerSite::Metadata: return "metadata";
    case quant::MarkerSite::QuantFormat: break;
  }
  return "quant_format";
}

std::vector<std::string> assumptions(const Outcome& o) {
  std::vector<std::string> out;
  for (const quant::Assumption& a : o.assumes)
    out.push_back(a.about_kind() ? fmt::format("{} assumed {} (if not: {})", quote_name(a.layer),
                                               quant::layer_kind_name(a.kind),
                                               a.otherwise.error.empty() ? "unknown: " + a.otherwise.message
                                                                         : a.otherwise.error + ": " + a.otherwise.message)
                                 : fmt::format("assumed {} (if not: {}: {})", a.machine, a.otherwise.error,
                                               a.otherwise.message));
  return out;
}

LayerConsumer judge_layer(Consumer c, const std::vector<const Finding*>& at_layer,
                          const FileReport* report) {
  LayerConsumer out{c, "", "", "", "", "", {}, {}};
  const Finding* mis = nullptr;
  const std::size_t version = report ? report->chosen[c] : consumer_info(c).default_version;
  for (const Finding* f : at_layer) {
    for (const Verdict& v : f->verdicts) {
      if (v.consumer != c || !v.holds_for(version)) continue;
      if (v.effect == Effect::Rejects && out.verdict.empty()) {
        out.verdict = v.error.empty() ? "unknown" : "rejects";
        out.rule = std::string(rule_name(f->rule));
        out.error = v.error;
        out.message = v.message;
      }
      if (v.effect == Effect::MisLoads && !mis) mis = f;
    }
  }
  if (!report || !report->judged) {
    if (out.verdict.empty()) out.verdict = "not judged";
    return out;
  }
  const Outcome& o = report->consumers[c];
  if (out.verdict.empty() && mis) {
    out.verdict = "mis-loads";
    out.rule = std::string(rule_name(mis->rule));
  } else if (out.verdict.empty() && o.loads) {
    out.verdict = "loads";
  } else if (out.verdict.empty()) {
    out.verdict = "not reached";
    out.error = o.error;
    out.message = o.message;
  }
  if (o.loads && c == Consumer::Sglang && o.config != "None") out.config = o.config;
  // A "loads" that rests on a layer kind sglang cannot see, or on a check
  // that did not run, says so.
  if (o.loads) {
    out.assumes = assumptions(o);
    out.unchecked = o.unchecked;
  }
  return out;
}

// The layer's logical size, and its share of the checkpoint's totals: the
// weight's stored elements give way to N * K.
void add_size(const quant::Layer& l, const quant::TensorTable& table, QuantLayerSummary& q, InspectSummary& s) {
  const quant::FormatSpec* f = quant::find_format(l.format);
  if (!f) {
    q.logical_shape_error = "unknown format";
    return;
  }
  const quant::LayerSize size = quant::layer_size(l, table, *f);
  q.packing = std::string(quant::packing_name(quant::layer_packing(*f, l, table)));
  if (size.shape) q.logical_shape.emplace(size.shape.value().n, size.shape.value().k);
  else q.logical_shape_error = size.shape.error();
  q.logical_parameters = size.parameters;
  q.stored_bytes = size.stored_bytes;
  add(s.quantized_bytes, size.stored_bytes);
  if (!size.parameters || !size.stored_weight) return;
  // The weight is one of the tensors `parameters` counted, so its count is
  // not above the total.
  if (s.logical_parameters) *s.logical_parameters -= *size.stored_weight;
  add(s.logical_parameters, size.parameters);
}

void quantized_layers(const std::vector<SummaryFile>& files, const std::vector<FileReport>& reports,
                      InspectSummary& s) {
  std::vector<quant::CheckpointFile> cfiles;
  for (const SummaryFile& f : files) {
    auto file = ByteFile::open(f.path);
    if (!file) {
      s.check_error = f.path + ": " + file.error().message;
      s.logical_parameters = s.quantized_bytes = std::nullopt;
      return;
    }
    auto markers = read_markers(file.value(), *f.model);
    if (!markers) {
      s.check_error = f.path + ": " + markers.error().message;
      s.logical_parameters = s.quantized_bytes = std::nullopt;
      return;
    }
    cfiles.push_back(quant::CheckpointFile{f.path, f.model, std::move(markers).value()});
  }
  const quant::TensorTable table(cfiles);
  quant::Sink ignored;  // the check below reports the markers' findings
  const quant::Collected collected = quant::collect_markers(cfiles, table, ignored);
  if (collected.layers.empty()) return;

  for (const quant::Layer& l : collected.layers) {
    QuantLayerSummary q{l.prefix, l.format, std::string(site_name(l.site)), marker_text(l), cfiles[l.file].path,
                        {}, {}, py::repr(*l.marker), "", std::nullopt, "", std::nullopt, std::nullopt};
    for (std::string_view key : {"group_size", "convrot_groupsize"}) {
      if (const py::Value* v = quant::get(*l.marker, key)) q.group_sizes.emplace_back(key, py::repr(*v));
      else if (const py::Value* p = quant::comfy_get(*l.marker, key))
        q.group_sizes.emplace_back("params." + std::string(key), py::repr(*p));
    }
    add_size(l, table, q, s);
    std::vector<const Finding*> at_layer;
    const FileReport* own = nullptr;
    for (const FileReport& r : reports) {
      if (r.path == q.file) own = &r;
      for (const Finding& f : r.findings)
        if (about(f.where, l.prefix)) at_layer.push_back(&f);
    }
    for (Consumer c : kConsumers)  // the reference reader never reads a layer
      if (consumer_info(c).errors == ErrorStyle::PythonException) q.consumers.push_back(judge_layer(c, at_layer, own));
    s.layers.push_back(std::move(q));
  }
}

CheckpointVerdict judge_checkpoint(const std::vector<FileReport>& reports, Consumer c) {
  CheckpointVerdict j{c, true, "", "", "", "", "", {}, {}, {}};
  for (const FileReport& r : reports) {
    if (!r.judged) continue;
    const Outcome& o = r.consumers[c];
    for (RuleId id : o.mis_loads) {
      const std::string name(rule_name(id));
      if (std::find(j.mis_loads.begin(), j.mis_loads.end(), name) == j.mis_loads.end()) j.mis_loads.push_back(name);
    }
    if (o.loads) {
      if (c == Consumer::Sglang && o.config != "None" && j.config.empty()) j.config = o.config;
      for (std::string& a : assumptions(o))
        if (std::find(j.assumes.begin(), j.assumes.end(), a) == j.assumes.end()) j.assumes.push_back(std::move(a));
      for (const std::string& u : o.unchecked)
        if (std::find(j.unchecked.begin(), j.unchecked.end(), u) == j.unchecked.end()) j.unchecked.push_back(u);
      continue;
    }
    if (!j.loads) continue;
    j.loads = false;
    j.error = o.error;
    j.message = o.message;
    // Because: the finding that carries this rejection (its message is the consumer's).
    for (const Finding& f : r.findings)
      for (const Verdict& v : f.verdicts)
        if (j.rule.empty() && v.consumer == c && v.effect == Effect::Rejects && v.message == o.message) {
          j.rule = std::string(rule_name(f.rule));
          j.where = f.where.text();
        }
  }
  if (!j.loads) {
    j.config.clear();
    j.assumes.clear();
    j.unchecked.clear();
  }
  return j;
}

}  // namespace

InspectSummary summarize(const std::vector<SummaryFile>& files, const std::vector<FileReport>& reports) {
  InspectSummary s;
  count_tensors(files, s);
  s.logical_parameters = s.parameters;
  quantized_layers(files, reports, s);
  for (Consumer c : kConsumers) s.verdicts.push_back(judge_checkpoint(reports, c));
  return s;
}

}  // namespace safespec
