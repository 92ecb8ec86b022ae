// The --data rules (CQ-DATA-*): a valid generated checkpoint of the format
// with one bad value poked into one tensor. The header-level findings stay
// those of the valid file; the value rule fires only under --data, so these
// cases have "data": true.
#include <algorithm>
#include <limits>

#include "conformance/suite_quant_support.hpp"
#include "gen/models.hpp"
#include "gen/quant_mutations.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/io/writer.hpp"

namespace safespec::conformance::detail {

namespace {

namespace q = gen::quant;
using q::Format;
using enum RuleId;

struct Poke {
  const char* what;  // name part and description
  Format format;
  const char* suffix;  // the tensor poked
  RuleId rule;
  void (*edit)(q::QTensor& t);
};

void set_f32_all(q::QTensor& t, float v) {
  t.data = Bytes();
  const std::uint64_t n = gen::byte_size(t.dtype, t.shape) / 4;
  for (std::uint64_t i = 0; i < n; ++i) {
    const Bytes b = f32_bytes({v});
    t.data.insert(t.data.end(), b.begin(), b.end());
  }
}

void first_byte(q::QTensor& t, std::uint8_t v) {
  if (t.data.empty()) t.data = zeros(gen::byte_size(t.dtype, t.shape));
  if (!t.data.empty()) t.data[0] = v;
}

const Poke kPokes[] = {
    {"fp8_weight_scale_nan", Format::Fp8E4m3, "weight_scale", DataScale, [](q::QTensor& t) { set_f32_all(t, std::numeric_limits<float>::quiet_NaN()); }},
    {"fp8_weight_scale_zero", Format::Fp8E4m3, "weight_scale", DataScale, [](q::QTensor& t) { set_f32_all(t, 0.0f); }},
    {"int8_weight_scale_negative", Format::Int8, "weight_scale", DataScale, [](q::QTensor& t) { set_f32_all(t, -1.0f); }},
    {"w4a4_weight_scale_infinite", Format::W4a4, "weight_scale", DataScale,
     [](q::QTensor& t) { set_f32_all(t, std::numeric_limits<float>::infinity()); }},
    {"w4a8_s_channel_zero", Format::W4a8, "weight_s_channel", DataScale, [](q::QTensor& t) { set_f32_all(t, 0.0f); }},
    {"nvfp4_weight_scale_2_zero", Format::Nvfp4, "weight_scale_2", DataScale, [](q::QTensor& t) { set_f32_all(t, 0.0f); }},
    {"nvfp4_block_scale_negative", Format::Nvfp4, "weight_scale", DataScale, [](q::QTensor& t) { first_byte(t, 0xB8); }},
    {"w4a8_s_rel_zero", Format::W4a8, "weight_s_rel", DataSRel, [](q::QTensor& t) { t.data = zeros(t.data.size()); }},
    {"w4a8_s_rel_nan", Format::W4a8, "weight_s_rel", DataSRel, [](q::QTensor& t) { first_byte(t, 0x7F); }},
    {"w4a8_codebook_infinite", Format::W4a8, "weight_codebook", DataCodebook,
     [](q::QTensor& t) {
       std::vector<float> v;
       for (int i = 0; i < 16; ++i) v.push_back(static_cast<float>(i));
       v[15] = std::numeric_limits<float>::infinity();
       t.data = f32_bytes(v);
     }},
    {"w4a8_codebook_decreasing", Format::W4a8, "weight_codebook", DataCodebookOrder,
     [](q::QTensor& t) {
       std::vector<float> v;
       for (int i = 0; i < 16; ++i) v.push_back(static_cast<float>(8 - i) / 8.0f);
       t.data = f32_bytes(v);
     }},
    {"mxfp8_e8m0_nan", Format::Mxfp8, "weight_scale", DataE8m0, [](q::QTensor& t) { first_byte(t, 0xFF); }},
    {"w4a4_code_minus_8", Format::W4a4, "weight", DataW4a4Range, [](q::QTensor& t) { first_byte(t, 0x08); }},
    {"int8_weight_minus_128", Format::Int8, "weight", DataInt8Range, [](q::QTensor& t) { first_byte(t, 0x80); }},
};

// A W4A8 layer gets a codebook when the poke needs one (an optional tensor, L16).
void ensure_codebook(q::QCheckpoint& c) {
  for (q::QLayer& l : c.layers)
    if (l.format == Format::W4a8 && !l.find("weight_codebook"))
      l.tensors.push_back(q::QTensor{l.name("weight_codebook"), Dtype::F32, {16}, {}});
}

}  // namespace

std::vector<Draft> data_drafts() {
  std::vector<Draft> out;
  for (std::size_t i = 0; i < std::size(kPokes); ++i) {
    const Poke& p = kPokes[i];
    auto c = small_valid({p.format}, "data", i);
    if (!c) continue;
    if (std::string_view(p.suffix) == "weight_codebook") ensure_codebook(*c);
    fill_valid_data(*c);
    q::QTensor* t = layer_tensor(*c, p.format, p.suffix);
    if (!t) continue;
    p.edit(*t);
    const auto bytes = file_bytes(*c);
    if (!bytes) continue;
    std::vector<RuleId> rules = strict_rules(*bytes);
    rules.push_back(p.rule);
    std::sort(rules.begin(), rules.end());
    out.push_back(Draft{std::string(has_error(rules) ? "reject_" : "accept_") + rule_text(p.rule) + "_" + p.what +
                            ".safetensors",
                        std::string("a valid ") + std::string(q::format_name(p.format)) + " checkpoint with one bad value in " +
                            p.suffix + " (" + p.what + "); only --data reads it",
                        *bytes, {}, rules, {}});
  }
  // Swizzle padding exists only where the swizzled scale is larger than
  // sglang's logical (N, K/16) or (N, K/32), which sglang refuses (G12, G13):
  // so this rule always comes with that layer's shape rule. Hand-built like
  // tools/quant_examples' nvfp4_small_layer: N = 16 (nvfp4) or 32 (mxfp8)
  // rows of a [128, 4] swizzled scale, cell (r, c) at byte r * 16 + c (L3).
  for (const bool nvfp4 : {true, false}) {
    const std::uint64_t n = nvfp4 ? 16 : 32;
    Bytes weight(nvfp4 ? n * 32 : n * 128, 0x22);
    Bytes scales(128 * 4, 0);
    for (std::uint64_t r = 0; r < n; ++r)
      for (std::uint64_t col = 0; col < 4; ++col) scales[r * 16 + col] = nvfp4 ? 0x38 : 0x7F;
    const std::string marker = nvfp4 ? R"({"format": "nvfp4", "full_precision_matrix_mult": true})" : R"({"format": "mxfp8"})";
    const Bytes marker_bytes(marker.begin(), marker.end());
    const Bytes scale_2 = f32_bytes({1.0f});
    const auto write = [&](const Bytes& sc) {
      std::vector<TensorView> views{
          {"blk.0.comfy_quant", Dtype::U8, {marker_bytes.size()}, marker_bytes},
          {"blk.0.weight", nvfp4 ? Dtype::U8 : Dtype::F8_E4M3, {n, nvfp4 ? 32u : 128u}, weight},
          {"blk.0.weight_scale", nvfp4 ? Dtype::F8_E4M3 : Dtype::U8, {128, 4}, sc}};
      if (nvfp4) views.push_back({"blk.0.weight_scale_2", Dtype::F32, {}, scale_2});
      auto bytes = serialize(views, std::nullopt);
      return bytes ? std::move(bytes).value() : Bytes{};
    };
    const std::vector<RuleId> before = strict_rules(write(scales));
    scales.back() = nvfp4 ? 0x38 : 0x7F;  // row 127, column 3: padding
    std::vector<RuleId> rules = before;
    rules.push_back(DataSwizzlePadding);
    std::sort(rules.begin(), rules.end());
    const std::string f = nvfp4 ? "nvfp4" : "mxfp8";
    out.push_back(Draft{"reject_CQ-DATA-SWIZZLE-PADDING_" + f + "_last_padding_cell.safetensors",
                        "a " + f + " layer of N = " + std::to_string(n) + " whose swizzled [128, 4] block scales are padded "
                        "(so sglang refuses the shape, G12/G13) with a non-zero last padding cell (L3)",
                        write(scales), {}, rules, {}});
  }
  return out;
}

}  // namespace safespec::conformance::detail
