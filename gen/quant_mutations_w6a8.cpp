// Mutations of 6-bit W4A8 storage (W6A8, L16, K14): a valid asym_w4a8_int8
// layer rewritten to 6 bits (to_w6a8) with the defect its rule names.
//
// Companions of every one: only comfy-kitchen 2a6f4ef reads 6-bit storage.
// sglang (A5), ComfyUI and the 4-bit kitchens read K = 2 * columns = 3K/2,
// so the scale grid no longer matches (CQ-W4A8-SHAPES; K // G >= 2 here, so
// 3K/2 // G differs), and 3K/2 need not divide by G or C (CQ-W4A8-K) or by
// 256 (CQ-W4A8-CUDA-GROUPSIZE).
#include "gen/quant_mutation_tools.hpp"

namespace safespec::gen::quant::mut {

namespace {

Applied six_bit_rejects(const QLayer& l, std::string what) {
  Applied a = layer_rejects(l, std::move(what), kA5,
                            {{"weight_shape", shape(l.find("weight")->shape)},
                             {"scale_shape", shape(l.find("weight_s_rel")->shape)},
                             {"channel_shape", shape(l.find("weight_s_channel")->shape)}});
  a.companions = {RuleId::QuantW4a8Shapes, RuleId::QuantW4a8K, RuleId::QuantW4a8CudaGroupsize};
  return a;
}

}  // namespace

Applied w6a8_geometry(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  // The generator's K is a multiple of 256, so K % 32 == 0: a group size
  // valid at 4 bits but not a multiple of 16 breaks the 6-bit layout.
  const std::uint64_t g = *element<std::uint64_t>(4, 8);
  to_w6a8(*l, g, false);
  return six_bit_rejects(*l, "6-bit storage with group_size " + std::to_string(g) + " on " + l->prefix);
}

Applied w6a8_codebook(QCheckpoint& c, std::set<std::string>& used) {
  QLayer* l = pick_format(c, used, Format::W4a8);
  if (!l) return {};
  const std::uint64_t g = *element<std::uint64_t>(16, 32, 64);  // a valid 6-bit group, K // g >= 4
  to_w6a8(*l, g, true);
  Applied a = six_bit_rejects(*l, "6-bit storage with a weight_codebook on " + l->prefix);
  if (*rc::gen::arbitrary<bool>()) {
    // sglang's A8 reads 3K/2 // G groups, so a K // G correction breaks it too.
    l->tensors.push_back(QTensor{l->name("weight_correction"), Dtype::F32, {l->k / g, l->n}, {}});
    a.companions.push_back(RuleId::QuantW4a8Correction);
  }
  return a;
}

}  // namespace safespec::gen::quant::mut
