#include "src/oracles/oracles_w4a8.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "spec/number_formats.hpp"
#include "spec/rule_catalogue.hpp"

namespace safespec {

namespace {

std::string describe_error(const Error& e) {
  return std::string(rule_name(e.rule)) + " at " + e.where.text() + ": " + e.message;
}

// Same bits, or both NaN: a NaN's sign and payload are not part of the spec
// (quant-numerics.md §1.1), and the reference's own depend on which operand
// its compiler puts first in a commutative binary32 operation (x86 returns
// the first NaN operand), so no other implementation can promise them.
template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_same_v<T, float>)
    if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The first index where two arrays differ (same_value), as text; "" if none.
template <class T>
std::string first_difference(const char* what, const std::vector<T>& ref, const std::vector<T>& fast) {
  if (ref.size() != fast.size())
    return std::string(what) + ": " + std::to_string(ref.size()) + " values in the reference, " +
           std::to_string(fast.size()) + " in the fast path";
  for (std::size_t i = 0; i < ref.size(); ++i)
    if (!same_value(ref[i], fast[i])) {
      if constexpr (std::is_same_v<T, float>)
        return std::string(what) + "[" + std::to_string(i) + "]: reference bits " +
               std::to_string(std::bit_cast<std::uint32_t>(ref[i])) + ", fast " +
               std::to_string(std::bit_cast<std::uint32_t>(fast[i]));
      else
        return std::string(what) + "[" + std::to_string(i) + "]: reference " + std::to_string(ref[i]) + ", fast " +
               std::to_string(fast[i]);
    }
  return "";
}

// Reads the fuzz bytes in order; zeros once they run out.
struct ByteReader {
  std::span<const std::uint8_t> bytes;
  std::size_t at = 0;
  std::uint8_t byte() { return at < bytes.size() ? bytes[at++] : 0; }
  // Any binary32: raw bits, an E4M3 code, a small multiple of 1/16, or a
  // power-of-two-scaled integer from far below 2^-126 to far above 2^127.
  float value() {
    switch (byte() % 4) {
      case 0: {
        std::uint32_t bits = 0;
        for (int i = 0; i < 4; ++i) bits = bits << 8 | byte();
        return std::bit_cast<float>(bits);
      }
      case 1: return num::decode_e4m3fn(byte());
      case 2: return static_cast<float>(static_cast<std::int8_t>(byte())) / 16.0f;
      default: {
        const float v = static_cast<float>(static_cast<std::int8_t>(byte()));
        return std::ldexp(v, static_cast<int>(static_cast<std::int8_t>(byte())) * 5 / 4);
      }
    }
  }
};

}  // namespace

std::optional<std::string> w4a8_fast_differs(const numerics::W4a8Layer& layer, const numerics::Activations& x,
                                             const numerics::W4a8Options& options,
                                             const numerics::W4a8FastConfig& config) {
  const auto ref = numerics::w4a8_linear(layer, x, options);
  const auto fast = numerics::w4a8_linear_fast(layer, x, options, config);
  if (!ref.ok() || !fast.ok()) {
    if (ref.ok() != fast.ok() || describe_error(ref.error()) != describe_error(fast.error()))
      return "reference: " + (ref.ok() ? std::string("ok") : describe_error(ref.error())) +
             "; fast: " + (fast.ok() ? std::string("ok") : describe_error(fast.error()));
    return std::nullopt;
  }
  const numerics::W4a8Output& r = ref.value();
  const numerics::W4a8Output& f = fast.value();
  if (r.out_dtype != f.out_dtype) return "output dtypes differ";
  if (std::string d = first_difference("y", r.y, f.y); !d.empty()) return d;
  if (r.trace.has_value() != f.trace.has_value()) return "one path recorded a trace, the other did not";
  if (!r.trace) return std::nullopt;
  const numerics::W4a8Trace& a = *r.trace;
  const numerics::W4a8Trace& b = *f.trace;
  for (const std::string& d :
       {first_difference("wq", a.wq, b.wq), first_difference("rotated", a.rotated, b.rotated),
        first_difference("amax", a.amax, b.amax), first_difference("xs", a.xs, b.xs),
        first_difference("divisor", a.divisor, b.divisor), first_difference("xq", a.xq, b.xq),
        first_difference("acc", a.acc, b.acc), first_difference("y_epilogue", a.y_epilogue, b.y_epilogue),
        first_difference("w_dequant", a.w_dequant, b.w_dequant), first_difference("trace y", a.y, b.y)})
    if (!d.empty()) return d;
  return std::nullopt;
}

