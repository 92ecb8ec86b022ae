#include "spec/name_hash.hpp"

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

std::uint64_t load_le(const unsigned char* p, std::size_t n) {
  std::uint64_t w = 0;
  for (std::size_t i = 0; i < n; ++i) w |= static_cast<std::uint64_t>(p[i]) << (8 * i);
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
  for (; i + 8 <= n; i += 8) st.absorb(load_le(p + i, 8));
  st.absorb(load_le(p + i, n - i) | (static_cast<std::uint64_t>(n & 0xFF) << 56));
  st.v2 ^= 0xFF;
  st.round();
  st.round();
  st.round();
  return st.v0 ^ st.v1 ^ st.v2 ^ st.v3;
}

}  // namespace safespec
