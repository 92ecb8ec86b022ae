// 6-bit W4A8 storage (W6A8) in the reference, against a model written here
// from comfy-kitchen's storage contract as quoted (backends/eager/
// w4a8_int8.py 2a6f4ef9, _pack_codes and _unpack_codes), not from
// spec/numerics: a row is a K/2-byte nibble plane (even column in the low
// nibble), then a K/4-byte plane holding column c's top two bits in byte
// c // 4 at bit 2 * (c % 4); a code decodes to clamp(round((c - 32) * s_rel),
// -127, 127). Also the frozen codebook's bits, from Python's float32 rounding
// of _FIXED_LUT (struct.pack('<f', v)).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "props/catch.hpp"
#include "spec/number_formats.hpp"
#include "spec/numerics/w4a8_reference.hpp"
#include "src/numerics/w4a8_fast.hpp"

using namespace safespec;
using namespace safespec::numerics;

namespace {

// _pack_codes at 6 bits: codes [K] (0..63) of one row into 3K/4 bytes.
std::vector<std::uint8_t> pack_six_bit_row(const std::vector<unsigned>& codes) {
  const std::size_t k = codes.size();
  std::vector<std::uint8_t> row(k * 3 / 4, 0);
  for (std::size_t j = 0; j < k / 2; ++j)
    row[j] = static_cast<std::uint8_t>((codes[2 * j] & 0xF) | (codes[2 * j + 1] & 0xF) << 4);
  for (std::size_t b = 0; b < k / 4; ++b) {
    unsigned hi = 0;
    for (unsigned s = 0; s < 4; ++s) hi |= ((codes[4 * b + s] >> 4) & 0x3) << (2 * s);
    row[k / 2 + b] = static_cast<std::uint8_t>(hi);
  }
  return row;
}

// _unpack_codes at 6 bits, on its own.
std::vector<unsigned> unpack_six_bit_row(const std::uint8_t* row, std::size_t k) {
  std::vector<unsigned> codes(k);
  for (std::size_t j = 0; j < k / 2; ++j) {
    codes[2 * j] = row[j] & 0xFu;
    codes[2 * j + 1] = row[j] >> 4;
  }
  for (std::size_t b = 0; b < k / 4; ++b)
    for (unsigned s = 0; s < 4; ++s) codes[4 * b + s] |= ((row[k / 2 + b] >> (2 * s)) & 0x3u) << 4;
  return codes;
}

}  // namespace

TEST_CASE("W6A8: the reference decodes 6-bit storage as the storage contract says", "[prop][numerics]") {
  test::small_prop("pack, then decode_weight: (c - 32) * s_rel, rounded and clamped", 200, [] {
    W4a8Layer l;
    l.bits = 6;
    l.group_size = *rc::gen::element<std::size_t>(16, 32, 64);
    l.convrot_groupsize = 16;
    l.k = std::max<std::size_t>(32, l.group_size) * *rc::gen::inRange<std::size_t>(1, 6);
    l.n = *rc::gen::inRange<std::size_t>(1, 6);
    std::vector<std::vector<unsigned>> codes(l.n);
    for (std::size_t n = 0; n < l.n; ++n) {
      for (std::size_t k = 0; k < l.k; ++k) codes[n].push_back(*rc::gen::inRange(0u, 64u));
      const auto row = pack_six_bit_row(codes[n]);
      l.weight.insert(l.weight.end(), row.begin(), row.end());
    }
    for (std::size_t i = 0; i < l.n * (l.k / l.group_size); ++i)
      l.s_rel.push_back(num::decode_e4m3fn(static_cast<std::uint8_t>(*rc::gen::inRange(0x08, 0x7F))));
    l.s_channel.assign(l.n, 1.0f);
    const std::vector<std::int8_t> wq = decode_weight(l);
    for (std::size_t n = 0; n < l.n; ++n) {
      RC_ASSERT(unpack_six_bit_row(l.weight.data() + n * l.k * 3 / 4, l.k) == codes[n]);
      for (std::size_t k = 0; k < l.k; ++k) {
        const float s = l.s_rel[n * (l.k / l.group_size) + k / l.group_size];
        const double p = static_cast<double>(static_cast<float>(static_cast<int>(codes[n][k]) - 32) * s);
        const double expected = std::clamp(std::nearbyint(p), -127.0, 127.0);
        RC_ASSERT(static_cast<double>(wq[n * l.k + k]) == expected);
      }
    }
    // The fast decoder is the reference's.
    std::vector<std::int8_t> fast;
    decode_weights(l, fast, 2);
    RC_ASSERT(fast == wq);
  });
}

TEST_CASE("W6A8: validate's 6-bit rules", "[numerics]") {
  W4a8Layer l;
  l.bits = 6, l.n = 1, l.k = 48, l.group_size = 16, l.convrot_groupsize = 16;
  l.weight.assign(36, 0), l.s_rel.assign(3, 1.0f), l.s_channel.assign(1, 1.0f);
  const Activations x{0, FloatType::F32, {}};
  W4a8Options eager;
  eager.semantics = Semantics::Eager;
  Status s = validate(l, x, eager);
  REQUIRE(!s);
  CHECK(s.error().rule == RuleId::QuantW6a8Geometry);
  CHECK(s.error().message == "expected K divisible by 32 and G a multiple of 16 for 6-bit storage, found K = 48, G = 16");
  l.k = 64, l.weight.assign(48, 0), l.s_rel.assign(4, 1.0f);
  CHECK(validate(l, x, eager));
  l.codebook = kW4a8FrozenCodebook;
  s = validate(l, x, eager);
  REQUIRE(!s);
  CHECK(s.error().rule == RuleId::QuantW6a8Codebook);
  CHECK(s.error().where.text() == "codebook");
  l.codebook.reset();
  l.weight.pop_back();
  s = validate(l, x, eager);
  REQUIRE(!s);
  CHECK(s.error().message == "expected 48 values, found 47");
  CHECK(s.error().where.text() == "weight [N, 3K/4]");
}

TEST_CASE("the frozen W4A8 codebook is _FIXED_LUT rounded to binary32", "[numerics]") {
  constexpr std::array<std::uint32_t, 16> kBits = {
      0xBF7B08BCu, 0xBF4B6641u, 0xBF235EC8u, 0xBF00409Eu, 0xBEC13038u, 0xBE86C072u, 0xBE1EEF5Fu, 0xBD4FBFC6u,
      0x3D57353Bu, 0x3E20C0ADu, 0x3E87D34Eu, 0x3EC25226u, 0x3F00ACC1u, 0x3F23926Cu, 0x3F4B7CFEu, 0x3F7B0D41u};
  for (std::size_t i = 0; i < 16; ++i) {
    INFO(i);
    CHECK(std::bit_cast<std::uint32_t>(kW4a8FrozenCodebook[i]) == kBits[i]);
  }
  // Not symmetric: the table is as fitted, not mirrored.
  CHECK(kW4a8FrozenCodebook[0] != -kW4a8FrozenCodebook[15]);
}
