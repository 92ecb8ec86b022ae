// The int8 classes of sglang's versions (sglang_versions.hpp).
#include "spec/quant/sglang_versions.hpp"

#include "spec/quant/formats.hpp"

namespace safespec::quant {

namespace {

constexpr Int8ClassInfo kKitchenInt8{"KitchenInt8Config", "kitchen_int8", false, false};
constexpr Int8ClassInfo kConvRotInt8{"ConvRotInt8Config", "convrot_int8", true, true};

}  // namespace

const Int8ClassInfo& int8_class_info(Int8Class c) { return c == Int8Class::KitchenInt8 ? kKitchenInt8 : kConvRotInt8; }

const Int8Class* int8_class_for(const SglangConfigSet& set, std::string_view config) {
  if (config == format_spec(QuantFormat::Int8).sglang_config) return &set.int8_only;
  if (config == format_spec(QuantFormat::W4a4).sglang_config) return &set.w4a4_int8;
  return nullptr;
}

std::string_view sglang_config_in(std::size_t version, std::string_view config) {
  if (version >= kSglangConfigSets.size() || config != format_spec(QuantFormat::Int8).sglang_config) return config;
  return int8_class_info(kSglangConfigSets[version].int8_only).config;
}

}  // namespace safespec::quant
