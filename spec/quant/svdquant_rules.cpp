// The svdquant_w4a4 layer rules (docs/spec/quant-layers.md L20).
//
// The one written contract for this marker is comfy-quants'
// docs/formats/svdquant_w4a4_kitchen_tilepack.md (@ 55f0a26), with its
// exporter src/comfy_quants/formats/kitchen_tilepack.py: a natural layout
// and, under "layout": "kitchen_tile_packed_w4a4", a tile-packed one. No
// consumer safespec models loads it: ComfyUI (CU, CL) does not register the
// format (CQ-FORMAT-UNKNOWN) and sglang refuses it at resolution
// (CQ-SGLANG-FORMATS), so these rules carry no verdicts; they say whether the
// file is what its producer and comfy-kitchen's layout define.
//
// comfy-kitchen's TensorCoreSVDQuantW4A4Layout serializes the side tensors as
// weight_smooth_factor, weight_proj_down and weight_proj_up (CK
// tensor/svdquant_w4a4.py state_dict_tensors); comfy-quants writes them
// without the weight_ prefix. The producer's names are the contract here, and
// a missing tensor whose kitchen spelling is present is named as such.
#include <optional>
#include <string>
#include <vector>

#include "spec/checked_math.hpp"
#include "spec/quant/layer.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quant/render.hpp"
#include "spec/quote.hpp"

