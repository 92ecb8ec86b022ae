// Mutations of the formats and spellings that comfy-quants writes
// (docs/spec/quant-layers.md L17, L20): awq_w4a16's weight_zero and the
// svdquant_w4a4 rules, one per rule.
#include "gen/quant_mutation_tools.hpp"

namespace safespec::gen::quant::mut {

Applied awq_zero_spelling(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Awq);
  if (!l) return {};
  l->find("weight_zeros")->name = l->name("weight_zero");
  return applied("weight_zeros spelled weight_zero on " + l->prefix);
}

// ---- svdquant_w4a4 (L20, comfy-quants) -------------------------------------

Applied svdquant_tensors(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Svdquant);
  if (!l) return {};
  const std::string side = *element<std::string>("weight_scale", "smooth_factor", "proj_down", "proj_up");
  const bool kitchen_spelling = side != "weight_scale" && *rc::gen::arbitrary<bool>();
  if (kitchen_spelling)
    l->find(side)->name = l->name("weight_" + side);
  else
    std::erase_if(l->tensors, [&](const QTensor& t) { return t.name == l->name(side); });
  return applied(side + (kitchen_spelling ? " in comfy-kitchen's spelling on " : " missing on ") + l->prefix);
}

Applied svdquant_layout(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Svdquant);
  if (!l) return {};
  std::erase_if(l->marker, [](const auto& kv) { return kv.key == "layout"; });
  l->marker.push_back({"layout", *element<std::string>("\"tile_packed\"", "\"natural\"", "1", "null")});
  return applied("layout " + l->marker.back().json + " on " + l->prefix);
}

Applied svdquant_shapes(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Svdquant);
  if (!l) return {};
  const std::string which = *element<std::string>("weight_scale", "smooth_factor", "proj_down", "proj_up");
  QTensor* t = l->find(which);
  t->shape.back() += 1;
  return applied(t->name + " widened");
}

Applied svdquant_keys(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::Svdquant);
  if (!l) return {};
  const std::string key = *element<std::string>("act_unsigned", "proj_down_smooth_folded", "lowrank_branch_input_basis");
  std::erase_if(l->marker, [&](const auto& kv) { return kv.key == key; });
  l->marker.push_back({key, key == "lowrank_branch_input_basis" ? "\"smoothed\"" : "1"});
  return applied(key + " mistyped on " + l->prefix);
}

}  // namespace safespec::gen::quant::mut
