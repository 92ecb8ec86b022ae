// Each packing's formulas, one switch per question: a new WeightPacking value
// is a -Wswitch warning here until its formulas are written.
#include "spec/quant/logical_size.hpp"

#include <string_view>

#include "spec/checked_math.hpp"
#include "spec/format_rules.hpp"
#include "spec/quant/layer.hpp"
#include "spec/quant/tensor_table.hpp"

namespace safespec::quant {

namespace {

// TilePacked4 stores int4 codes in [32, 128] byte tiles, each 128 rows by 64
// K values (32 * 128 bytes = 128 * 64 codes / 2).
constexpr std::uint64_t kTileRows = 128, kTileK = 64, kTileDim2 = 32, kTileDim3 = 128;
// Bits6: 3 bytes hold 4 codes.
constexpr std::uint64_t kBits6Bytes = 3, kBits6Codes = 4;

bool tile_packed(std::span<const std::uint64_t> shape) {
  return shape.size() == 4 && shape[2] == kTileDim2 && shape[3] == kTileDim3;
}

bool k_rank_fits(WeightPacking p, std::span<const std::uint64_t> shape) {
  return p == WeightPacking::TilePacked4 ? tile_packed(shape) : shape.size() >= 2;
}

// a * m in decimal, exact past 2^64: long multiplication of the digits.
std::string decimal_times(std::uint64_t a, std::uint64_t m) {
  if (auto v = checked_mul(a, m)) return std::to_string(*v);
  const std::string digits = std::to_string(a);
  std::string reversed;
  std::uint64_t carry = 0;
  for (std::size_t i = digits.size(); i-- > 0;) {
    const std::uint64_t x = static_cast<std::uint64_t>(digits[i] - '0') * m + carry;
    reversed.push_back(static_cast<char>('0' + x % 10));
    carry = x / 10;
  }
  for (; carry; carry /= 10) reversed.push_back(static_cast<char>('0' + carry % 10));
  return {reversed.rbegin(), reversed.rend()};
}

// K = stored * mul, the stored dimension and the factor of each packing;
// nullopt when the rank does not fit or the bytes are not whole codes.
struct KFactor {
  std::uint64_t stored;
  std::uint64_t mul;
};

std::optional<KFactor> k_factor(WeightPacking p, std::span<const std::uint64_t> shape) {
  if (!k_rank_fits(p, shape)) return std::nullopt;
  switch (p) {
    case WeightPacking::Plain: return KFactor{shape.back(), 1};
    case WeightPacking::Nibbles: return KFactor{shape.back(), 2};
    case WeightPacking::Bits6:
      if (shape.back() % kBits6Bytes != 0) return std::nullopt;
      return KFactor{shape.back() / kBits6Bytes, kBits6Codes};
    case WeightPacking::TilePacked4: return KFactor{shape[1], kTileK};
  }
  return std::nullopt;
}

}  // namespace

std::string_view packing_name(WeightPacking p) {
  switch (p) {
    case WeightPacking::Plain: return "plain";
    case WeightPacking::Nibbles: return "nibbles";
    case WeightPacking::Bits6: return "bits6";
    case WeightPacking::TilePacked4: return "tile_packed4";
  }
  return "?";
}

std::optional<std::uint64_t> logical_k(WeightPacking p, std::span<const std::uint64_t> shape) {
  const auto f = k_factor(p, shape);
  return f ? checked_mul(f->stored, f->mul) : std::nullopt;
}

std::string logical_k_text(WeightPacking p, std::span<const std::uint64_t> shape) {
  const auto f = k_factor(p, shape);
  return f ? decimal_times(f->stored, f->mul) : std::string();
}

Result<LogicalShape, std::string> logical_shape(WeightPacking p, std::span<const std::uint64_t> shape) {
  std::optional<std::uint64_t> n;
  if (p == WeightPacking::TilePacked4) {
    if (!tile_packed(shape)) return std::string("weight is not [N/128, K/64, 32, 128]");
    n = checked_mul(shape[0], kTileRows);
  } else {
    if (shape.size() != 2) return "weight is " + std::to_string(shape.size()) + "-D, not 2-D";
    n = shape[0];
  }
  if (p == WeightPacking::Bits6 && shape.back() % kBits6Bytes != 0)
    return "weight's last dimension " + std::to_string(shape.back()) + " is not a whole number of 6-bit codes";
  const auto k = logical_k(p, shape);
  if (!n) return std::string("N passes 2^64");
  if (!k) return std::string("K passes 2^64");
  return LogicalShape{*n, *k};
}

LayerSize layer_size(const Layer& l, const TensorTable& t, const FormatSpec& f) {
  LayerSize out;
  if (const TensorRef* w = t.find(tensor_name(l, "weight"))) {
    out.stored_weight = shape_product(w->entry->shape).count;
    out.shape = logical_shape(layer_packing(f, l, t), w->entry->shape);
    if (out.shape) out.parameters = checked_mul(out.shape.value().n, out.shape.value().k);
  }
  std::optional<std::uint64_t> bytes = 0;
  const auto add = [&](std::string_view suffix) {
    const TensorRef* r = t.find(tensor_name(l, suffix));
    if (!r) return;
    const auto b = tensor_byte_size(r->entry->shape, r->entry->dtype);
    bytes = bytes && b ? checked_add(*bytes, *b) : std::nullopt;
  };
  bool has_bias = false;
  for (const FormatTensor& ft : f.tensors) {
    add(ft.suffix);
    has_bias = has_bias || ft.suffix == "bias";
  }
  if (!has_bias) add("bias");
  add(kMarkerSuffix.substr(1));  // "comfy_quant"
  out.stored_bytes = bytes;
  return out;
}

}  // namespace safespec::quant
