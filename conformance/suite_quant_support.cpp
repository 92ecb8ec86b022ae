#include "conformance/suite_quant_support.hpp"

#include "gen/models.hpp"

#include <algorithm>

namespace safespec::conformance::detail {

namespace q = gen::quant;

void one_file(q::QCheckpoint& c) {
  if (c.files.size() <= 1) return;
  q::QFile& first = c.files[0];
  for (std::size_t f = 1; f < c.files.size(); ++f) {
    for (auto& kv : c.files[f].metadata)
      if (std::none_of(first.metadata.begin(), first.metadata.end(), [&](const auto& m) { return m.first == kv.first; }))
        first.metadata.push_back(kv);
    first.extra.insert(first.extra.end(), c.files[f].extra.begin(), c.files[f].extra.end());
    first.qmeta_extra.insert(first.qmeta_extra.end(), c.files[f].qmeta_extra.begin(), c.files[f].qmeta_extra.end());
  }
  c.files.resize(1);
  first.name = "model.safetensors";
  for (q::QLayer& l : c.layers) l.file = 0;
}

namespace {

// 1.0 in a float dtype, little-endian; empty for the others.
Bytes one_in(Dtype d) {
  switch (d) {
    case Dtype::F32: return {0x00, 0x00, 0x80, 0x3F};
    case Dtype::F64: return {0, 0, 0, 0, 0, 0, 0xF0, 0x3F};
    case Dtype::F16: return {0x00, 0x3C};
    case Dtype::BF16: return {0x80, 0x3F};
    case Dtype::F8_E4M3: return {0x38};
    case Dtype::F8_E5M2: return {0x3C};
    case Dtype::F8_E8M0: return {0x7F};
    default: return {};
  }
}

Bytes repeated(const Bytes& unit, std::uint64_t bytes) {
  Bytes out;
  while (!unit.empty() && out.size() + unit.size() <= bytes) out.insert(out.end(), unit.begin(), unit.end());
  out.resize(bytes, 0);
  return out;
}

// An increasing sequence in F32, BF16 or F16 (a codebook of any size).
Bytes increasing(Dtype d, std::uint64_t bytes) {
  const std::uint64_t width = d == Dtype::F32 ? 4 : 2;
  std::vector<float> v;
  for (std::uint64_t i = 0; i < bytes / width; ++i) v.push_back(static_cast<float>(i + 1) / 8.0f);
  const Bytes f32 = f32_bytes(v);
  if (d == Dtype::F32) return f32;
  Bytes out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint32_t bits = static_cast<std::uint32_t>(f32[4 * i]) | static_cast<std::uint32_t>(f32[4 * i + 1]) << 8 |
                               static_cast<std::uint32_t>(f32[4 * i + 2]) << 16 | static_cast<std::uint32_t>(f32[4 * i + 3]) << 24;
    // Positive normal values with at most 7 mantissa bits: exact in both.
    const std::uint32_t h = d == Dtype::BF16 ? bits >> 16 : ((((bits >> 23) & 0xFF) - 127 + 15) << 10) | ((bits >> 13) & 0x3FF);
    out.push_back(static_cast<std::uint8_t>(h & 0xFF));
    out.push_back(static_cast<std::uint8_t>(h >> 8));
  }
  return out;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

void fill_valid_data(q::QCheckpoint& c) {
  for (q::QLayer& l : c.layers) {
    const bool block_scales = l.format == q::Format::Nvfp4 || l.format == q::Format::Mxfp8;
    for (q::QTensor& t : l.tensors) {
      if (!t.data.empty()) continue;
      const std::uint64_t size = gen::byte_size(t.dtype, t.shape);
      if (size == 0) continue;
      const std::string_view n = t.name;
      Bytes unit;
      if (ends_with(n, ".weight_codebook") &&
          (t.dtype == Dtype::F32 || t.dtype == Dtype::BF16 || t.dtype == Dtype::F16)) {
        unit = increasing(t.dtype, size);  // whatever the (possibly wrong) size
      } else if (ends_with(n, ".weight_scale") && block_scales) {
        continue;  // zero block scales are valid and keep the swizzle padding zero
      } else if (ends_with(n, ".weight_scale") || ends_with(n, ".weight_scale_2") || ends_with(n, ".input_scale") ||
                 ends_with(n, ".weight_s_channel") || ends_with(n, ".weight_s_rel")) {
        unit = one_in(t.dtype == Dtype::U8 && ends_with(n, ".weight_s_rel") ? Dtype::F8_E4M3 : t.dtype);
      }
      if (!unit.empty()) t.data = repeated(unit, size);
    }
  }
}

void set_site(q::QCheckpoint& c, q::Site site) {
  for (q::QLayer& l : c.layers) l.site = site;
}

std::optional<Bytes> file_bytes(const q::QCheckpoint& c) {
  auto bytes = q::serialize_file(c, 0);
  if (!bytes) return std::nullopt;
  return std::move(bytes).value();
}

q::QTensor* layer_tensor(q::QCheckpoint& c, q::Format f, std::string_view suffix) {
  for (q::QLayer& l : c.layers)
    if (l.format == f) return l.find(suffix);
  return nullptr;
}

std::optional<q::QCheckpoint> small_valid(const std::vector<q::Format>& formats, std::string_view part, std::uint64_t item) {
  std::optional<q::QCheckpoint> best;
  std::size_t best_size = 0;
  for (std::uint64_t attempt = 0; attempt < 40; ++attempt) {
    q::QCheckpoint c = sample(q::valid_checkpoint_of(formats), key_of(part, item, 0, attempt), 100);
    one_file(c);
    fill_valid_data(c);
    const auto bytes = file_bytes(c);
    if (!bytes || !default_rules(*bytes).empty()) continue;
    if (!best || bytes->size() < best_size) {
      best = c;
      best_size = bytes->size();
    }
    if (best_size <= 4096) break;
  }
  return best;
}

std::string site_name(q::Site s) { return s == q::Site::Tensor ? "tensor_marker" : "quantization_metadata"; }

}  // namespace safespec::conformance::detail