namespace safespec::quant {
namespace {

constexpr std::uint64_t kSvdGroup = 64, kSvdTileN = 128;
constexpr std::string_view kTileLayout = "kitchen_tile_packed_w4a4";

enum class SvdLayout { Natural, TilePacked, Unknown };

SvdLayout svd_layout(const Layer& l) {
  const py::Value* v = get(*l.marker, "layout");
  if (!v) return SvdLayout::Natural;
  const auto* s = std::get_if<std::string>(&v->data);
  return s && *s == kTileLayout ? SvdLayout::TilePacked : SvdLayout::Unknown;
}

bool svd_float(Dtype d) { return d == Dtype::F32 || d == Dtype::F16 || d == Dtype::BF16; }

void svd_tensors_rule(const LayerCheck& c) {
  const std::vector<std::string> missing = missing_tensors(c);
  if (missing.empty()) return;
  std::string kitchen;
  for (std::string_view side : {"smooth_factor", "proj_down", "proj_up"}) {
    const std::string spelled = "weight_" + std::string(side);
    if (!c.tensor(side) && c.tensor(spelled)) kitchen += (kitchen.empty() ? "" : ", ") + quote_name(tensor_name(c.l, spelled));
  }
  check_required_tensors(c, missing, {}, kitchen.empty() ? "" : "; found comfy-kitchen's spelling " + kitchen);
}

void svd_layout_rule(const LayerCheck& c) {
  if (svd_layout(c.l) != SvdLayout::Unknown) return;
  c.add(RuleId::QuantSvdquantLayout,
        "expected no \"layout\" (the natural layout) or \"layout\": '" + std::string(kTileLayout) + "', found " +
            py::repr(*get(*c.l.marker, "layout")),
        {});
}

// Collects what breaks the layout's shapes and dtypes.
struct SvdProblems {
  std::vector<std::string> items;
  void add(std::string s) { items.push_back(std::move(s)); }
  void want_shape(const TensorRef* t, std::string_view name, const std::vector<std::uint64_t>& shape) {
    if (t && t->entry->shape != shape) add(std::string(name) + " shape " + shape_str(*t) + " is not " + shape_repr(shape));
  }
  void want_float(const TensorRef* t, std::string_view name, bool f32_allowed = true) {
    if (!t) return;
    const Dtype d = t->entry->dtype;
    if (!svd_float(d) || (!f32_allowed && d == Dtype::F32))
      add(std::string(name) + " is " + dtype_str(*t) + ", not " + (f32_allowed ? "F16, BF16 or F32" : "F16 or BF16"));
  }
};

// The logical N, K of the weight, or why there are none.
struct SvdDims {
  std::uint64_t n = 0, k = 0;
  std::uint64_t groups = 0;
};

std::optional<SvdDims> natural_dims(const TensorRef& w, SvdProblems& p) {
  const auto& s = w.entry->shape;
  if (s.size() != 2) {
    p.add("weight shape " + shape_str(w) + " is not 2-D [N, K/2]");
    return std::nullopt;
  }
  const auto k = times2(s[1]);
  if (!k) {
    p.add("K = " + times2_str(s[1]) + " exceeds any tensor dimension");
    return std::nullopt;
  }
  if (*k % kSvdGroup != 0) {
    p.add("K=" + std::to_string(*k) + " is not a multiple of the group size 64");
    return std::nullopt;
  }
  return SvdDims{s[0], *k, *k / kSvdGroup};
}

std::optional<SvdDims> tiled_dims(const TensorRef& w, SvdProblems& p) {
  const auto& s = w.entry->shape;
  if (s.size() != 4 || s[2] != kSvdTileN / 4 || s[3] != 4 * kSvdGroup / 2) {
    p.add("weight shape " + shape_str(w) + " is not the tile-packed (N/128, K/64, 32, 128)");
    return std::nullopt;
  }
  const auto n = checked_mul(s[0], kSvdTileN);
  const auto k = checked_mul(s[1], kSvdGroup);
  if (!n || !k) {
    p.add("N = 128 * " + std::to_string(s[0]) + " or K = 64 * " + std::to_string(s[1]) + " exceeds 64 bits");
    return std::nullopt;
  }
  return SvdDims{*n, *k, s[1]};
}

void svd_shapes_rule(const LayerCheck& c) {
  const SvdLayout layout = svd_layout(c.l);
  const TensorRef* w = c.weight();
  if (!w || layout == SvdLayout::Unknown) return;
  const bool tiled = layout == SvdLayout::TilePacked;
  SvdProblems p;
  if (w->entry->dtype != Dtype::I8) p.add("weight is " + dtype_str(*w) + ", not I8");
  const std::optional<SvdDims> d = tiled ? tiled_dims(*w, p) : natural_dims(*w, p);
  const TensorRef* scale = c.tensor("weight_scale");
  const TensorRef* smooth = c.tensor("smooth_factor");
  const TensorRef* down = c.tensor("proj_down");
  const TensorRef* up = c.tensor("proj_up");
  const TensorRef* bias = c.tensor("bias");
  // The runtime reads tile-packed scales as 16-bit elements: comfy-quants
  // narrows F32 to BF16 before it writes them (normalize_svdquant_weight_scale_dtype).
  p.want_float(scale, "weight_scale", !tiled);
  p.want_float(smooth, "smooth_factor");
  p.want_float(down, "proj_down");
  p.want_float(up, "proj_up");
  p.want_float(bias, "bias");
  if (d) {
    if (tiled)
      p.want_shape(scale, "weight_scale", {d->n / kSvdTileN, d->groups, kSvdTileN});
    else
      p.want_shape(scale, "weight_scale", {d->groups, d->n});
    p.want_shape(smooth, "smooth_factor", {d->k});
    p.want_shape(bias, "bias", {d->n});
    std::optional<std::uint64_t> rank;
    if (down && down->entry->shape.size() == 2 && down->entry->shape[0] == d->k) rank = down->entry->shape[1];
    else if (down) p.add("proj_down shape " + shape_str(*down) + " is not (K, R) with K=" + std::to_string(d->k));
    if (up && rank) {
      if (tiled)
        p.want_shape(up, "proj_up", {d->n / kSvdTileN, *rank, kSvdTileN});
      else
        p.want_shape(up, "proj_up", {d->n, *rank});
    }
  }
  if (p.items.empty()) return;
  std::string msg = std::string("svdquant_w4a4 ") + (tiled ? "tile-packed" : "natural") + " layout (" +
                    (tiled ? "weight I8 (N/128, K/64, 32, 128), weight_scale F16/BF16 (N/128, K/64, 128), smooth_factor "
                             "(K,), proj_down (K, R), proj_up (N/128, R, 128)"
                           : "weight I8 (N, K/2), weight_scale (K/64, N), smooth_factor (K,), proj_down (K, R), "
                             "proj_up (N, R)") +
                    "): ";
  for (std::size_t i = 0; i < p.items.size(); ++i) msg += (i ? "; " : "") + p.items[i];
  c.add(RuleId::QuantSvdquantShapes, std::move(msg), {});
}

// The optional keys of svdquant_w4a4_checkpoint_quant_config.
void svd_keys_rule(const LayerCheck& c) {
  std::vector<std::string> problems;
  for (std::string_view key : {"act_unsigned", "proj_down_smooth_folded"}) {
    const py::Value* v = get(*c.l.marker, key);
    if (v && !std::holds_alternative<bool>(v->data)) problems.push_back(std::string(key) + " " + py::repr(*v) + " is not a boolean");
  }
  if (const py::Value* v = get(*c.l.marker, "lowrank_branch_input_basis")) {
    const auto* s = std::get_if<std::string>(&v->data);
    if (!s || (*s != "raw" && *s != "post_smoothing"))
      problems.push_back("lowrank_branch_input_basis " + py::repr(*v) + " is not 'raw' or 'post_smoothing'");
  }
  if (problems.empty()) return;
  std::string msg = "expected svdquant_w4a4's optional keys with their documented values, found ";
  for (std::size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : "") + problems[i];
  c.add(RuleId::QuantSvdquantKeys, std::move(msg), {});
}

}  // namespace

WeightPacking svdquant_packing(const Layer& l, const TensorTable&) {
  return svd_layout(l) == SvdLayout::TilePacked ? WeightPacking::TilePacked4 : WeightPacking::Nibbles;
}

void check_svdquant_layer(const LayerCheck& c) {
  svd_tensors_rule(c);
  svd_layout_rule(c);
  svd_shapes_rule(c);
  svd_keys_rule(c);
}

}  // namespace safespec::quant
