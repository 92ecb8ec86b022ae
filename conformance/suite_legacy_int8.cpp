// Legacy marker-less INT8 ConvRot checkpoints (docs/spec/quant-legacy-int8.md):
// a folder with model.safetensors and the config.json that declares it, since
// the declaration lives only there. The manifest line names the checkpoint;
// config.json is written beside it without a line of its own.
#include <string>

#include "conformance/suite_parts.hpp"
#include "src/io/writer.hpp"

namespace safespec::conformance::detail {

namespace {

using enum RuleId;

struct LegacyTensor {
  std::string name;
  Dtype dtype;
  std::vector<std::uint64_t> shape;
  Bytes data;
};

Bytes legacy_file(const std::vector<LegacyTensor>& tensors) {
  std::vector<TensorView> views;
  for (const LegacyTensor& t : tensors) views.push_back(TensorView{t.name, t.dtype, t.shape, t.data});
  auto bytes = serialize(views, Metadata{{"format", "pt"}});
  return bytes ? std::move(bytes).value() : Bytes{};
}

Bytes legacy_text(std::string_view s) { return Bytes(s.begin(), s.end()); }

constexpr std::string_view kDeclared = R"({"quantization_config": {"quant_method": "int8", "convrot": true}})";
constexpr std::string_view kMarker = R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 16})";

void legacy_case(std::vector<Draft>& out, const std::string& folder, std::string description,
                 const std::vector<LegacyTensor>& tensors, std::string_view config, std::vector<RuleId> rules) {
  out.push_back(Draft{folder + "/model.safetensors", std::move(description), legacy_file(tensors),
                      {{"config.json", legacy_text(config)}}, std::move(rules), {}});
}

}  // namespace

std::vector<Draft> legacy_int8_drafts() {
  std::vector<Draft> out;
  const LegacyTensor weight{"a.weight", Dtype::I8, {4, 16}, zeros(64)};
  const LegacyTensor scale{"a.weight_scale", Dtype::F32, {4, 1}, f32_bytes({0.1f, 0.1f, 0.1f, 0.1f})};
  // ComfyUI reads no config.json: to it every I8 weight here is unmarked.
  legacy_case(out, "reject_CQ-LEGACY-INT8_declared",
              "a legacy MiniMax-H3 INT8 ConvRot checkpoint declared by config.json: sglang's H3 loader takes it, ComfyUI "
              "sees an unmarked I8 weight",
              {weight, scale}, kDeclared, {QuantLegacyInt8, QuantMarkerMissing});
  legacy_case(out, "reject_CQ-LEGACY-INT8-CONFIG_no_convrot", "config.json says quant_method int8 without convrot: true",
              {weight, scale}, R"({"quantization_config": {"quant_method": "int8"}})",
              {QuantLegacyInt8Config, QuantMarkerMissing});
  legacy_case(out, "reject_CQ-LEGACY-INT8-MARKERS_with_marker", "a legacy INT8 checkpoint that also has a comfy_quant marker",
              {weight, scale, {"a.comfy_quant", Dtype::U8, {kMarker.size()}, legacy_text(kMarker)}}, kDeclared,
              {QuantLegacyInt8, QuantLegacyInt8Markers});
  legacy_case(out, "reject_CQ-LEGACY-INT8-SCALE-MISSING_no_scale", "a legacy INT8 weight without its weight_scale", {weight},
              kDeclared, {QuantLegacyInt8, QuantLegacyInt8ScaleMissing, QuantMarkerMissing});
  legacy_case(out, "reject_CQ-LEGACY-INT8-SCALE-META_scale_shape", "a legacy INT8 weight_scale of shape (N,) instead of (N, 1)",
              {weight, {"a.weight_scale", Dtype::F32, {4}, zeros(16)}}, kDeclared,
              {QuantLegacyInt8, QuantLegacyInt8ScaleMeta, QuantMarkerMissing});
  legacy_case(out, "reject_CQ-LEGACY-INT8-NO-WEIGHTS_bf16_only", "a declared legacy INT8 checkpoint with no I8 weight",
              {{"a.weight", Dtype::BF16, {4, 16}, zeros(128)}}, kDeclared, {QuantLegacyInt8, QuantLegacyInt8NoWeights});
  return out;
}

}  // namespace safespec::conformance::detail