std::optional<std::string> w4a8_fast_differs(std::span<const std::uint8_t> bytes) {
  using namespace numerics;
  constexpr FloatType kTypes[] = {FloatType::F32, FloatType::BF16, FloatType::F16};
  ByteReader in{bytes};
  const std::uint8_t flags = in.byte(), shape = in.byte(), types = in.byte(), run = in.byte();
  W4a8Options o;
  o.semantics = flags & 1 ? Semantics::Eager : Semantics::Cuda;
  o.cuda_fma_epilogue = flags & 2;
  o.cuda_flush_subnormals = flags & 4;
  o.eager_scale = flags & 8 ? EagerScale::Reciprocal : EagerScale::Divide;
  o.record_trace = flags & 16;
  o.cuda_any_block_size = flags & 32;
  W4a8Layer l;
  constexpr std::size_t kGroups[] = {4, 8, 16, 32, 64};
  constexpr std::size_t kBlocks[] = {4, 16, 64, 256};
  l.group_size = kGroups[shape % 5];
  l.convrot_groupsize = o.semantics == Semantics::Cuda && !o.cuda_any_block_size ? 256 : kBlocks[shape / 5 % 4];
  const std::size_t unit = std::max<std::size_t>({16, l.group_size, l.convrot_groupsize});  // powers of 2: the lcm
  l.k = unit * (shape / 20 % 2 + 1);
  l.n = types / 16 % 6 + 1;
  Activations x;
  x.dtype = kTypes[types % 3];
  x.m = run % 4 + 1;
  if (types / 4 % 4 != 3) o.out_dtype = kTypes[types / 4 % 4];
  constexpr GemmKernel kKernels[] = {GemmKernel::Scalar, GemmKernel::Avx2, GemmKernel::Auto, GemmKernel::Avx512Vnni};
  const W4a8FastConfig config{static_cast<unsigned>(run / 4 % 3 + 1), kKernels[run / 16 % 4]};
  for (std::size_t i = 0; i < l.n * l.k / 2; ++i) l.weight.push_back(in.byte());
  for (std::size_t i = 0; i < l.n * (l.k / l.group_size); ++i) l.s_rel.push_back(in.value());
  for (std::size_t i = 0; i < l.n; ++i) l.s_channel.push_back(in.value());
  if (flags & 64) {
    std::array<float, 16> cb{};
    for (float& v : cb) v = in.value();
    l.codebook = cb;
  }
  if (flags & 128) {
    l.correction.emplace();
    for (std::size_t i = 0; i < l.n * (l.k / l.group_size); ++i) l.correction->push_back(in.value());
  }
  if (run & 64) {
    l.bias.emplace();
    for (std::size_t i = 0; i < l.n; ++i) l.bias->push_back(in.value());
  }
  // x: every value of T_x; an all-zero row when the selector byte is 0.
  for (std::size_t m = 0; m < x.m; ++m) {
    const bool zero_row = in.byte() == 0;
    for (std::size_t k = 0; k < l.k; ++k) x.values.push_back(zero_row ? 0.0f : round_to(x.dtype, in.value()));
  }
  return w4a8_fast_differs(l, x, o, config);
}

}  // namespace safespec
