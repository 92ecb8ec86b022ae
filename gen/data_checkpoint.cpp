#include "gen/data_checkpoint.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "src/io/writer.hpp"

namespace safespec::gen {

namespace {

// Every tensor's bytes repeat a 64 KiB template (a multiple of every
// element width), which makes a gigabyte cheap to produce.
constexpr std::size_t kPeriod = std::size_t{1} << 16;
using Template = std::array<std::uint8_t, kPeriod>;

enum class Fill : unsigned char { Int8, Nibbles, AnyByte, E4m3Scale, E8m0, F32Scale, Codebook, Marker };

Template make(Fill f) {
  Template t{};
  for (std::size_t j = 0; j < kPeriod; ++j) {
    std::uint8_t b = 0;
    switch (f) {
      case Fill::Int8:  // -127..127: never 0x80 (CQ-DATA-INT8-RANGE)
        b = static_cast<std::uint8_t>(j * 37 + 11);
        if (b == 0x80) b = 0x81;
        break;
      case Fill::Nibbles: {  // int4 codes, never -8 (CQ-DATA-W4A4-RANGE)
        std::uint8_t lo = static_cast<std::uint8_t>((j * 7 + 3) % 16);
        std::uint8_t hi = static_cast<std::uint8_t>((j * 5 + 1) % 16);
        if (lo == 8) lo = 9;
        if (hi == 8) hi = 7;
        b = static_cast<std::uint8_t>(lo | (hi << 4));
        break;
      }
      case Fill::AnyByte: b = static_cast<std::uint8_t>(j * 131 + 7); break;
      case Fill::E4m3Scale: b = static_cast<std::uint8_t>(0x30 + j % 16); break;  // 0.5 .. 1.875
      case Fill::E8m0: b = static_cast<std::uint8_t>(0x7C + j % 4); break;        // 2^-3 .. 2^0
      case Fill::F32Scale: b = static_cast<std::uint8_t>(std::bit_cast<std::uint32_t>(0.01f) >> (8 * (j % 4))); break;
      case Fill::Codebook:  // -7.5, -6.5, ..., 7.5: ascending
        b = j < 64 ? static_cast<std::uint8_t>(std::bit_cast<std::uint32_t>(-7.5f + static_cast<float>(j / 4)) >> (8 * (j % 4)))
                   : 0;
        break;
      case Fill::Marker: break;
    }
    t[j] = b;
  }
  return t;
}

struct Tensor {
  std::string name;
  Dtype dtype;
  std::vector<std::uint64_t> shape;
  std::uint64_t size = 0;
  Fill fill = Fill::AnyByte;
  std::string text;                                          // a marker's bytes
  std::vector<std::pair<std::uint64_t, std::uint8_t>> bad;  // offset -> byte
};

struct Builder {
  std::vector<Tensor> tensors;
  void add(std::string name, Dtype d, std::vector<std::uint64_t> shape, std::uint64_t width, Fill f) {
    std::uint64_t size = width;
    for (std::uint64_t s : shape) size *= s;
    tensors.push_back(Tensor{std::move(name), d, std::move(shape), size, f, {}, {}});
  }
  // A bad value three quarters in, on an element boundary of `width`.
  void bad(std::uint8_t byte, std::uint64_t width = 1) {
    Tensor& t = tensors.back();
    const std::uint64_t at = t.size / width * 3 / 4 * width;
    for (std::uint64_t i = 0; i < width; ++i) t.bad.emplace_back(at + i, i + 1 == width ? byte : 0);
  }
  void marker(const std::string& prefix, std::string text) {
    tensors.push_back(Tensor{prefix + ".comfy_quant", Dtype::U8, {text.size()}, text.size(), Fill::Marker, text, {}});
  }
};

void layer(Builder& b, std::uint64_t i, const DataCheckpoint& s) {
  const std::string p = "model.layers." + std::to_string(i) + ".proj";
  const bool bad = s.bad_every != 0 && i % s.bad_every == s.bad_every - 1;
  const std::uint64_t n = s.n, k = s.k;
  switch (i % 8) {
    case 0:
    case 2:
    case 5:
      b.add(p + ".weight", Dtype::I8, {n, k}, 1, Fill::Int8);
      if (bad) b.bad(0x80);  // -128: CQ-DATA-INT8-RANGE
      b.add(p + ".weight_scale", Dtype::F32, {}, 4, Fill::F32Scale);
      b.marker(p, R"({"format": "int8_tensorwise"})");
      break;
    case 1:
      b.add(p + ".weight", Dtype::I8, {n, k / 2}, 1, Fill::AnyByte);
      b.add(p + ".weight_s_rel", Dtype::F8_E4M3, {n, k / 16}, 1, Fill::E4m3Scale);
      if (bad) b.bad(0x00);  // zero: CQ-DATA-S-REL
      b.add(p + ".weight_s_channel", Dtype::F32, {n}, 4, Fill::F32Scale);
      b.add(p + ".weight_codebook", Dtype::F32, {16}, 4, Fill::Codebook);
      b.marker(p, R"({"format": "asym_w4a8_int8", "group_size": 16, "convrot_groupsize": 256, "convrot": true})");
      break;
    case 3:
      b.add(p + ".weight", Dtype::I8, {n, k / 2}, 1, Fill::Nibbles);
      if (bad) b.bad(0x38);  // low nibble 8, -8: CQ-DATA-W4A4-RANGE
      b.add(p + ".weight_scale", Dtype::F32, {n}, 4, Fill::F32Scale);
      b.marker(p, R"({"format": "convrot_w4a4", "convrot_groupsize": 64, "linear_dtype": "int4"})");
      break;
    case 4:
      b.add(p + ".weight", Dtype::U8, {n, k / 2}, 1, Fill::AnyByte);
      b.add(p + ".weight_scale", Dtype::F8_E4M3, {n, k / 16}, 1, Fill::E4m3Scale);
      if (bad) b.bad(0x7F);  // NaN: CQ-DATA-SCALE
      b.add(p + ".weight_scale_2", Dtype::F32, {}, 4, Fill::F32Scale);
      b.marker(p, R"({"format": "nvfp4", "full_precision_matrix_mult": true})");
      break;
    case 6:
      b.add(p + ".weight", Dtype::F8_E4M3, {n, k}, 1, Fill::E4m3Scale);
      b.add(p + ".weight_scale", Dtype::U8, {n, k / 32}, 1, Fill::E8m0);
      if (bad) b.bad(0xFF);  // CQ-DATA-E8M0
      b.marker(p, R"({"format": "mxfp8"})");
      break;
    default:
      b.add(p + ".weight", Dtype::F8_E4M3, {n, k}, 1, Fill::E4m3Scale);
      b.add(p + ".weight_scale", Dtype::F32, {}, 4, Fill::F32Scale);
      if (bad) b.bad(0x00, 4);  // 0.0: CQ-DATA-SCALE
      b.marker(p, R"({"format": "float8_e4m3fn"})");
      break;
  }
}

}  // namespace

Result<std::uint64_t, IoError> write_data_checkpoint(const std::string& path, const DataCheckpoint& s) {
  Builder b;
  for (std::uint64_t i = 0; i < s.layers; ++i) layer(b, i, s);
  // The writer lays tensors out in W1 order; the bytes must come in it too.
  std::sort(b.tensors.begin(), b.tensors.end(),
            [](const Tensor& x, const Tensor& y) { return canonical_less(x.dtype, x.name, y.dtype, y.name); });
  std::vector<TensorView> views;
  for (const Tensor& t : b.tensors) views.push_back(TensorView{t.name, t.dtype, t.shape, {}});
  auto prefix = serialize_prefix(std::move(views), std::nullopt);
  if (!prefix) return IoError{"cannot serialize: " + prefix.error().message};

  std::array<Template, 8> templates;
  for (std::size_t f = 0; f < templates.size(); ++f) templates[f] = make(static_cast<Fill>(f));
  std::vector<std::uint8_t> buffer(std::size_t{4} << 20);
  std::size_t tensor = 0;
  std::uint64_t offset = 0;
  bool prefix_done = false;
  std::uint64_t total = prefix.value().size();
  for (const Tensor& t : b.tensors) total += t.size;
  const PieceSource next = [&]() -> std::span<const std::uint8_t> {
    if (!prefix_done) {
      prefix_done = true;
      return prefix.value();
    }
    while (tensor < b.tensors.size() && offset == b.tensors[tensor].size) {
      ++tensor;
      offset = 0;
    }
    if (tensor == b.tensors.size()) return {};
    const Tensor& t = b.tensors[tensor];
    if (t.fill == Fill::Marker) {
      offset = t.size;
      return std::span(reinterpret_cast<const std::uint8_t*>(t.text.data()), t.text.size());
    }
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), t.size - offset));
    const Template& tm = templates[static_cast<std::size_t>(t.fill)];
    for (std::size_t done = 0; done < n;) {
      const std::size_t at = static_cast<std::size_t>((offset + done) % kPeriod);
      const std::size_t run = std::min(n - done, kPeriod - at);
      std::memcpy(buffer.data() + done, tm.data() + at, run);
      done += run;
    }
    for (const auto& [at, byte] : t.bad)
      if (at >= offset && at < offset + n) buffer[static_cast<std::size_t>(at - offset)] = byte;
    offset += n;
    return std::span<const std::uint8_t>(buffer.data(), n);
  };
  if (auto w = write_file(path, next); !w) return w.error();
  return total;
}

}  // namespace safespec::gen
