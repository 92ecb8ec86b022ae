// The config.json declaration (model_config.hpp), read as sglang reads it:
// json.load on the file opened as UTF-8 text, then
// resolve_checkpoint_quant_spec (sglang python/sglang/srt/model_loader/
// checkpoint_quantization.py at 5c897885, search-index id 57538875324).
#include "spec/quant/model_config.hpp"

#include "spec/limits.hpp"
#include "spec/python/python_json.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/utf8.hpp"

namespace safespec::quant {

namespace {

// _as_config_mapping's TypeError for a value that is no dict.
void config_not_mapping(ModelConfig& c, std::string_view source, const py::Value& v) {
  c.type_error_source = source;
  c.type_error_type = type_name(v);
}

bool config_value_none(const py::Value* v) { return !v || std::holds_alternative<py::None>(v->data); }

}  // namespace

ModelConfig read_model_config(std::string path, std::string_view bytes) {
  ModelConfig c;
  c.path = std::move(path);
  if (bytes.size() > kMaxModelConfigBytes) {
    c.unread = std::to_string(bytes.size()) + " bytes, over safespec's bound of " +
               std::to_string(kMaxModelConfigBytes);
    return c;
  }
  // open(..., encoding="utf-8") decodes strictly before json sees a character;
  // CPython's UnicodeDecodeError text is not modelled here.
  if (auto bad = first_invalid_utf8(bytes)) {
    c.unread = "not UTF-8 text (from byte " + std::to_string(*bad) + ")";
    return c;
  }
  auto parsed = py::loads_str(bytes, py::LoadLimits{kMaxModelConfigBytes, kPythonJsonDepth});
  if (!parsed) {
    c.unread = parsed.error().what();
    return c;
  }
  const py::Value& doc = parsed.value();
  if (!is_dict(doc)) {
    config_not_mapping(c, "HF config", doc);
    return c;
  }
  // _select_hf_quant_metadata: the first of the three that is not None.
  const py::Value* selected = nullptr;
  if (const py::Value* q = get(doc, "quantization_config"); !config_value_none(q)) {
    selected = q;
    c.source = "quantization_config";
  } else if (const py::Value* text = get(doc, "text_config"); !config_value_none(text)) {
    if (!is_dict(*text)) {
      config_not_mapping(c, "text_config", *text);
      return c;
    }
    if (const py::Value* tq = get(*text, "quantization_config"); !config_value_none(tq)) {
      selected = tq;
      c.source = "text_config.quantization_config";
    }
  }
  if (!selected) {
    if (const py::Value* cc = get(doc, "compression_config"); !config_value_none(cc)) {
      selected = cc;
      c.source = "compression_config";
    }
  }
  if (!selected) return c;
  if (!is_dict(*selected)) {
    config_not_mapping(c, c.source, *selected);
    return c;
  }
  if (const py::Value* m = get(*selected, "quant_method"))
    if (const auto* s = std::get_if<std::string>(&m->data)) c.quant_method = *s;
  if (const py::Value* r = get(*selected, "convrot")) {
    c.convrot_repr = py::repr(*r);
    const auto* b = std::get_if<bool>(&r->data);
    c.convrot_true = b && *b;
  }
  return c;
}

}  // namespace safespec::quant
