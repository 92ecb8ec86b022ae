// The text side of a quantized checkpoint (quant_layers.hpp): markers as
// Python's json.dumps writes them, the sglang view of a checkpoint (its
// formats, its layer order) and serialization into .safetensors files. The
// generators of the layers themselves are in quant_layers.cpp.
#include <algorithm>
#include <set>
#include <stdexcept>

#include "gen/models.hpp"
#include "gen/quant_layers.hpp"
#include "src/io/writer.hpp"

namespace safespec::gen::quant {

std::string py_json_string(std::string_view utf8) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  auto u = [&](std::uint32_t v) {
    out += "\\u";
    for (int s = 12; s >= 0; s -= 4) out += kHex[(v >> s) & 0xF];
  };
  std::size_t i = 0;
  while (i < utf8.size()) {
    const auto b = static_cast<unsigned char>(utf8[i]);
    std::uint32_t cp = b;
    std::size_t len = 1;
    if (b >= 0xF0) cp = b & 0x07, len = 4;
    else if (b >= 0xE0) cp = b & 0x0F, len = 3;
    else if (b >= 0xC0) cp = b & 0x1F, len = 2;
    for (std::size_t j = 1; j < len && i + j < utf8.size(); ++j)
      cp = (cp << 6) | (static_cast<unsigned char>(utf8[i + j]) & 0x3F);
    i += len;
    switch (cp) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      default: break;
    }
    if (cp >= 0x20 && cp < 0x7F) out += static_cast<char>(cp);
    else if (cp < 0x10000) u(cp);
    else {
      const std::uint32_t v = cp - 0x10000;
      u(0xD800 + (v >> 10));
      u(0xDC00 + (v & 0x3FF));
    }
  }
  return out + "\"";
}

std::string json_dumps(const Marker& m) {
  std::string out = "{";
  for (std::size_t i = 0; i < m.size(); ++i) out += (i ? ", " : "") + py_json_string(m[i].key) + ": " + m[i].json;
  return out + "}";
}

std::string json_int(std::int64_t v) { return std::to_string(v); }

const std::string* marker_get(const Marker& m, std::string_view key) {
  for (const MarkerEntry& e : m)
    if (e.key == key) return &e.json;
  return nullptr;
}

void marker_set(Marker& m, std::string_view key, std::string json) {
  for (MarkerEntry& e : m)
    if (e.key == key) {
      e.json = std::move(json);
      return;
    }
  m.push_back({std::string(key), std::move(json)});
}

bool marker_erase(Marker& m, std::string_view key) {
  const auto it = std::find_if(m.begin(), m.end(), [&](const MarkerEntry& e) { return e.key == key; });
  if (it == m.end()) return false;
  m.erase(it);
  return true;
}

std::string sglang_format(const Marker& m) {
  const std::string* f = marker_get(m, "format");
  if (!f || *f == "null") return "None";
  if (*f == "true") return "True";
  if (*f == "false") return "False";
  if (f->size() >= 2 && f->front() == '"') return f->substr(1, f->size() - 2);
  return *f;
}

std::vector<std::string> sglang_formats(const QCheckpoint& c) {
  std::set<std::string> s;
  for (std::size_t i : sglang_insertion_order(c)) s.insert(sglang_format(c.layers[i].marker));
  return {s.begin(), s.end()};
}

bool sglang_resolves(const std::vector<std::string>& f) {
  using V = std::vector<std::string>;
  static const std::vector<V> ok{{"int8_tensorwise"}, {"asym_w4a8_int8"}, {"asym_w4a8_int8", "int8_tensorwise"},
                                 {"convrot_w4a4"},    {"convrot_w4a4", "int8_tensorwise"},
                                 {"float8_e4m3fn"},   {"nvfp4"},
                                 {"int8_tensorwise", "nvfp4"}, {"mxfp8"}};
  return std::find(ok.begin(), ok.end(), f) != ok.end();
}

std::string marker_text(const QLayer& l) { return l.marker_bytes ? *l.marker_bytes : json_dumps(l.marker); }

