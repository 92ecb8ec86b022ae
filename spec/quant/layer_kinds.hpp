// Which marked layers are Linear and which are embeddings: a fact of the
// model, not of the checkpoint, that sglang's get_quant_method depends on
// (S13.1-S13.3, S19). Where the user has not said, the verdict that depends
// on it is conditional: an Assumption names the layer, the kind under which
// the verdict holds, and what sglang raises otherwise.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/finding.hpp"
#include "spec/quant/layer.hpp"

namespace safespec::quant {

enum class LayerKind { Linear, Embedding };

std::string_view layer_kind_name(LayerKind k);  // "linear", "embedding"
std::optional<LayerKind> parse_layer_kind(std::string_view s);

struct LayerKinds {
  std::map<std::string, LayerKind, std::less<>> named;  // --layer NAME=KIND, --layers FILE
  bool all_linear = false;                               // --all-linear: every marked layer not named is Linear

  std::optional<LayerKind> of(std::string_view prefix) const;
};

// A verdict that holds only if `layer` is of `kind`, or, when `machine` is
// not empty, only on a machine where `machine` holds ("comfy_kitchen is
// installed"); otherwise sglang gives `otherwise` (at its place in sglang's
// order; an empty error: what it does then is not modelled, the message
// says why).
struct Assumption {
  std::string layer;
  LayerKind kind;
  Verdict otherwise;
  std::string machine = {};

  bool about_kind() const { return machine.empty(); }
};
// "'p' is an embedding layer" or the machine condition; then "; otherwise
// ValueError: ..." (or "...; otherwise unknown: why").
std::string assumption_text(const Assumption& a);

// get_quant_method over the marked layers (insertion order) under the config
// sglang resolved: an int8 embedding marker beside W4A8 or NVFP4 layers on a
// Linear layer raises (S13.3, S19); a W4A8 marker on an embedding raises
// (S13.1). Layers of unknown kind whose verdict depends on it go to
// `assumptions`, taken to be the kind under which sglang loads them.
void check_layer_kinds(const std::vector<Layer>& layers, const TensorTable& t, const LayerKinds& kinds, Sink& out,
                       std::vector<Assumption>& assumptions);

}  // namespace safespec::quant
