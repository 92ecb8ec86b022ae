#include "tools/quant_examples.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include "src/io/writer.hpp"

namespace safespec::tools {

namespace {

using Bytes = std::vector<std::uint8_t>;
using Shape = std::vector<std::uint64_t>;

// ---------------------------------------------------------------- element patterns

void put_f32(Bytes& out, float v) {
  const auto bits = std::bit_cast<std::uint32_t>(v);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
}

// base, base + step, ... repeating every `period` elements: positive when base > 0.
Bytes f32s(std::uint64_t n, float base, float step, std::uint64_t period = 8) {
  Bytes out;
  for (std::uint64_t i = 0; i < n; ++i) put_f32(out, base + step * static_cast<float>(i % period));
  return out;
}

Bytes f32_list(std::initializer_list<float> values) {
  Bytes out;
  for (float v : values) put_f32(out, v);
  return out;
}

// One binary16/bfloat16 bit pattern repeated (little-endian).
Bytes half_bits(std::uint64_t n, std::uint16_t bits) {
  Bytes out;
  for (std::uint64_t i = 0; i < n; ++i) {
    out.push_back(static_cast<std::uint8_t>(bits & 0xFF));
    out.push_back(static_cast<std::uint8_t>(bits >> 8));
  }
  return out;
}

// Finite E4M3 codes of both signs: magnitudes 0x00-0x7E (0x7F is NaN).
Bytes e4m3_codes(std::uint64_t n, unsigned seed) {
  Bytes out(n);
  for (std::uint64_t i = 0; i < n; ++i)
    out[i] = static_cast<std::uint8_t>(((i * 37 + seed) % 0x7F) | ((i & 1) << 7));
  return out;
}

// Finite E5M2 codes of both signs: magnitudes below 0x7C (inf and NaN).
Bytes e5m2_codes(std::uint64_t n, unsigned seed) {
  Bytes out(n);
  for (std::uint64_t i = 0; i < n; ++i)
    out[i] = static_cast<std::uint8_t>(((i * 37 + seed) % 0x7C) | ((i & 1) << 7));
  return out;
}

// Positive, finite, non-zero E4M3 scales: 0x28-0x3F, 0.25 to 1.875.
Bytes e4m3_scales(std::uint64_t n) {
  Bytes out(n);
  for (std::uint64_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(0x28 + (i * 5) % 24);
  return out;
}

// E8M0 block scales 2^-7 .. 2^0 (0xFF is NaN).
Bytes e8m0_scales(std::uint64_t n) {
  Bytes out(n);
  for (std::uint64_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(0x78 + i % 8);
  return out;
}

// int8 codes in -127..127, what the quantizer emits (L14).
Bytes int8_codes(std::uint64_t n, unsigned seed) {
  Bytes out(n);
  for (std::uint64_t i = 0; i < n; ++i)
    out[i] = static_cast<std::uint8_t>(static_cast<int>((i * 37 + seed) % 255) - 127);
  return out;
}

// Signed int4 codes in -7..7, low nibble first (L2, L15).
Bytes int4_signed(std::uint64_t nbytes, unsigned seed) {
  Bytes out(nbytes);
  for (std::uint64_t i = 0; i < nbytes; ++i) {
    const auto lo = static_cast<unsigned>(static_cast<int>((2 * i * 5 + seed) % 15) - 7) & 0xF;
    const auto hi = static_cast<unsigned>(static_cast<int>(((2 * i + 1) * 5 + seed) % 15) - 7) & 0xF;
    out[i] = static_cast<std::uint8_t>(lo | (hi << 4));
  }
  return out;
}

// Any byte: E2M1 pairs (nvfp4) and unsigned nibbles (W4A8, AWQ) are all valid.
Bytes pattern(std::uint64_t n, unsigned seed) {
  Bytes out(n);
  for (std::uint64_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(i * 31 + seed);
  return out;
}

Bytes text_bytes(std::string_view s) { return Bytes(s.begin(), s.end()); }

// ---------------------------------------------------------------- checkpoints

struct Tensor {
  std::string name;
  Dtype dtype;
  Shape shape;
  Bytes bytes;
};

class Checkpoint {
 public:
  Checkpoint& add(std::string name, Dtype d, Shape s, Bytes b) {
    tensors_.push_back({std::move(name), d, std::move(s), std::move(b)});
    return *this;
  }
  // P.comfy_quant: the bytes of json.dumps(marker) as a 1-D U8 tensor (M2).
  Checkpoint& marker(const std::string& prefix, std::string_view json) {
    return add(prefix + ".comfy_quant", Dtype::U8, {json.size()}, text_bytes(json));
  }
  Checkpoint& meta(std::string key, std::string value) {
    metadata_.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  Bytes build() const {
    std::vector<TensorView> views;
    for (const Tensor& t : tensors_) views.push_back({t.name, t.dtype, t.shape, t.bytes});
    auto bytes = serialize(views, metadata_);
    if (!bytes) {
      std::fprintf(stderr, "quant_examples: the writer refused a checkpoint: %s\n", bytes.error().message.c_str());
      std::exit(1);
    }
    return std::move(bytes).value();
  }

 private:
  std::vector<Tensor> tensors_;
  Metadata metadata_{{"format", "pt"}, {"producer", "safespec make_corpus"}};
};

// The markers as ComfyUI's writer or the kitchen exporters write them
// (json.dumps defaults, §1.1 M2), in the variants sglang accepts.
constexpr std::string_view kFp8 = R"({"format": "float8_e4m3fn"})";
constexpr std::string_view kFp8E5m2 = R"({"format": "float8_e5m2"})";
constexpr std::string_view kNvfp4 = R"({"format": "nvfp4", "full_precision_matrix_mult": true})";
constexpr std::string_view kMxfp8 = R"({"format": "mxfp8"})";
constexpr std::string_view kInt8Convrot = R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 64})";
constexpr std::string_view kInt8Plain = R"({"format": "int8_tensorwise"})";
constexpr std::string_view kW4a4 = R"({"format": "convrot_w4a4", "convrot_groupsize": 64, "linear_dtype": "int4"})";
constexpr std::string_view kW4a8 =
    R"({"format": "asym_w4a8_int8", "group_size": 16, "convrot_groupsize": 256, "convrot": true})";
// What ComfyUI's own writer emits for W4A8: no "convrot" (G1).
constexpr std::string_view kW4a8Comfy = R"({"format": "asym_w4a8_int8", "group_size": 16, "convrot_groupsize": 256})";
constexpr std::string_view kAwq = R"({"format": "awq_w4a16", "group_size": 64})";
constexpr std::string_view kSvdNatural = R"({"format": "svdquant_w4a4"})";
// What comfy-quants' exporter writes (svdquant_w4a4_checkpoint_quant_config).
constexpr std::string_view kSvdTiled =
    R"({"format": "svdquant_w4a4", "layout": "kitchen_tile_packed_w4a4", "lowrank_branch_input_basis": "raw", "proj_down_smooth_folded": true})";

// L10/L11: weight [4, 64], scalar F32 scale.
void fp8_layer(Checkpoint& c, const std::string& p, bool e5m2 = false, float scale = 0.0125f) {
  c.add(p + ".weight", e5m2 ? Dtype::F8_E5M2 : Dtype::F8_E4M3, {4, 64}, e5m2 ? e5m2_codes(256, 3) : e4m3_codes(256, 3));
  c.add(p + ".weight_scale", Dtype::F32, {}, f32_list({scale}));
}

// L12 with N = 128, K = 64: sglang's (N, K/16) and kitchen's swizzled
// [roundup(N, 128), roundup(K/16, 4)] are the same shape (G13).
void nvfp4_layer(Checkpoint& c, const std::string& p) {
  c.add(p + ".weight", Dtype::U8, {128, 32}, pattern(128 * 32, 5));
  c.add(p + ".weight_scale", Dtype::F8_E4M3, {128, 4}, e4m3_scales(128 * 4));
  c.add(p + ".weight_scale_2", Dtype::F32, {}, f32_list({0.0025f}));
}

// L12 with N = 16: the swizzled scale is padded to [128, 4] with zeros, which
// kitchen expects and sglang's (N, K/16) check refuses. Row r < 32, column c
// < 4 of the logical scales sits at byte r * 16 + c of the first tile (L3).
void nvfp4_small_layer(Checkpoint& c, const std::string& p) {
  c.add(p + ".weight", Dtype::U8, {16, 32}, pattern(16 * 32, 5));
  Bytes scales(128 * 4, 0);
  for (std::uint64_t r = 0; r < 16; ++r)
    for (std::uint64_t col = 0; col < 4; ++col) scales[r * 16 + col] = static_cast<std::uint8_t>(0x30 + (r + col) % 16);
  c.add(p + ".weight_scale", Dtype::F8_E4M3, {128, 4}, std::move(scales));
  c.add(p + ".weight_scale_2", Dtype::F32, {}, f32_list({0.0025f}));
}

// L13 with N = 128, K = 128: the swizzled [128, 4] is sglang's (N, K/32) (G12).
void mxfp8_layer(Checkpoint& c, const std::string& p) {
  c.add(p + ".weight", Dtype::F8_E4M3, {128, 128}, e4m3_codes(128 * 128, 7));
  c.add(p + ".weight_scale", Dtype::U8, {128, 4}, e8m0_scales(128 * 4));
}

// L14: weight [4, 256]; per-row [N, 1] or tensor-wise () F32 scale.
void int8_layer(Checkpoint& c, const std::string& p, bool rowwise) {
  c.add(p + ".weight", Dtype::I8, {4, 256}, int8_codes(4 * 256, 9));
  if (rowwise) c.add(p + ".weight_scale", Dtype::F32, {4, 1}, f32s(4, 0.01f, 0.002f));
  else c.add(p + ".weight_scale", Dtype::F32, {}, f32_list({0.01f}));
}

// L15: weight [4, 64] packs K = 128; one F32 scale per row.
void w4a4_layer(Checkpoint& c, const std::string& p) {
  c.add(p + ".weight", Dtype::I8, {4, 64}, int4_signed(4 * 64, 11));
  c.add(p + ".weight_scale", Dtype::F32, {4}, f32s(4, 0.02f, 0.001f));
}

struct W4a8Options {
  Dtype s_rel = Dtype::F8_E4M3;
  bool codebook = true;
  std::optional<Dtype> correction;
};

// L16 with N = 4, K = 256, G = 16: weight [4, 128], s_rel [4, 16],
// s_channel [4], an ascending codebook [16], correction [K/G, N].
void w4a8_layer(Checkpoint& c, const std::string& p, const W4a8Options& o = {}) {
  c.add(p + ".weight", Dtype::I8, {4, 128}, pattern(4 * 128, 13));
  c.add(p + ".weight_s_rel", o.s_rel, {4, 16}, o.s_rel == Dtype::F32 ? f32s(64, 0.5f, 0.0625f) : e4m3_scales(64));
  c.add(p + ".weight_s_channel", Dtype::F32, {4}, f32s(4, 0.05f, 0.01f));
  if (o.codebook) c.add(p + ".weight_codebook", Dtype::F32, {16}, f32s(16, -7.5f, 1.0f, 16));
  if (o.correction) {
    if (*o.correction == Dtype::F32) c.add(p + ".weight_correction", Dtype::F32, {16, 4}, f32s(64, 0.001f, 0.0005f));
    else c.add(p + ".weight_correction", *o.correction, {16, 4}, half_bits(64, 0x3C00));  // bf16 2^-7
  }
}

// L16 at 6 bits (W6A8) with N = 4, K = 512, G = 16: weight [4, 3K/4 = 384]
// (nibble plane, then the top-bits plane), s_rel [4, 32], s_channel [4].
void w6a8_layer(Checkpoint& c, const std::string& p, bool codebook) {
  c.add(p + ".weight", Dtype::I8, {4, 384}, pattern(4 * 384, 17));
  c.add(p + ".weight_s_rel", Dtype::F8_E4M3, {4, 32}, e4m3_scales(128));
  c.add(p + ".weight_s_channel", Dtype::F32, {4}, f32s(4, 0.05f, 0.01f));
  if (codebook) c.add(p + ".weight_codebook", Dtype::F32, {16}, f32s(16, -7.5f, 1.0f, 16));
}

// L17 with N = 4, K = 128, G = 64: weight [4, 64], scale and zeros [K/G, N].
void awq_layer(Checkpoint& c, const std::string& p) {
  c.add(p + ".weight", Dtype::I8, {4, 64}, pattern(4 * 64, 15));
  c.add(p + ".weight_scale", Dtype::F16, {2, 4}, half_bits(8, 0x2000));  // 2^-7
  c.add(p + ".weight_zeros", Dtype::F16, {2, 4}, half_bits(8, 0x4800));  // 8.0
}

// comfy-quants' AWQ: the zeros named weight_zero (docs/formats/awq_w4a16.md).
void awq_zero_layer(Checkpoint& c, const std::string& p) {
  c.add(p + ".weight", Dtype::I8, {4, 64}, pattern(4 * 64, 15));
  c.add(p + ".weight_scale", Dtype::F16, {2, 4}, half_bits(8, 0x2000));
  c.add(p + ".weight_zero", Dtype::F16, {2, 4}, half_bits(8, 0x4800));
}

// BF16 values base * (1 + j/8), j = (3i mod 8): distinct per position.
Bytes bf16_varied(std::uint64_t n, std::uint16_t base) {
  Bytes out;
  for (std::uint64_t i = 0; i < n; ++i) {
    const auto bits = static_cast<std::uint16_t>(base + (((3 * i) % 8) << 4));
    out.push_back(static_cast<std::uint8_t>(bits & 0xFF));
    out.push_back(static_cast<std::uint8_t>(bits >> 8));
  }
  return out;
}

// L20 with N = 128, K = 64, R = 4, as comfy-quants writes it: natural, or the
// same layer tile-packed. The tiling is written here as comfy-quants'
// pack_weight_tile states it, a view (N/128, 32, 4, K/64, 64) permuted to
// (0, 3, 1, 2, 4); the scale and proj_up move N/128 blocks of 128 rows last.
void svdquant_layer(Checkpoint& c, const std::string& p, bool tiled) {
  constexpr std::uint64_t n = 128, k = 64, rank = 4;
  Bytes codes(n * k / 2);
  for (std::uint64_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<std::uint8_t>(i * 37 + (i >> 5) * 11 + 17);
  const Bytes scale = bf16_varied(n, 0x3C00);  // [K/64 = 1, N]
  const Bytes up = bf16_varied(n * rank, 0x3D00);  // [N, R]
  if (!tiled) {
    c.add(p + ".weight", Dtype::I8, {n, k / 2}, codes);
    c.add(p + ".weight_scale", Dtype::BF16, {1, n}, scale);
    c.add(p + ".proj_up", Dtype::BF16, {n, rank}, up);
  } else {
    Bytes tile(codes.size());
    std::uint64_t at = 0;
    for (std::uint64_t g = 0; g < k / 64; ++g)          // (0, 3, ...): tile block 0 of N, then the K group
      for (std::uint64_t r = 0; r < 32; ++r)            // rows of four
        for (std::uint64_t q = 0; q < 4; ++q)           // interleave 4
          for (std::uint64_t b = 0; b < 32; ++b)        // 64 codes, two a byte
            tile[at++] = codes[(r * 4 + q) * (k / 2) + g * 32 + b];
    Bytes up_tiled(up.size());
    for (std::uint64_t row = 0; row < n; ++row)
      for (std::uint64_t j = 0; j < rank; ++j)
        for (std::uint64_t h = 0; h < 2; ++h) up_tiled[(j * n + row) * 2 + h] = up[(row * rank + j) * 2 + h];
    c.add(p + ".weight", Dtype::I8, {1, 1, 32, 128}, tile);
    c.add(p + ".weight_scale", Dtype::BF16, {1, 1, n}, scale);  // (1, N) transposed and tiled is itself
    c.add(p + ".proj_up", Dtype::BF16, {1, rank, n}, up_tiled);
  }
  c.add(p + ".smooth_factor", Dtype::BF16, {k}, half_bits(k, 0x3F80));  // 1.0
  c.add(p + ".proj_down", Dtype::BF16, {k, rank}, bf16_varied(k * rank, 0x3C80));
}

// A plain layer beside the quantized ones, as in a real model.
void plain(Checkpoint& c) { c.add("model.norm.weight", Dtype::BF16, {64}, half_bits(64, 0x3F80)); }

const std::string kLayer = "model.layers.0.mlp.down_proj";
const std::string kAttn = "model.layers.0.self_attn.o_proj";

constexpr std::array<bool, 4> kAll{true, true, true, true};
constexpr std::array<bool, 4> kNotSglang{true, false, true, true};
constexpr std::array<bool, 4> kNotSglangComfy{true, false, false, true};

QuantExample example(std::string name, const Checkpoint& c, std::vector<std::string> rules,
                     std::array<bool, 4> loads) {
  std::sort(rules.begin(), rules.end());
  return QuantExample{std::move(name), c.build(), std::move(rules), loads};
}

template <class Layer>
Checkpoint one_layer(Layer layer, std::string_view marker) {
  Checkpoint c;
  plain(c);
  layer(c, kLayer);
  c.marker(kLayer, marker);
  return c;
}

}  // namespace

std::vector<QuantExample> quant_examples() {
  std::vector<QuantExample> out;
  auto fp8 = [](Checkpoint& c, const std::string& p) { fp8_layer(c, p); };
  auto e5m2 = [](Checkpoint& c, const std::string& p) { fp8_layer(c, p, true); };
  auto int8_rows = [](Checkpoint& c, const std::string& p) { int8_layer(c, p, true); };
  auto int8_scalar = [](Checkpoint& c, const std::string& p) { int8_layer(c, p, false); };
  auto w4a8 = [](Checkpoint& c, const std::string& p) { w4a8_layer(c, p); };

  // Valid for every consumer that supports the format.
  out.push_back(example("fp8_e4m3fn_valid.safetensors", one_layer(fp8, kFp8), {}, kAll));
  // sglang has no float8_e5m2 (G11) nor awq_w4a16 (G18): only resolution refuses them.
  out.push_back(example("fp8_e5m2_valid.safetensors", one_layer(e5m2, kFp8E5m2), {"CQ-SGLANG-FORMATS"}, kNotSglang));
  out.push_back(example("nvfp4_valid.safetensors", one_layer(nvfp4_layer, kNvfp4), {}, kAll));
  out.push_back(example("mxfp8_valid.safetensors", one_layer(mxfp8_layer, kMxfp8), {}, kAll));
  out.push_back(example("int8_convrot_valid.safetensors", one_layer(int8_rows, kInt8Convrot), {}, kAll));
  out.push_back(example("w4a4_valid.safetensors", one_layer(w4a4_layer, kW4a4), {}, kAll));
  out.push_back(example("w4a8_valid.safetensors", one_layer(w4a8, kW4a8), {}, kAll));
  out.push_back(example("awq_w4a16_valid.safetensors", one_layer(awq_layer, kAwq), {"CQ-SGLANG-FORMATS"}, kNotSglang));
  // Formats only their producer defines: valid by its contract, refused by
  // name by ComfyUI and sglang (L20, CQ-FORMAT-UNKNOWN).
  auto svd_natural = [](Checkpoint& c, const std::string& p) { svdquant_layer(c, p, false); };
  auto svd_tiled = [](Checkpoint& c, const std::string& p) { svdquant_layer(c, p, true); };
  out.push_back(example("svdquant_w4a4_natural.safetensors", one_layer(svd_natural, kSvdNatural),
                        {"CQ-FORMAT-UNKNOWN", "CQ-SGLANG-FORMATS"}, kNotSglangComfy));
  out.push_back(example("svdquant_w4a4_tilepack.safetensors", one_layer(svd_tiled, kSvdTiled),
                        {"CQ-FORMAT-UNKNOWN", "CQ-SGLANG-FORMATS"}, kNotSglangComfy));
  // comfy-quants' AWQ spelling: ComfyUI pops weight_zeros and finds none.
  out.push_back(example("awq_w4a16_weight_zero.safetensors", one_layer(awq_zero_layer, kAwq),
                        {"CQ-AWQ-ZERO-SPELLING", "CQ-SGLANG-FORMATS"}, kNotSglangComfy));
  {
    // The markers in __metadata__ instead of tensors (M5), as the MiniMax-H3
    // sglang test writes them (§3.12).
    Checkpoint c;
    plain(c);
    w4a8_layer(c, kLayer);
    w4a8_layer(c, kAttn);
    c.meta("_quantization_metadata", R"({"format_version": "1.0", "layers": {")" + kLayer + R"(": )" +
                                         std::string(kW4a8) + R"(, ")" + kAttn + R"(": )" + std::string(kW4a8) + "}}");
    out.push_back(example("w4a8_metadata_valid.safetensors", c, {}, kAll));
  }
  {
    // W4A8 beside a non-ConvRot int8 embedding: the one mix KitchenW4A8Config
    // takes (S12.3). Its first version took none, and the version of PR
    // #36037 only tensor-wise ones: a warning names them.
    Checkpoint c = one_layer(w4a8, kW4a8);
    int8_layer(c, "model.embed_tokens", false);
    c.marker("model.embed_tokens", kInt8Plain);
    out.push_back(example("w4a8_int8_embedding_valid.safetensors", c, {"CQ-SGLANG-COMPANION"}, kAll));
  }

  // Broken, each named after what breaks.
  out.push_back(example("w4a8_comfyui_no_convrot.safetensors", one_layer(w4a8, kW4a8Comfy), {"CQ-W4A8-CONVROT"},
                        kNotSglang));  // G1, S12.3
  out.push_back(example("w4a8_u8_group_scales.safetensors",
                        one_layer([](Checkpoint& c, const std::string& p) { w4a8_layer(c, p, {Dtype::U8, true, std::nullopt}); }, kW4a8),
                        {"CQ-W4A8-DTYPES"}, kNotSglang));  // G2, S9.3 A2
  out.push_back(example("w4a8_bf16_correction.safetensors",
                        one_layer([](Checkpoint& c,
                                     const std::string& p) { w4a8_layer(c, p, {Dtype::F8_E4M3, true, Dtype::BF16}); },
                                  kW4a8),
                        {"CQ-W4A8-CORRECTION", "CQ-W4A8-CORRECTION-IGNORED"}, kNotSglang));  // G3, S9.3 A8
  out.push_back(example("w4a8_convrot_groupsize_64.safetensors",
                        one_layer(w4a8, R"({"format": "asym_w4a8_int8", "group_size": 16, "convrot_groupsize": 64, )"
                                        R"("convrot": true})"),
                        {"CQ-W4A8-CUDA-GROUPSIZE"}, {true, true, true, false}));  // G5, K7 (at the first CUDA forward)
  // W6A8: only comfy-kitchen 2a6f4ef reads 6-bit storage; sglang, ComfyUI
  // and the pinned kitchen read K = 2 * 384 = 768 and refuse the scale grid.
  out.push_back(example("w6a8_valid_for_kitchen_2a6f4ef.safetensors",
                        one_layer([](Checkpoint& c, const std::string& p) { w6a8_layer(c, p, false); }, kW4a8),
                        {"CQ-W4A8-SHAPES"}, {true, false, false, false}));
  out.push_back(example("w6a8_codebook.safetensors",
                        one_layer([](Checkpoint& c, const std::string& p) { w6a8_layer(c, p, true); }, kW4a8),
                        {"CQ-W4A8-SHAPES", "CQ-W6A8-CODEBOOK"}, {true, false, false, false}));
  out.push_back(example("nvfp4_no_full_precision.safetensors", one_layer(nvfp4_layer, R"({"format": "nvfp4"})"),
                        {"CQ-NVFP4-FULL-PRECISION"}, kNotSglang));  // G13, S19
  out.push_back(example("nvfp4_small_padded_scales.safetensors", one_layer(nvfp4_small_layer, kNvfp4),
                        {"CQ-NVFP4-SHAPES"}, kNotSglang));  // G13, S9.5.4
  out.push_back(example("int8_no_convrot.safetensors", one_layer(int8_scalar, kInt8Plain),
                        {"CQ-INT8-CONVROT", "CQ-INT8-CONVROT-GROUPSIZE"}, kNotSglang));  // G16, S17
  {
    Checkpoint c;
    plain(c);
    fp8_layer(c, kLayer);
    out.push_back(example("fp8_unmarked.safetensors", c, {"CQ-MARKER-MISSING"}, kNotSglang));  // S8, G10
  }
  {
    Checkpoint c = one_layer(w4a8, kW4a8);
    fp8_layer(c, kAttn);
    c.marker(kAttn, kFp8);
    out.push_back(example("mixed_w4a8_fp8.safetensors", c, {"CQ-SGLANG-FORMATS"}, kNotSglang));  // S11, G25
  }
  out.push_back(example("marker_not_json.safetensors", one_layer(fp8, R"({"format": float8_e4m3fn})"),
                        {"CQ-MARKER-JSON", "CQ-MARKER-MISSING"}, {true, false, false, true}));  // M3, S6.1, C7
  {
    Checkpoint c;
    plain(c);
    fp8_layer(c, kLayer, false, std::numeric_limits<float>::quiet_NaN());
    c.marker(kLayer, kFp8);
    out.push_back(example("fp8_nan_scale.safetensors", c, {"CQ-DATA-SCALE"}, kAll));  // --data: loads, computes NaN
  }
  return out;
}

std::vector<NamedFile> checkpoint_seeds() {
  std::vector<NamedFile> out;
  for (QuantExample& e : quant_examples()) {
    std::string name = e.name.substr(0, e.name.size() - std::string_view(".safetensors").size());
    out.emplace_back("example_" + name, std::move(e.bytes));
  }
  auto add = [&](std::string name, const Checkpoint& c) { out.emplace_back(std::move(name), c.build()); };
  auto with = [](auto layer, std::string_view marker) { return one_layer(layer, marker); };
  auto w4a8 = [](Checkpoint& c, const std::string& p) { w4a8_layer(c, p); };
  auto fp8 = [](Checkpoint& c, const std::string& p) { fp8_layer(c, p); };
  auto int8_scalar = [](Checkpoint& c, const std::string& p) { int8_layer(c, p, false); };

  add("int8_tensorwise_scalar_convrot", with(int8_scalar, kInt8Convrot));
  add("int8_rowwise_plain", with([](Checkpoint& c, const std::string& p) { int8_layer(c, p, true); }, kInt8Plain));
  add("w4a8_correction_f32", with([](Checkpoint& c, const std::string& p) {
        w4a8_layer(c, p, {Dtype::F8_E4M3, true, Dtype::F32});
      }, kW4a8));
  add("w4a8_no_codebook", with([](Checkpoint& c, const std::string& p) { w4a8_layer(c, p, {Dtype::F8_E4M3, false, std::nullopt}); },
                               kW4a8));
  add("w4a8_f32_group_scales", with([](Checkpoint& c, const std::string& p) { w4a8_layer(c, p, {Dtype::F32, true, std::nullopt}); }, kW4a8));
  add("w4a8_params_nested",
      with(w4a8, R"({"format": "asym_w4a8_int8", "convrot": true, "params": {"group_size": 32, "convrot_groupsize": 64}})"));
  add("w4a8_group_size_string", with(w4a8, R"({"format": "asym_w4a8_int8", "group_size": "16", "convrot": true})"));
  add("w4a8_group_size_null", with(w4a8, R"({"format": "asym_w4a8_int8", "group_size": null, "convrot": true})"));
  add("w4a8_group_size_huge",
      with(w4a8, R"({"format": "asym_w4a8_int8", "group_size": 1180591620717411303424, "convrot": true})"));
  add("w4a8_convrot_one", with(w4a8, R"({"format": "asym_w4a8_int8", "convrot": 1})"));
  add("w4a4_linear_dtype_fp8", with(w4a4_layer, R"({"format": "convrot_w4a4", "linear_dtype": "fp8"})"));
  add("w4a4_groupsize_32", with(w4a4_layer, R"({"format": "convrot_w4a4", "convrot_groupsize": 32})"));
  add("format_missing", with(w4a8, R"({"group_size": 16, "convrot": true})"));
  add("format_unknown", with(int8_scalar, R"({"format": "int8_blockwise"})"));
  add("format_list", with(fp8, R"({"format": ["float8_e4m3fn"]})"));
  add("marker_not_object", with(fp8, R"(["float8_e4m3fn"])"));
  add("marker_empty", with(fp8, ""));
  add("marker_nul_padded", with(fp8, std::string(kFp8) + std::string(4, '\0')));
  add("marker_bom", with(fp8, "\xef\xbb\xbf" + std::string(kFp8)));
  add("marker_lone_surrogate", with(fp8, R"({"format": "float8_e4m3fn", "note": "\ud800"})"));
  add("marker_nan", with(fp8, R"({"format": "float8_e4m3fn", "full_precision_matrix_mult": NaN})"));
  {
    // A UTF-16-LE marker in a U16 tensor: json.loads detects the encoding (M3).
    Checkpoint c;
    fp8_layer(c, kLayer);
    Bytes utf16;
    for (char ch : kFp8) utf16.insert(utf16.end(), {static_cast<std::uint8_t>(ch), 0});
    c.add(kLayer + ".comfy_quant", Dtype::U16, {kFp8.size()}, std::move(utf16));
    add("marker_utf16_u16", c);
  }
  {
    // A marker stored as BF16: numpy has no bfloat16, so sglang's read of it
    // raises TypeError, and a warning rule's finding is an error (M2).
    Checkpoint c;
    fp8_layer(c, kLayer);
    Bytes text(kFp8.begin(), kFp8.end());
    if (text.size() % 2) text.push_back(' ');
    const std::uint64_t halves = text.size() / 2;
    c.add(kLayer + ".comfy_quant", Dtype::BF16, {halves}, std::move(text));
    add("marker_bf16", c);
  }
  {
    // Metadata and tensor declare the same layer differently (G9).
    Checkpoint c = with(w4a8, kW4a8);
    c.meta("_quantization_metadata", R"({"format_version": "1.0", "layers": {")" + kLayer +
                                         R"(": {"format": "asym_w4a8_int8", "group_size": 32, "convrot": true}}})");
    add("metadata_tensor_conflict", c);
  }
  {
    Checkpoint c = with(w4a8, kW4a8);
    c.meta("_quantization_metadata", R"({"format_version": "1.0", "layers": {")" + kLayer + R"(": )" +
                                         std::string(kW4a8) + "}}");
    add("metadata_tensor_equal", c);
  }
  for (const auto& [name, qmeta] : std::initializer_list<std::pair<const char*, std::string>>{
           {"qmeta_not_json", "{layers"},
           {"qmeta_empty", ""},
           {"qmeta_not_object", "[]"},
           {"qmeta_no_layers", R"({"format_version": "1.0"})"},
           {"qmeta_layers_list", R"({"layers": []})"},
           {"qmeta_layer_not_object", R"({"layers": {")" + kLayer + R"(": "nvfp4"}})"},
       }) {
    Checkpoint c;
    fp8_layer(c, kLayer);
    c.meta("_quantization_metadata", qmeta);
    add(name, c);
  }
  {
    // ComfyUI's legacy scaled fp8 (M8): sglang sees unmarked fp8 (G22).
    Checkpoint c;
    c.add(kLayer + ".weight", Dtype::F8_E4M3, {4, 64}, e4m3_codes(256, 3));
    c.add(kLayer + ".scale_weight", Dtype::F32, {}, f32_list({0.0125f}));
    c.add("scaled_fp8", Dtype::F8_E4M3, {2}, {0, 0});
    add("legacy_scaled_fp8", c);
  }
  {
    // The global quant_format mxfp8 case (S7): layers without markers.
    Checkpoint c;
    mxfp8_layer(c, kLayer);
    c.meta("quant_format", "MXFP8");
    add("quant_format_mxfp8", c);
  }
  {
    Checkpoint c;
    plain(c);
    c.marker("model.layers.9.ghost", kFp8);
    add("marker_orphan", c);
  }
  return out;
}

}  // namespace safespec::tools
