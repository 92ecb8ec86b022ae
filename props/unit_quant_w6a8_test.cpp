// 6-bit W4A8 storage (W6A8, L16, K14): which consumers read a weight 3K/4
// wide, and the rules and messages of comfy-kitchen 2a6f4ef, the version that
// reads it. Exact findings and messages.
#include <set>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/quant_support.hpp"
#include "spec/quant/order.hpp"
#include "spec/quant/w4a8_geometry.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

constexpr std::size_t kPinnedKitchen = 0;  // 0.2.27
constexpr std::size_t kW6Kitchen = 2;      // 2a6f4ef
constexpr const char* kW6Marker =
    R"({"format": "asym_w4a8_int8", "group_size": 16, "convrot_groupsize": 256, "convrot": true})";

// N = 3, K = 512, G = 16: the weight 3K/4 = 384 bytes wide (read as 4-bit it
// would be K = 768).
QuantFixture six_bit_fixture(std::uint64_t k = 512, std::uint64_t g = 16) {
  QuantFixture fx;
  fx.tensor("p.weight", Dtype::I8, {3, k * 3 / 4})
      .tensor("p.weight_s_rel", Dtype::F8_E4M3, {3, k / g})
      .tensor("p.weight_s_channel", Dtype::F32, {3});
  return fx;
}

std::set<RuleId> rules_of(const quant::Sink& sink) {
  std::set<RuleId> out;
  for (const quant::LocatedFinding& lf : sink.findings()) out.insert(lf.finding.rule);
  return out;
}

std::string w6_message(const Finding& f) {
  const Verdict* v = f.verdict(Consumer::Kitchen, kW6Kitchen);
  return v ? v->error + ": " + v->message : "no verdict";
}

}  // namespace

TEST_CASE("W6A8: the bit depth comes from the width against s_rel columns * group_size", "[quant]") {
  const std::vector<std::uint64_t> w{3, 384}, s{3, 32};
  CHECK(quant::six_bit_k(w, s, 16) == std::uint64_t{512});
  CHECK(quant::six_bit_k(std::vector<std::uint64_t>{3, 256}, s, 16) == std::nullopt);  // 4-bit: K/2
  CHECK(quant::six_bit_k(w, s, 0) == std::nullopt);
  CHECK(quant::six_bit_k(w, std::vector<std::uint64_t>{3, 0}, 16) == std::nullopt);
  CHECK(quant::six_bit_k(std::vector<std::uint64_t>{3, 1, 384}, s, 16) == std::nullopt);
}

TEST_CASE("W6A8: a valid 6-bit layer loads in comfy-kitchen 2a6f4ef only", "[quant][CQ-W4A8-SHAPES]") {
  const auto sink = layer_findings(six_bit_fixture(), "p", kW6Marker, "KitchenW4A8Config");
  CHECK(rules_of(sink) == std::set<RuleId>{RuleId::QuantW4a8Shapes});
  const Finding f = only_finding(sink, RuleId::QuantW4a8Shapes);
  CHECK(f.message ==
        "for weight (3, 384), weight_s_rel must be (N, K // group_size) = (3, 48) with K = 768, group_size = 16 and "
        "weight_s_channel (N,) = (3,); found (3, 32) and (3,) (the weight is 3K/4 wide for K = 512: 6-bit storage, "
        "which only comfy-kitchen 2a6f4ef reads; the others read K = 2 * columns)");
  CHECK(message_for(f, Consumer::Sglang) ==
        "Comfy W4A8 layer 'p' has incompatible weight/scale shapes: (3, 384), (3, 32), and (3,)");
  CHECK(message_for(f, Consumer::Comfyui) == "scale must have shape (3, 48), got (3, 32)");
  REQUIRE(f.verdict(Consumer::Kitchen, kPinnedKitchen));
  CHECK(f.verdict(Consumer::Kitchen, kPinnedKitchen)->message == "scale must have shape (3, 48), got (3, 32)");
  CHECK(f.verdict(Consumer::Kitchen, kW6Kitchen) == nullptr);
}

TEST_CASE("W6A8: 2a6f4ef reads K from the scale grid in its K1 checks", "[quant][CQ-W4A8-K][CQ-W4A8-SHAPES]") {
  // K = 384: a multiple of 32 but not of C = 256. The 4-bit kitchens read K = 576.
  auto fx = six_bit_fixture(384);
  const auto sink = layer_findings(fx, "p", kW6Marker, "KitchenW4A8Config");
  const Finding k = only_finding(sink, RuleId::QuantW4a8K);
  CHECK(w6_message(k) ==
        "ValueError: K=384 must be divisible by 16, group_size=16, and convrot_groupsize=256; group_size must be >=4 "
        "and divide 16 or be a multiple of 16");
  CHECK(k.verdict(Consumer::Kitchen, kW6Kitchen)->order == quant::order::kt_params(0, 2));
  CHECK(k.verdict(Consumer::Kitchen, kPinnedKitchen)->message.starts_with("K=576 must be divisible by 16"));
  const Finding cuda = only_finding(sink, RuleId::QuantW4a8CudaGroupsize);
  CHECK(cuda.message ==
        "comfy-kitchen's CUDA kernel needs convrot_groupsize 256 and K divisible by 256; found "
        "convrot_groupsize=256, K=576 (6-bit storage: K=384)");
  CHECK(w6_message(cuda) == "RuntimeError: convrot fused kernel requires K divisible by 256");
  // s_channel of the wrong length: 2a6f4ef's K1.4, after its scale grid passes.
  fx = QuantFixture{};
  fx.tensor("p.weight", Dtype::I8, {3, 384})
      .tensor("p.weight_s_rel", Dtype::F8_E4M3, {3, 32})
      .tensor("p.weight_s_channel", Dtype::F32, {4});
  const Finding sh = only_finding(layer_findings(fx, "p", kW6Marker, "KitchenW4A8Config"), RuleId::QuantW4a8Shapes);
  CHECK(w6_message(sh) == "ValueError: s_channel must have shape (3,), got (4,)");
  CHECK(sh.verdict(Consumer::Kitchen, kPinnedKitchen)->message == "scale must have shape (3, 48), got (3, 32)");
}