std::optional<std::string> qmeta_text(const QCheckpoint& c, std::size_t file) {
  const QFile& f = c.files[file];
  if (f.qmeta_raw) return f.qmeta_raw;
  std::string layers;
  bool any = false;
  for (const QLayer& l : c.layers) {
    if (l.file != file || l.site != Site::Metadata) continue;
    layers += (any ? ", " : "") + py_json_string(l.prefix) + ": " + json_dumps(l.marker);
    any = true;
  }
  for (const MarkerEntry& e : f.qmeta_extra) {
    layers += (any ? ", " : "") + py_json_string(e.key) + ": " + e.json;
    any = true;
  }
  if (!any) return std::nullopt;
  return "{\"format_version\": \"1.0\", \"layers\": {" + layers + "}}";
}

std::vector<QTensor> file_tensors(const QCheckpoint& c, std::size_t file) {
  std::vector<QTensor> out;
  for (const QLayer& l : c.layers) {
    if (l.file != file) continue;
    out.insert(out.end(), l.tensors.begin(), l.tensors.end());
    if (l.site == Site::Tensor) {
      const std::string text = marker_text(l);
      QTensor m{l.prefix + ".comfy_quant", l.marker_dtype, {}, std::vector<std::uint8_t>(text.begin(), text.end())};
      const std::uint64_t bytes = text.size();
      const std::uint64_t width = std::max<std::uint64_t>(1, dtype_bits(l.marker_dtype) / 8);
      m.shape = l.marker_2d ? std::vector<std::uint64_t>{1, bytes / width} : std::vector<std::uint64_t>{bytes / width};
      out.push_back(std::move(m));
    }
  }
  const QFile& f = c.files[file];
  out.insert(out.end(), f.extra.begin(), f.extra.end());
  return out;
}

Result<std::vector<std::uint8_t>> serialize_file(const QCheckpoint& c, std::size_t file) {
  const std::vector<QTensor> tensors = file_tensors(c, file);
  std::vector<std::vector<std::uint8_t>> zeros;
  zeros.reserve(tensors.size());
  std::vector<TensorView> views;
  for (const QTensor& t : tensors) {
    if (t.data.empty()) {
      zeros.emplace_back(byte_size(t.dtype, t.shape), std::uint8_t{0});
      views.push_back(TensorView{t.name, t.dtype, t.shape, zeros.back()});
    } else {
      views.push_back(TensorView{t.name, t.dtype, t.shape, t.data});
    }
  }
  Metadata meta = c.files[file].metadata;
  if (auto q = qmeta_text(c, file)) meta.emplace_back("_quantization_metadata", *q);
  return serialize(std::move(views), meta.empty() ? std::nullopt : std::optional<Metadata>(std::move(meta)));
}

std::vector<std::vector<std::uint8_t>> serialize_checkpoint(const QCheckpoint& c) {
  std::vector<std::vector<std::uint8_t>> out;
  for (std::size_t f = 0; f < c.files.size(); ++f) {
    auto bytes = serialize_file(c, f);
    if (!bytes) throw std::runtime_error("the writer refused file " + c.files[f].name + ": " + bytes.error().message);
    out.push_back(std::move(bytes).value());
  }
  return out;
}

std::vector<std::size_t> sglang_insertion_order(const QCheckpoint& c) {
  std::vector<std::size_t> order;
  std::set<std::string> seen;
  auto declare = [&](const std::string& prefix) {
    if (!seen.insert(prefix).second) return;
    for (std::size_t i = 0; i < c.layers.size(); ++i)
      if (c.layers[i].prefix == prefix) order.push_back(i);
  };
  for (std::size_t f = 0; f < c.files.size(); ++f) {
    if (!c.files[f].qmeta_raw) {
      for (const QLayer& l : c.layers)
        if (l.file == f && l.site == Site::Metadata) declare(l.prefix);
      for (const MarkerEntry& e : c.files[f].qmeta_extra)
        if (!e.json.empty() && e.json.front() == '{') declare(e.key);
    }
    std::vector<std::pair<std::string, std::string>> keyed;  // (marker key, prefix)
    for (const QLayer& l : c.layers)
      if (l.file == f && l.site == Site::Tensor) keyed.emplace_back(l.prefix + ".comfy_quant", l.prefix);
    std::sort(keyed.begin(), keyed.end());
    for (const auto& [key, prefix] : keyed) declare(prefix);
  }
  return order;
}

std::size_t sglang_index(const QCheckpoint& c, std::string_view prefix) {
  const auto order = sglang_insertion_order(c);
  for (std::size_t i = 0; i < order.size(); ++i)
    if (c.layers[order[i]].prefix == prefix) return i;
  return SIZE_MAX;
}

}  // namespace safespec::gen::quant
