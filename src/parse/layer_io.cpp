// The checkpoint reader and the layer errors (layer_io.hpp); the per-format
// readers are in layer_readers.cpp.
#include "src/parse/layer_io.hpp"

#include "spec/checked_math.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quant/w4a8_geometry.hpp"
#include "spec/quote.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/parse/load.hpp"
#include "src/parse/marker_reader.hpp"

namespace safespec {

namespace {

// The one spelling of a layer error: "[HEAD: ][RULE at ][PLACE: ]detail".
std::string spelled(std::optional<std::string_view> head, std::optional<RuleId> rule, const Place& shown,
                    std::string_view detail) {
  std::string out;
  if (head) out += std::string(*head) + ": ";
  if (rule) out += std::string(rule_name(*rule)) + " at ";
  if (!shown.empty()) out += shown.text() + ": ";
  return out + std::string(detail);
}

}  // namespace

LayerError layer_invalid(Place where, std::string_view detail, std::optional<RuleId> rule) {
  return LayerError{spelled(std::nullopt, std::nullopt, where, detail), true, rule, std::move(where)};
}

LayerError tensor_missing(std::string_view name, std::optional<RuleId> rule) {
  return LayerError{spelled(std::nullopt, std::nullopt, Place{}, "expected a tensor " + quote_name(name) + ", found none"), true,
                    rule, Place::tensor(name)};
}

LayerError rule_broken(std::string_view file, RuleId rule, Place where, std::string_view detail) {
  return LayerError{spelled(file, rule, where, detail), true, rule, std::move(where)};
}

LayerError values_refused(std::string_view layer, const Error& e) {
  return LayerError{spelled("layer " + quote_name(layer) + " refused", e.rule, e.where, e.message), true, e.rule,
                    Place::layer(layer)};
}

LayerError not_read(std::string_view file, std::string_view detail, Place where) {
  return LayerError{spelled(file, std::nullopt, Place{}, detail), false, std::nullopt, std::move(where)};
}

LayerError not_read(std::string_view message) {
  return LayerError{spelled(std::nullopt, std::nullopt, Place{}, message), false, std::nullopt, Place{}};
}

LayerError not_read_at(Place where, std::string_view detail) {
  return LayerError{spelled(std::nullopt, std::nullopt, where, detail), false, std::nullopt, std::move(where)};
}

LayerError input_error(LayerError e, std::string_view file) {
  if (!file.empty()) e.message = spelled(file, std::nullopt, Place{}, e.message);
  e.refused = false;
  return e;
}

LayerResult<std::unique_ptr<CheckpointReader>> CheckpointReader::open(const std::string& path) {
  std::unique_ptr<CheckpointReader> c(new CheckpointReader());
  c->path_ = path;
  HeaderParser parser;
  auto loaded = load_model(path, parser);
  if (!loaded) return not_read(path, loaded.error().message);
  if (!loaded.value()) {
    const Error& e = loaded.value().error();
    return rule_broken(path, e.rule, e.where, e.message);
  }
  c->model_ = std::make_unique<Model>(std::move(loaded.value()).value());
  auto file = ByteFile::open(path);
  if (!file) return not_read(path, file.error().message);
  auto markers = read_markers(file.value(), *c->model_);
  if (!markers) return not_read(path, markers.error().message);
  c->analyse(std::move(markers).value());
  c->data_ = std::make_unique<FileTensorData>(c->files_);
  return c;
}

LayerResult<std::unique_ptr<CheckpointReader>> CheckpointReader::from_memory(std::string name, std::vector<std::uint8_t> file) {
  std::unique_ptr<CheckpointReader> c(new CheckpointReader());
  c->path_ = std::move(name);
  c->memory_ = std::move(file);
  HeaderParser parser;
  auto model = read_model_fast(c->memory_, parser);
  if (!model) {
    const Error& e = model.error();
    return rule_broken(c->path_, e.rule, e.where, e.message);
  }
  c->model_ = std::make_unique<Model>(std::move(model).value());
  c->analyse(read_markers(c->memory_, *c->model_));
  return c;
}

void CheckpointReader::analyse(std::vector<quant::MarkerBytes> markers) {
  files_.push_back(quant::CheckpointFile{path_, model_.get(), std::move(markers)});
  table_ = std::make_unique<quant::TensorTable>(files_);
  quant::Sink sink;
  collected_ = std::make_unique<quant::Collected>(quant::collect_markers(files_, *table_, sink));
  analysis_ = quant::analyze(files_, nullptr);
}

LayerResult<const quant::Layer*> CheckpointReader::layer(std::string_view prefix) const {
  std::string known;
  for (const quant::Layer& l : collected_->layers) {
    if (l.prefix == prefix) return &l;
    if (known.size() < 400) known += (known.empty() ? "" : ", ") + quote_name(l.prefix);
  }
  return not_read(path_, "no marked layer " + quote_name(prefix) + " (marked layers: " + (known.empty() ? "none" : known) + ")",
                  Place::layer(prefix));
}

LayerResult<const quant::TensorRef*> CheckpointReader::only_tensor() const {
  const auto& names = table_->names();
  if (names.size() != 1)
    return not_read("expected exactly one tensor (or --input-tensor NAME), found " + std::to_string(names.size()));
  return table_->find(names[0]);
}

bool CheckpointReader::six_bit(const quant::Layer& l) const {
  if (!l.is(quant::QuantFormat::W4a8)) return false;
  const quant::TensorRef* w = find(quant::tensor_name(l, "weight"));
  const quant::TensorRef* s_rel = find(quant::tensor_name(l, "weight_s_rel"));
  auto g = marker_uint(l, "group_size", quant::marker_defaults(quant::QuantFormat::W4a8).group_size);
  return w && s_rel && g && quant::six_bit_k(w->entry->shape, s_rel->entry->shape, g.value());
}

LayerResult<Unit> CheckpointReader::refuse_invalid(const quant::Layer& l, bool cuda_kernel) const {
  // Only comfy-kitchen 2a6f4ef reads 6-bit storage, and the numerics follow
  // it: only its verdicts refuse such a layer.
  const std::optional<std::size_t> w6 = six_bit(l) ? version_by_id(Consumer::Kitchen, "2a6f4ef") : std::nullopt;
  const std::string companion = l.prefix + ".";  // any tensor of P
  const auto about_layer = [&](const Place& at) {
    return (at.kind == PlaceKind::Layer && at.name == l.prefix) ||
           (at.kind == PlaceKind::Tensor && at.name.starts_with(companion));
  };
  // A format ComfyUI does not register has one contract, its producer's: any
  // error of the layer refuses it, and ComfyUI's refusal of the name does not.
  const quant::FormatSpec* format = quant::find_format(l.format);
  const bool producer_only = format && !format->comfyui_registers;
  for (const quant::LocatedFinding& lf : analysis_.findings) {
    const Finding& f = lf.finding;
    if (f.severity != Severity::Error || (f.rule == RuleId::QuantW4a8CudaGroupsize && !cuda_kernel)) continue;
    if (!about_layer(f.where)) continue;
    if (producer_only && f.rule != RuleId::QuantFormatUnknown && is_quant_rule(f.rule))
      return rule_broken(path_, f.rule, f.where, f.message);
    if (producer_only) continue;
    for (const Verdict& v : f.verdicts) {
      if (v.effect != Effect::Rejects || (v.consumer != Consumer::Comfyui && v.consumer != Consumer::Kitchen)) continue;
      if (w6 && (v.consumer != Consumer::Kitchen || !v.holds_for(*w6))) continue;
      return rule_broken(path_, f.rule, f.where,
                         f.message + " (" + std::string(consumer_name(v.consumer)) + ": " + v.error + ": " + v.message + ")");
    }
  }
  return Unit{};
}

LayerResult<std::vector<std::uint8_t>> CheckpointReader::bytes(const quant::TensorRef& t) const {
  const auto count = shape_product(t.entry->shape).count;
  const auto expected = count ? checked_mul(*count, dtype_bits(t.entry->dtype)) : std::nullopt;
  const Place at = Place::tensor(t.entry->name);
  if (!expected || *expected % 8 != 0 || t.entry->end < t.entry->begin || t.entry->end - t.entry->begin != *expected / 8)
    return layer_invalid(at, "its data_offsets do not match its shape and dtype");
  if (!data_) {  // from_memory: the parser held every tensor inside the file
    const std::uint64_t start = 8 + model_->header_length + t.entry->begin;
    if (start > memory_.size() || memory_.size() - start < *expected / 8)
      return layer_invalid(at, "its data lies outside the file");
    return std::vector<std::uint8_t>(memory_.begin() + static_cast<std::ptrdiff_t>(start),
                                     memory_.begin() + static_cast<std::ptrdiff_t>(start + *expected / 8));
  }
  auto b = data_->whole(t);
  if (!b) return not_read_at(at, "cannot read its data: " + b.error());
  return std::move(b).value();
}

LayerResult<std::uint64_t> marker_uint(const quant::Layer& l, std::string_view key, std::int64_t fallback) {
  const py::Value* v = quant::comfy_get(*l.marker, key);
  if (!v) return static_cast<std::uint64_t>(fallback);
  auto i = py::py_int(*v);
  const auto n = i ? quant::as_int64(i.value()) : std::nullopt;
  if (!n || *n < 0)
    return layer_invalid(Place::layer(l.prefix),
                         "expected marker key \"" + std::string(key) + "\" to be a non-negative int, found " + py::repr(*v));
  return static_cast<std::uint64_t>(*n);
}

}  // namespace safespec
