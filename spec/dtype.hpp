// The 22 safetensors dtypes (safetensors-format.md §4): names, bit sizes, and
// the declaration order the canonical writer sorts by (W1).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace safespec {

// Declaration order of the reference enum (tensor.rs:809-863). The numeric
// value is the enum's Ord, which W1 uses (descending) to order tensors.
enum class Dtype : std::uint8_t {
  BOOL, F4, F6_E2M3, F6_E3M2, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, F8_E4M3FNUZ,
  F8_E5M2FNUZ, I16, U16, F16, BF16, I32, U32, F32, C64, F64, I64, U64,
};

inline constexpr std::size_t kDtypeCount = 22;

struct DtypeInfo {
  Dtype dtype;
  std::string_view name;  // exact, case-sensitive JSON spelling (F6.12)
  std::uint32_t bits;     // bitsize() (tensor.rs:867-892)
};

const std::array<DtypeInfo, kDtypeCount>& dtype_table();
const DtypeInfo& dtype_info(Dtype d);
std::string_view dtype_name(Dtype d);
std::uint32_t dtype_bits(Dtype d);
// Exact match only: "f32", "F32 " and "" are not dtypes (F6.12).
std::optional<Dtype> dtype_from_name(std::string_view name);
// Bytes per element for alignment checks; 0 for sub-byte dtypes (F4, F6_*).
std::uint32_t dtype_element_bytes(Dtype d);
// "BOOL, F4, ..., U64" for messages that list what was expected.
std::string_view dtype_name_list();

}  // namespace safespec
