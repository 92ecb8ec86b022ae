#include "spec/name_hash.hpp"

#include <bit>
#include <cstring>
#include <random>

namespace safespec {

namespace {

struct Key {
  std::uint64_t k0, k1;
};

const Key& process_key() {
  static const Key key = [] {
    std::random_device rd;
    auto draw = [&] { return (static_cast<std::uint64_t>(rd()) << 32) ^ rd(); };
    return Key{draw(), draw()};
  }();
  return key;
}

constexpr std::uint64_t rotl(std::uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

struct State {
  std::uint64_t v0, v1, v2, v3;
  void round() {
    v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);
    v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;
    v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;
    v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);
  }
  void absorb(std::uint64_t m) {  // one compression round: SipHash-1-3
    v3 ^= m;
    round();
    v0 ^= m;
  }
};

// Bytes p[0..n) as a little-endian word, n <= 8: byte k is bits 8k..8k+7.
std::uint64_t load_le(const unsigned char* p, std::size_t n) {
  std::uint64_t w = 0;
  for (std::size_t i = 0; i < n; ++i) w |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return w;
}

// The same as whole loads where bytes are little-endian in memory: gcc did
// not merge the byte loop into a load, and eight byte loads a block plus a
// loop for the tail were a third of a 31-byte name's hash (a tenth of
// parsing a large header and of a directory's collision check spent
// hashing).
constexpr bool kLittle = std::endian::native == std::endian::little;

std::uint64_t load8(const unsigned char* p) {
  if constexpr (!kLittle) return load_le(p, 8);
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

// The last r = n % 8 bytes of p[0..n) (they start at n - r).
std::uint64_t load_tail(const unsigned char* p, std::size_t n) {
  const std::size_t r = n % 8;
  if (!kLittle) return load_le(p + n - r, r);
  if (r == 0) return 0;
  // One load that ends at the name's last byte, its first 8 - r bytes
  // (the previous block's) shifted out.
  if (n >= 8) return load8(p + n - 8) >> (8 * (8 - r));
  const unsigned char* t = p + n - r;
  std::uint64_t w = 0;
  std::size_t k = 0;
  if (r & 4) {
    std::uint32_t x;
    std::memcpy(&x, t, 4);
    w = x;
    k = 4;
  }
  if (r & 2) {
    std::uint16_t x;
    std::memcpy(&x, t + k, 2);
    w |= static_cast<std::uint64_t>(x) << (8 * k);
    k += 2;
  }
  if (r & 1) w |= static_cast<std::uint64_t>(t[k]) << (8 * k);
  return w;
}

}  // namespace

std::uint64_t name_hash(std::string_view s) {
  const Key& k = process_key();
  State st{k.k0 ^ 0x736f6d6570736575u, k.k1 ^ 0x646f72616e646f6du, k.k0 ^ 0x6c7967656e657261u,
           k.k1 ^ 0x7465646279746573u};
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) st.absorb(load8(p + i));
  st.absorb(load_tail(p, n) | (static_cast<std::uint64_t>(n & 0xFF) << 56));
  st.v2 ^= 0xFF;
  st.round();
  st.round();
  st.round();
  return st.v0 ^ st.v1 ^ st.v2 ^ st.v3;
}

}  // namespace safespec
