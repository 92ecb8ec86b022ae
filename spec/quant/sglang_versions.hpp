// What each modelled sglang version (spec/consumers.hpp, consumer_rows::kSglang)
// builds to read int8_tensorwise markers, one row per version in the same
// order. The rules that depend on it (int8_rules.cpp, resolution.cpp,
// layer_kinds.cpp) ask this table; nothing else names a version.
//
// The facts (upstream-since-the-pins.md §6, read at their sources):
// - KitchenInt8Config (kitchen_int8_config.py 33e55fd4) checks every marker
//   it is given: `convrot is True`, `convrot_groupsize in (16, 64, 256)`, and
//   at get_quant_method K % group; messages "Serialized kitchen_int8 layer ...".
// - ConvRotInt8Config (convrot_int8_config.py 7c482815, PR #38040) makes the
//   same checks with "Serialized convrot_int8 layer ...", first skipping
//   is_comfy_int8_embedding markers (int8, convrot falsy, row-wise or
//   tensor-wise scalar), and picks a kernel per layer: with backend "auto"
//   on a GPU sgl-kernel serves (CC 9.0/10.0/12.x), a layer of group 64 or
//   256 whose output width is not a multiple of 8 goes to comfy_kitchen, or
//   raises "... has no kernel: ..." when comfy_kitchen is not installed.
// - KitchenW4A4Config hands its int8 companions to one of those two:
//   e3771fc9 to KitchenInt8Config, 4422cbf4 to ConvRotInt8Config; the class
//   is built before the W4A4 markers are parsed.
// - KitchenW4A8Config lets through beside W4A8 markers: int8 embeddings
//   (1bb249cd), tensor-wise scalar int8 markers whatever their convrot (the
//   version of PR #36037), or nothing (321f98d4, which also has no
//   embedding branch in get_quant_method).
//
// Position where no source settles it: after the rename, an int8-only
// checkpoint resolves to ConvRotInt8Config (PR #38040 says serialized
// ConvRot checkpoints "take the same per-layer choice"). The measured
// answers (sglang-answers/) ran KitchenW4A4Config 4422cbf4 beside
// KitchenW4A8Config 1bb249cd; their W4A4 files carry only companions that
// both int8 classes accept, so they do not tell e3771fc9 from 4422cbf4.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "spec/consumers.hpp"
#include "spec/finding.hpp"

namespace safespec::quant {

enum class Int8Class : unsigned char { KitchenInt8, ConvRotInt8 };

struct Int8ClassInfo {
  std::string_view config;     // sglang's class name, as resolution reports it
  std::string_view method;     // the name in its messages: "Serialized {method} layer ..."
  bool skips_embeddings;       // is_comfy_int8_embedding markers are not checked
  bool picks_kernel;           // the per-layer backend choice and its "has no kernel" error
};
const Int8ClassInfo& int8_class_info(Int8Class c);

// Which int8 markers KitchenW4A8Config's constructor lets through.
enum class W4a8Passes : unsigned char { Int8Embeddings, TensorwiseScalarInt8, Nothing };

struct SglangConfigSet {
  std::string_view version;  // the consumer_rows::kSglang id
  Int8Class int8_only;       // the class an int8-only checkpoint resolves to
  Int8Class w4a4_int8;       // the class KitchenW4A4Config reads its int8 companions with
  W4a8Passes w4a8_passes;
  bool w4a8_embedding_branch;  // get_quant_method raises for a marker on an embedding (S13.1)
};

inline constexpr std::array<SglangConfigSet, consumer_rows::kSglang.size()> kSglangConfigSets{{
    {"1bb249c", Int8Class::KitchenInt8, Int8Class::KitchenInt8, W4a8Passes::Int8Embeddings, true},
    {"4422cbf", Int8Class::ConvRotInt8, Int8Class::ConvRotInt8, W4a8Passes::Int8Embeddings, true},
    {"pr36037", Int8Class::KitchenInt8, Int8Class::KitchenInt8, W4a8Passes::TensorwiseScalarInt8, true},
    {"321f98d", Int8Class::KitchenInt8, Int8Class::KitchenInt8, W4a8Passes::Nothing, false},
}};

namespace detail {
constexpr bool sets_follow_rows() {
  for (std::size_t i = 0; i < kSglangConfigSets.size(); ++i)
    if (kSglangConfigSets[i].version != consumer_rows::kSglang[i].id) return false;
  return true;
}
}  // namespace detail
static_assert(detail::sets_follow_rows(), "one config set per sglang version row, in the same order");

// The versions for which pred(set) holds, as a Verdict mask (0 when all do:
// a verdict for every version). `none` is true when no version does.
template <class Pred>
constexpr VersionMask sglang_versions_where(Pred pred, bool& none) {
  VersionMask m = 0;
  for (std::size_t v = 0; v < kSglangConfigSets.size(); ++v)
    if (pred(kSglangConfigSets[v])) m = static_cast<VersionMask>(m | version_bit(v));
  none = m == 0;
  const VersionMask all = static_cast<VersionMask>(version_bit(kSglangConfigSets.size()) - 1);
  return m == all ? VersionMask{0} : m;
}

// `v`, held to `versions` of sglang (a mask of sglang_versions_where).
inline Verdict for_versions(Verdict v, VersionMask versions) {
  v.versions = versions;
  return v;
}

// The class that reads an int8 marker of a checkpoint sglang resolved to
// `config` (its default version's name), in `set`; nullptr when that
// config reads int8 markers itself or not at all.
const Int8Class* int8_class_for(const SglangConfigSet& set, std::string_view config);

// The name of the config `version` builds for a checkpoint whose default
// version resolves to `config`.
std::string_view sglang_config_in(std::size_t version, std::string_view config);

}  // namespace safespec::quant
