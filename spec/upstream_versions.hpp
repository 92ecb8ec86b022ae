// The upstream states safespec's rules and messages follow, in one table:
// `safespec --version` prints it, and a verdict is only as current as these.
#pragma once

#include <array>
#include <string_view>

namespace safespec {

struct UpstreamVersion {
  std::string_view project;
  std::string_view version;
};

inline constexpr std::array<UpstreamVersion, 7> kUpstreamVersions{{
    {"safetensors (reference reader)", "huggingface/safetensors 24b0b28 (0.8.0-rc.0)"},
    {"serde / serde_json", "1.0.228 / 1.0.150 (the Display texts)"},
    {"sglang", "multimodal_gen around PR #36036; KitchenW4A8Config at 1bb249c"},
    {"ComfyUI", "6db4fa2 (2026-08-07); awq_w4a16 from 0271a46; DynamicVRAM parser at 09708ea and before PR #15722"},
    {"comfy-kitchen", "v0.2.27 (5aab6c4), as ComfyUI pins it; W4A8 from 7d86acf (0.2.31+)"},
    {"CPython", "3.11 (json, repr, int() and the recursion limit)"},
    {"Rust {:?} escapes", "rustc 1.95.0 (tools/rust_debug_escapes)"},
}};

}  // namespace safespec
