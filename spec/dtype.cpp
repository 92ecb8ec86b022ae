#include "spec/dtype.hpp"

namespace safespec {

namespace {
constexpr std::array<DtypeInfo, kDtypeCount> kTable{{
    {Dtype::BOOL, "BOOL", 8},          {Dtype::F4, "F4", 4},
    {Dtype::F6_E2M3, "F6_E2M3", 6},    {Dtype::F6_E3M2, "F6_E3M2", 6},
    {Dtype::U8, "U8", 8},              {Dtype::I8, "I8", 8},
    {Dtype::F8_E5M2, "F8_E5M2", 8},    {Dtype::F8_E4M3, "F8_E4M3", 8},
    {Dtype::F8_E8M0, "F8_E8M0", 8},    {Dtype::F8_E4M3FNUZ, "F8_E4M3FNUZ", 8},
    {Dtype::F8_E5M2FNUZ, "F8_E5M2FNUZ", 8},
    {Dtype::I16, "I16", 16},           {Dtype::U16, "U16", 16},
    {Dtype::F16, "F16", 16},           {Dtype::BF16, "BF16", 16},
    {Dtype::I32, "I32", 32},           {Dtype::U32, "U32", 32},
    {Dtype::F32, "F32", 32},           {Dtype::C64, "C64", 64},
    {Dtype::F64, "F64", 64},           {Dtype::I64, "I64", 64},
    {Dtype::U64, "U64", 64},
}};

static_assert([] {
  for (std::size_t i = 0; i < kTable.size(); ++i)
    if (static_cast<std::size_t>(kTable[i].dtype) != i) return false;
  return true;
}(), "dtype table must be in declaration order");
// A name of at most 16 bytes as two words, byte i at bits 8 * (i % 8) of
// word i / 8, zero past its end (a name with a NUL in it differs in length).
struct PackedName {
  std::uint64_t lo = 0, hi = 0;
  std::size_t size = 0;
  friend constexpr bool operator==(const PackedName&, const PackedName&) = default;
};

constexpr PackedName pack(std::string_view s) {
  PackedName p;
  p.size = s.size();
  for (std::size_t i = 0; i < s.size(); ++i) (i < 8 ? p.lo : p.hi) |= std::uint64_t{static_cast<unsigned char>(s[i])} << (8 * (i % 8));
  return p;
}

constexpr std::size_t kMaxPacked = 16;

// The table's names packed once: dtype_from_name compares integers, where
// comparing strings called memcmp for every name of the same length (up to
// ten for a three-letter one), a tenth of parsing a large header.
constexpr std::array<PackedName, kDtypeCount> kPacked = [] {
  std::array<PackedName, kDtypeCount> out{};
  for (std::size_t i = 0; i < kTable.size(); ++i) out[i] = pack(kTable[i].name);
  return out;
}();

static_assert([] {
  for (const DtypeInfo& info : kTable)
    if (info.name.size() > kMaxPacked) return false;
  return true;
}(), "every dtype name fits the packed lookup");
}  // namespace

const std::array<DtypeInfo, kDtypeCount>& dtype_table() { return kTable; }

const DtypeInfo& dtype_info(Dtype d) { return kTable[static_cast<std::size_t>(d)]; }

std::string_view dtype_name(Dtype d) { return dtype_info(d).name; }

std::uint32_t dtype_bits(Dtype d) { return dtype_info(d).bits; }

std::optional<Dtype> dtype_from_name(std::string_view name) {
  if (name.size() > kMaxPacked) return std::nullopt;
  const PackedName p = pack(name);
  for (std::size_t i = 0; i < kPacked.size(); ++i)
    if (kPacked[i] == p) return kTable[i].dtype;
  return std::nullopt;
}

std::uint32_t dtype_element_bytes(Dtype d) {
  const auto bits = dtype_bits(d);
  return bits % 8 == 0 ? bits / 8 : 0;
}

std::string_view dtype_name_list() {
  return "BOOL, F4, F6_E2M3, F6_E3M2, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, F8_E4M3FNUZ, "
         "F8_E5M2FNUZ, I16, U16, F16, BF16, I32, U32, F32, C64, F64, I64, U64";
}

}  // namespace safespec
