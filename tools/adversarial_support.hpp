// Small helpers shared by the adversarial case files (adversarial_*.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "tools/adversarial_cases.hpp"

namespace safespec::tools {

// "NAME":{"dtype":DTYPE,"shape":SHAPE,"data_offsets":OFFSETS}, with the name
// written as given (the caller escapes it).
inline std::string entry(const std::string& name, const std::string& dtype, const std::string& shape,
                         const std::string& offsets) {
  return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":" + offsets + "}";
}

// Spaces up to a multiple of 8 (W5), so no case carries ST-HEADER-UNALIGNED.
inline std::string pad8(std::string header) {
  header.append((8 - header.size() % 8) % 8, ' ');
  return header;
}

inline Expect fail(std::string rule, std::string where, std::string message, std::uint64_t errors = 1) {
  return Expect{1, std::move(rule), std::move(where), std::move(message), errors};
}
inline Expect io(std::string message) { return Expect{2, "-", "-", std::move(message), 0}; }
inline Expect clean() { return Expect{0, "-", "-", "-", 0}; }

// A valid fp8 layer (weight F8_E4M3 [16,16], scalar F32 weight_scale) marked
// by a P.comfy_quant tensor: the file the marker cases and the shrinking
// cases start from. Returns {header, data}.
std::pair<std::string, std::string> marked_fp8_layer(const std::string& marker_json);

}  // namespace safespec::tools
