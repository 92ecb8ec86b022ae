// The awq_w4a16 layer rules (comfy-quant-markers.md L17, C6, C12, C13, G18).
//
// Only ComfyUI at CL knows this format; sglang skips it in phase 3 (S9.0)
// and rejects it at resolution (G18), which is not this module's. Facts
// beyond the reference come from CL comfy/ops.py's awq branch: scale and
// zeros are popped, their absence raises, then group_size is read as
// int(marker.get("group_size", 64)), top level only (unlike the int8, W4A4
// and W4A8 branches there is no legacy params lookup). comfy-kitchen's AWQ
// Params do not validate anything (CKH tensor/awq_w4a16.py), and its runtime
// operand checks are not recorded, so the layout rule has no verdicts.
//
// ComfyUI steps as in int8_rules.cpp: C6 (0), C12 (2), int() (3), C13 cast (4).
#include <optional>
#include <string>
#include <vector>

#include "spec/quant/layer.hpp"
#include "spec/quant/marker_values.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/render.hpp"
#include "spec/quote.hpp"

namespace safespec::quant {
namespace {


constexpr std::uint32_t kCuStepInt = 3, kCuStepCast = 4;

Result<py::Value, py::PyException> group_size(const Layer& l) {
  return int_of(*l.marker, "group_size", marker_defaults(QuantFormat::Awq).group_size);
}

void tensors_rule(const LayerCheck& c) {
  std::vector<Verdict> comfy;
  // A missing weight is ComfyUI's C6 warning, decided once by CQ-MARKER-ORPHAN (analyze.cpp).
  if (c.weight())
    comfy.push_back(verdict(Msg::AwqCuMissingScales, At{c.l.index}, {{"layer_name", comfy_layer_name(c.l.prefix)}}));
  std::vector<std::string> missing = missing_tensors(c);
  // comfy-quants writes the zeros as weight_zero (docs/formats/awq_w4a16.md);
  // ComfyUI pops weight_zeros only, so the file fails there all the same, for
  // a reason of its own: the spelling.
  const bool misspelled = !c.tensor("weight_zeros") && c.tensor("weight_zero");
  if (misspelled && missing.size() == 1) {
    c.add(RuleId::QuantAwqZeroSpelling, Place::tensor(tensor_name(c.l, "weight_zero")),
          "expected the zeros as " + quote_name(tensor_name(c.l, "weight_zeros")) + ", the name ComfyUI reads, found " +
              quote_name(tensor_name(c.l, "weight_zero")) + " (comfy-quants' spelling)",
          std::move(comfy));
    return;
  }
  check_required_tensors(c, missing, std::move(comfy),
                         misspelled ? "; found " + quote_name(tensor_name(c.l, "weight_zero")) + " (comfy-quants' spelling)"
                                    : std::string());
}

// ComfyUI's int(group_size).
void key_int_rule(const LayerCheck& c) {
  const auto g = group_size(c.l);
  check_marker_ints(c, {{"group_size", g, Consumer::Comfyui, order::cu_layer(c.l.index, kCuStepInt)}});
}

bool float_dtype(Dtype d) { return d == Dtype::F32 || d == Dtype::F16 || d == Dtype::BF16 || d == Dtype::F64; }

// (K / G) for K = 2 * packed, when G divides K and the quotient fits.
// 2*packed mod G is 2*(packed mod G) mod G, which cannot overflow for G < 2^63.
struct Groups {
  bool divides = false;
  std::optional<std::uint64_t> count;
};
Groups groups_of(std::uint64_t packed, std::uint64_t g) {
  const std::uint64_t r = packed % g;
  Groups out;
  out.divides = (2 * r) % g == 0;
  if (!out.divides) return out;
  const std::uint64_t q = packed / g;
  if (q > UINT64_MAX / 2) return out;
  out.count = 2 * q + (2 * r) / g;
  return out;
}

// L17: weight I8 [N, K/2]; weight_scale and weight_zeros float [K/G, N]
// with G a positive divisor of K.
void shapes_rule(const LayerCheck& c) {
  if (!c.weight()) return;
  std::vector<std::string> problems;
  const auto& ws = c.weight()->entry->shape;
  if (c.weight()->entry->dtype != Dtype::I8) problems.push_back("weight is " + dtype_str(*c.weight()) + ", not I8");
  if (ws.size() != 2) {
    problems.push_back("weight shape " + shape_str(*c.weight()) + " is not 2-D [N, K/2]");
  } else {
    const std::uint64_t n = ws[0], packed = ws[1];
    const auto g = group_size(c.l);
    const auto gi = g.ok() ? as_int64(g.value()) : std::nullopt;
    std::optional<std::vector<std::uint64_t>> expected;
    if (g.ok() && (!gi || *gi <= 0)) {
      problems.push_back("group_size " + py::repr(g.value()) + " is not a positive 64-bit integer");
    } else if (gi) {
      const Groups gr = groups_of(packed, static_cast<std::uint64_t>(*gi));
      if (!gr.divides)
        problems.push_back("group_size " + std::to_string(*gi) + " does not divide K=" + times2_str(packed));
      else if (gr.count)
        expected = std::vector<std::uint64_t>{*gr.count, n};
      else
        problems.push_back("K/G for K=" + times2_str(packed) + " exceeds any tensor dimension");
    }
    const std::string zeros = c.tensor("weight_zeros") || !c.tensor("weight_zero") ? "weight_zeros" : "weight_zero";
    for (const TensorRef* s : {c.tensor("weight_scale"), c.tensor(zeros)}) {
      if (!s) continue;
      const std::string name = s == c.tensor("weight_scale") ? "weight_scale" : zeros;
      if (!float_dtype(s->entry->dtype)) problems.push_back(name + " is " + dtype_str(*s) + ", not a float");
      if (expected && s->entry->shape != *expected)
        problems.push_back(name + " shape " + shape_str(*s) + " is not " + shape_repr(*expected));
    }
  }
  if (problems.empty()) return;
  std::string msg = "awq_w4a16 layout (weight I8 [N, K/2], weight_scale and weight_zeros [K/G, N]): ";
  for (std::size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : "") + problems[i];
  c.add(RuleId::QuantAwqShapes, std::move(msg), {});
}

// C13: the weight is value-cast to int8; U8 keeps its bits.
void weight_cast_rule(const LayerCheck& c) {
  check_weight_cast(c, {Verdict{Consumer::Comfyui, Effect::MisLoads, "", "", order::cu_layer(c.l.index, kCuStepCast)}});
}

}  // namespace

void check_awq_layer(const LayerCheck& c) {
  tensors_rule(c);
  key_int_rule(c);
  shapes_rule(c);
  weight_cast_rule(c);
}

}  // namespace safespec::quant