TEST_CASE("CQ-W6A8-GEOMETRY (K14): 6-bit storage needs K % 32 and group_size a multiple of 16",
          "[quant][CQ-W6A8-GEOMETRY]") {
  // G = 8: a 4-bit group size.
  auto sink = layer_findings(six_bit_fixture(512, 8), "p", R"({"format": "asym_w4a8_int8", "group_size": 8, "convrot": true})",
                             "KitchenW4A8Config");
  Finding f = only_finding(sink, RuleId::QuantW6a8Geometry);
  CHECK(f.where.text() == "layer 'p'");
  CHECK(f.message ==
        "a 6-bit W4A8 weight ((3, 384), 3K/4 wide for K = 512) needs K divisible by 32 and group_size a multiple of "
        "16; found K=512, group_size=8");
  CHECK(w6_message(f) ==
        "ValueError: 6-bit storage needs K divisible by 32 and group_size a multiple of 16, got K=512, group_size=8");
  CHECK(f.verdict(Consumer::Kitchen, kW6Kitchen)->order == quant::order::kt_operands(0, 62));
  CHECK(f.verdict(Consumer::Kitchen, kPinnedKitchen) == nullptr);
  CHECK(f.verdict(Consumer::Sglang) == nullptr);
  CHECK(f.verdict(Consumer::Comfyui) == nullptr);
  // K = 3 * 16 = 48: not a multiple of 32.
  sink = layer_findings(six_bit_fixture(48, 16), "p", kW6Marker, "KitchenW4A8Config");
  f = only_finding(sink, RuleId::QuantW6a8Geometry);
  CHECK(w6_message(f) ==
        "ValueError: 6-bit storage needs K divisible by 32 and group_size a multiple of 16, got K=48, group_size=16");
  // G = 24 is no group size at any depth: validate_w4a8_operands says so first.
  sink = layer_findings(six_bit_fixture(96, 24), "p", R"({"format": "asym_w4a8_int8", "group_size": 24, "convrot": true})",
                        "KitchenW4A8Config");
  f = only_finding(sink, RuleId::QuantW6a8Geometry);
  CHECK(w6_message(f) == "ValueError: group_size=24 must be >=4 and divide 16 or be a multiple of 16");
  CHECK(f.verdict(Consumer::Kitchen, kW6Kitchen)->order == quant::order::kt_operands(0, 61));
}

TEST_CASE("CQ-W6A8-CODEBOOK (K14): 6-bit codes are uniform, with no codebook or correction",
          "[quant][CQ-W6A8-CODEBOOK]") {
  auto fx = six_bit_fixture();
  fx.tensor("p.weight_codebook", Dtype::F32, {16});
  Finding f = only_finding(layer_findings(fx, "p", kW6Marker, "KitchenW4A8Config"), RuleId::QuantW6a8Codebook);
  CHECK(f.where.text() == "tensor 'p.weight_codebook'");
  CHECK(f.message ==
        "a 6-bit W4A8 layer decodes uniform codes (code - 32) and has no codebook or correction; found weight_codebook");
  CHECK(w6_message(f) == "ValueError: 6-bit storage is uniform and symmetric: no codebook or correction");
  CHECK(f.verdict(Consumer::Kitchen, kW6Kitchen)->order == quant::order::kt_operands(0, 63));
  // ComfyUI drops a correction (G3), so kitchen never sees it: no verdict.
  fx = six_bit_fixture();
  fx.tensor("p.weight_correction", Dtype::F32, {32, 3});
  f = only_finding(layer_findings(fx, "p", kW6Marker, "KitchenW4A8Config"), RuleId::QuantW6a8Codebook);
  CHECK(f.where.text() == "tensor 'p.weight_correction'");
  CHECK(f.message.ends_with("found weight_correction"));
  CHECK(f.verdicts.empty());
}

TEST_CASE("W6A8: a 4-bit layer is judged alike by every kitchen version", "[quant]") {
  QuantFixture fx;
  fx.tensor("p.weight", Dtype::I8, {3, 96})  // K = 192: no multiple of 256
      .tensor("p.weight_s_rel", Dtype::F8_E4M3, {3, 12})
      .tensor("p.weight_s_channel", Dtype::F32, {3});
  const Finding k = only_finding(layer_findings(fx, "p", kW6Marker, "KitchenW4A8Config"), RuleId::QuantW4a8K);
  const Verdict* v = k.verdict(Consumer::Kitchen, kW6Kitchen);
  REQUIRE(v);
  CHECK(v->versions == 0);
  CHECK(v->message.starts_with("K=192 must be divisible by 16"));
}
