// safespec_layer_describe and safespec_dequant_layer (include/safespec/layer.h):
// the caller's layer written as a one-layer checkpoint in memory, then the
// path `safespec dequant` takes on a file: the reader, the format's rules
// (refuse_invalid), and the format's row of the numerics table. So a format
// reaches the C API through its rows, with no function of its own here.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "safespec/safespec.h"
#include "spec/python/python_json.hpp"
#include "spec/python/python_repr.hpp"
#include "spec/quant/logical_size.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quote.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/c_api/numerics_support.hpp"
#include "src/commands/format_numerics.hpp"
#include "src/io/writer.hpp"
#include "src/parse/layer_io.hpp"

namespace {

using namespace safespec;
using namespace safespec::c_api;

constexpr const char* kPrefix = "layer";

std::string format_list() {
  std::string out;
  for (const quant::FormatSpec& f : quant::all_formats()) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

// A refusal of the reader or the rules (with the rule that decided it, when
// one did), or a request the layer cannot answer.
ApiError layer_error(const LayerError& e) {
  if (!e.refused) return invalid_argument(e.message);
  ApiError out = invalid_input(e.message);
  if (e.rule) out.rule = std::string(rule_name(*e.rule));
  return out;
}

struct OpenLayer {
  std::unique_ptr<CheckpointReader> reader;
  const quant::Layer* layer = nullptr;
  const quant::FormatSpec* spec = nullptr;
};

// The layer as a checkpoint holds it: "layer.<suffix>" tensors and the
// marker "layer.comfy_quant" = {"format": format, <marker_json's keys>}.
ApiResult<OpenLayer> open_layer(const char* format, const char* marker_json, const safespec_named_tensor* tensors,
                                std::size_t count) {
  if (!format) return invalid_argument("format: expected a format name, found a null pointer");
  const quant::FormatSpec* spec = quant::find_format(format);
  if (!spec) return invalid_argument("format: expected one of " + format_list() + ", found " + quote_name(format));
  if (count != 0 && !tensors) return invalid_argument("tensors: expected an array of " + std::to_string(count) + ", found a null pointer");
  std::vector<TensorView> views;
  for (std::size_t i = 0; i < count; ++i) {
    const safespec_named_tensor& t = tensors[i];
    if (!t.suffix || !*t.suffix)
      return invalid_argument("tensors[" + std::to_string(i) + "]: expected a suffix such as \"weight\", found none");
    const std::string suffix = t.suffix;
    if (suffix == "comfy_quant") return invalid_argument("tensors: the marker comes from format and marker_json, not a tensor");
    const std::string what = "tensors[" + std::to_string(i) + "] (" + quote_name(suffix) + ")";
    const auto d = static_cast<unsigned>(t.tensor.dtype);
    if (d >= kDtypeCount) return invalid_argument(what + ": unknown dtype " + std::to_string(d));
    if (auto s = check_tensor(&t.tensor, what.c_str(), {static_cast<Dtype>(d)}); !s) return s.error();
    const std::string name = std::string(kPrefix) + "." + suffix;
    if (std::any_of(views.begin(), views.end(), [&](const TensorView& v) { return v.name == name; }))
      return invalid_argument("tensors: " + quote_name(suffix) + " given twice");
    views.push_back({name, dtype_of(t.tensor), shape_of(t.tensor), bytes_of(t.tensor)});
  }
  // The marker: marker_json verbatim when it names this format itself (a
  // file's marker text as it is), else with "format" put first.
  const std::string keys = marker_json ? marker_json : "";
  std::string marker = "{\"format\": \"" + std::string(spec->name) + "\"}";
  if (!keys.empty()) {
    auto parsed = py::loads(keys);
    if (!parsed || !quant::is_dict(parsed.value()))
      return invalid_argument("marker_json: expected a JSON object of marker keys, found " +
                              (parsed ? std::string(quant::type_name(parsed.value())) : parsed.error().what()));
    const py::Value* named = quant::get(parsed.value(), "format");
    const std::string* name = named ? std::get_if<std::string>(&named->data) : nullptr;
    if (named && (!name || *name != spec->name))
      return invalid_argument("marker_json: expected no \"format\" key or " + quote_name(spec->name) +
                              " (the format argument), found " + py::repr(*named));
    if (named) {
      marker = keys;
    } else {  // a JSON object: '{' first and '}' last, blanks aside
      std::string inner = keys.substr(keys.find('{') + 1);
      inner.erase(inner.rfind('}'));
      if (inner.find_first_not_of(" \t\r\n") != std::string::npos)
        marker = "{\"format\": \"" + std::string(spec->name) + "\", " + inner + "}";
    }
  }
  views.push_back({std::string(kPrefix) + ".comfy_quant", Dtype::U8, {marker.size()},
                   {reinterpret_cast<const std::uint8_t*>(marker.data()), marker.size()}});
  auto file = serialize(std::move(views), std::nullopt);
  if (!file) return invalid_argument("the layer cannot be written as a checkpoint: " + file.error().message);
  auto reader = CheckpointReader::from_memory(kPrefix, std::move(file).value());
  if (!reader) return layer_error(reader.error());
  auto layer = reader.value()->layer(kPrefix);
  if (!layer) return invalid_argument("marker_json: the marker " + quote_name(marker) + " gives no layer");
  if (auto s = reader.value()->refuse_invalid(*layer.value(), false); !s) return layer_error(s.error());
  const quant::Layer* l = layer.value();
  return OpenLayer{std::move(reader).value(), l, spec};
}

void copy_text(char* to, std::size_t size, std::string_view text) {
  const std::size_t n = std::min(size - 1, text.size());
  std::memcpy(to, text.data(), n);
  to[n] = '\0';
}

}  // namespace

extern "C" {

safespec_status safespec_layer_describe(const char* format, const char* marker_json, const safespec_named_tensor* tensors,
                                        size_t count, safespec_layer_info* info, safespec_error* error) {
  return numeric_call(error, [&]() -> ApiStatus {
    if (!info) return invalid_argument("info: expected a safespec_layer_info, found a null pointer");
    auto open = open_layer(format, marker_json, tensors, count);
    if (!open) return open.error();
    const OpenLayer& o = open.value();
    const quant::LayerSize size = quant::layer_size(*o.layer, o.reader->table(), *o.spec);
    if (!size.shape) return invalid_input("weight: " + size.shape.error());
    *info = safespec_layer_info{};
    copy_text(info->format, sizeof info->format, o.spec->name);
    copy_text(info->packing, sizeof info->packing,
              quant::packing_name(quant::layer_packing(*o.spec, *o.layer, o.reader->table())));
    info->rows = size.shape.value().n;
    info->cols = size.shape.value().k;
    info->parameters = size.parameters.value_or(0);
    info->stored_bytes = size.stored_bytes.value_or(0);
    return Unit{};
  });
}

safespec_status safespec_dequant_layer(const char* format, const char* marker_json, const safespec_named_tensor* tensors,
                                       size_t count, int frozen_codebook, safespec_buffer* out, safespec_error* error) {
  return numeric_call(error, [&]() -> ApiStatus {
    if (!out || !out->data) return invalid_argument("out: expected an output buffer, found a null pointer");
    auto open = open_layer(format, marker_json, tensors, count);
    if (!open) return open.error();
    const OpenLayer& o = open.value();
    auto w = format_numerics(o.spec->format).dequant(*o.reader, *o.layer, DequantOptions{frozen_codebook != 0});
    if (!w) return layer_error(w.error());
    const deq::Mat<float>& m = w.value();
    return write_values(out, "weight [" + std::to_string(m.rows) + ", " + std::to_string(m.cols) + "]", m.v, kFloats);
  });
}

}  // extern "C"
