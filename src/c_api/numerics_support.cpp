#include "src/c_api/numerics_support.hpp"

#include "spec/quant/w4a8_geometry.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "spec/checked_math.hpp"
#include "spec/number_formats.hpp"
#include "spec/quant/w4a8_geometry.hpp"
#include "spec/rule_catalogue.hpp"

namespace safespec::c_api {

namespace {

std::string size_text(std::uint64_t n) { return std::to_string(n); }

bool known(safespec_dtype d) { return static_cast<unsigned>(d) < kDtypeCount; }

}  // namespace

ApiError invalid_argument(std::string message) { return {SAFESPEC_INVALID_ARGUMENT, "", std::move(message)}; }
ApiError invalid_input(std::string message) { return {SAFESPEC_INVALID_INPUT, "", std::move(message)}; }
ApiError refused(const Error& e) {
  return {SAFESPEC_INVALID_INPUT, std::string(rule_name(e.rule)), e.where.text() + ": " + e.message};
}

void fill_error(safespec_error* error, std::string_view rule, std::string_view message) noexcept {
  if (!error) return;
  // Cut before a continuation byte, so a truncated message stays UTF-8.
  auto copy = [](char* to, std::size_t capacity, std::string_view from) {
    std::size_t n = std::min(from.size(), capacity - 1);
    if (n < from.size())
      while (n > 0 && (static_cast<unsigned char>(from[n]) & 0xC0) == 0x80) --n;
    std::memcpy(to, from.data(), n);
    to[n] = '\0';
  };
  copy(error->rule, sizeof error->rule, rule);
  copy(error->message, sizeof error->message, message);
  error->message_size = message.size();
}

std::string dtype_list(std::initializer_list<Dtype> allowed) {
  std::string out;
  std::size_t i = 0;
  for (Dtype d : allowed) {
    if (i > 0) out += i + 1 == allowed.size() ? " or " : ", ";
    out += dtype_name(d);
    ++i;
  }
  return out;
}

bool present(const safespec_tensor* t) { return t && t->data; }
Dtype dtype_of(const safespec_tensor& t) { return static_cast<Dtype>(t.dtype); }

std::vector<std::uint64_t> shape_of(const safespec_tensor& t) {
  return std::vector<std::uint64_t>(t.shape, t.shape + std::min<std::uint32_t>(t.rank, SAFESPEC_MAX_RANK));
}

std::uint64_t element_count(const safespec_tensor& t) {
  std::uint64_t n = 1;
  for (std::uint32_t i = 0; i < t.rank; ++i) n *= t.shape[i];  // check_tensor proved it fits
  return n;
}

ApiStatus check_tensor(const safespec_tensor* t, const char* what, std::initializer_list<Dtype> allowed, bool optional) {
  if (!present(t)) {
    if (optional) return Unit{};
    return invalid_argument(std::string(what) + ": expected a tensor, found a null pointer");
  }
  if (!known(t->dtype)) return invalid_argument(std::string(what) + ": unknown dtype " + size_text(t->dtype));
  if (t->rank > SAFESPEC_MAX_RANK)
    return invalid_argument(std::string(what) + ": expected rank <= 4, found " + size_text(t->rank));
  const Dtype d = dtype_of(*t);
  if (std::find(allowed.begin(), allowed.end(), d) == allowed.end())
    return invalid_input(std::string(what) + ": expected dtype " + dtype_list(allowed) + ", found " +
                         std::string(dtype_name(d)));
  std::optional<std::uint64_t> bytes = dtype_element_bytes(d);
  for (std::uint32_t i = 0; i < t->rank && bytes; ++i) bytes = checked_mul(*bytes, t->shape[i]);
  if (!bytes || *bytes != t->size_bytes)
    return invalid_argument(std::string(what) + ": expected size_bytes " +
                            (bytes ? size_text(*bytes) : std::string("past 2^64")) + " for " +
                            std::string(dtype_name(d)) + " " + shape_text(shape_of(*t)) + ", found " +
                            size_text(t->size_bytes));
  return Unit{};
}

ApiStatus expect_shape(const safespec_tensor& t, const char* what, std::initializer_list<std::uint64_t> shape) {
  const std::vector<std::uint64_t> have = shape_of(t);
  if (std::equal(have.begin(), have.end(), shape.begin(), shape.end())) return Unit{};
  const std::vector<std::uint64_t> want(shape);
  return invalid_input(std::string(what) + ": expected shape " + shape_text(want) + ", found " + shape_text(have));
}

ApiStatus expect_rank(const safespec_tensor& t, const char* what, std::uint32_t rank) {
  if (t.rank == rank) return Unit{};
  return invalid_input(std::string(what) + ": expected a " + size_text(rank) + "-D tensor, found shape " +
                       shape_text(shape_of(t)));
}

std::span<const std::uint8_t> bytes_of(const safespec_tensor& t) {
  return {static_cast<const std::uint8_t*>(t.data), t.size_bytes};
}

std::vector<float> floats_of(const safespec_tensor& t) {
  const std::span<const std::uint8_t> b = bytes_of(t);
  std::vector<float> out;
  switch (dtype_of(t)) {
    case Dtype::F32:
      out.resize(b.size() / 4);
      std::memcpy(out.data(), b.data(), out.size() * 4);
      break;
    case Dtype::BF16:
    case Dtype::F16: {
      out.resize(b.size() / 2);
      const bool bf16 = dtype_of(t) == Dtype::BF16;
      for (std::size_t i = 0; i < out.size(); ++i) {
        std::uint16_t u;
        std::memcpy(&u, b.data() + 2 * i, 2);
        out[i] = bf16 ? num::bf16_to_f32(u) : num::f16_to_f32(u);
      }
      break;
    }
    default:  // U8 / F8_E4M3 scales: E4M3 codes (comfy-kitchen views U8 as E4M3)
      out.resize(b.size());
      for (std::size_t i = 0; i < b.size(); ++i) out[i] = num::decode_e4m3fn(b[i]);
  }
  return out;
}

deq::Mat<std::uint8_t> byte_matrix(const safespec_tensor& t) {
  const std::span<const std::uint8_t> b = bytes_of(t);
  return deq::Mat<std::uint8_t>(t.shape[0], t.shape[1], std::vector<std::uint8_t>(b.begin(), b.end()));
}

ApiStatus write_values(safespec_buffer* out, const std::string& what, std::span<const float> values,
                       std::initializer_list<Dtype> allowed) {
  if (!out || !out->data) return invalid_argument(what + ": expected an output buffer, found a null pointer");
  if (!known(out->dtype)) return invalid_argument(what + ": unknown dtype " + size_text(out->dtype));
  const Dtype d = static_cast<Dtype>(out->dtype);
  if (std::find(allowed.begin(), allowed.end(), d) == allowed.end())
    return invalid_argument(what + ": expected an output dtype " + dtype_list(allowed) + ", found " +
                            std::string(dtype_name(d)));
  const std::uint64_t need = values.size() * dtype_element_bytes(d);
  if (out->size_bytes != need)
    return invalid_argument(what + ": expected an output buffer of " + size_text(need) + " bytes (" +
                            std::string(dtype_name(d)) + "), found " + size_text(out->size_bytes));
  auto* to = static_cast<std::uint8_t*>(out->data);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (d == Dtype::F32) {
      std::memcpy(to + 4 * i, &values[i], 4);
    } else {  // values of T already: the conversion is exact
      const std::uint16_t u = d == Dtype::BF16 ? num::f32_to_bf16(values[i]) : num::f32_to_f16(values[i]);
      std::memcpy(to + 2 * i, &u, 2);
    }
  }
  return Unit{};
}

ApiResult<numerics::W4a8Layer> read_w4a8_layer(const safespec_w4a8_layer* l) {
  if (!l) return invalid_argument("layer: expected a safespec_w4a8_layer, found a null pointer");
  const std::initializer_list<Dtype> floats{Dtype::F32, Dtype::BF16, Dtype::F16};
  for (const ApiStatus& s : {check_tensor(&l->weight, "weight", {Dtype::I8, Dtype::U8}),
                             check_tensor(&l->s_rel, "s_rel", {Dtype::F8_E4M3, Dtype::U8, Dtype::F32}),
                             check_tensor(&l->s_channel, "s_channel", {Dtype::F32}),
                             check_tensor(&l->codebook, "codebook", {Dtype::F32}, true),
                             check_tensor(&l->correction, "correction", floats, true),
                             check_tensor(&l->bias, "bias", floats, true)})
    if (!s) return s.error();
  if (auto s = expect_rank(l->weight, "weight [N, K/2]", 2); !s) return s.error();
  const std::uint64_t n = l->weight.shape[0];
  // A weight 3K/4 wide is 6-bit storage, K from the scale grid, as the
  // checkpoint reader reads it (spec/quant/w4a8_geometry.hpp).
  const auto k6 = quant::six_bit_k(shape_of(l->weight), shape_of(l->s_rel), l->group_size);
  const auto k = k6 ? k6 : checked_mul(l->weight.shape[1], 2);
  if (!k) return invalid_input("weight: K = 2 * packed columns overflows 64 bits");
  // validate() names G < 4 with its rule; here only the division needs G > 0.
  const std::uint64_t groups = l->group_size == 0 ? 0 : *k / l->group_size;
  if (l->group_size != 0) {
    if (auto s = expect_shape(l->s_rel, "s_rel [N, K/G]", {n, groups}); !s) return s.error();
  }
  if (auto s = expect_shape(l->s_channel, "s_channel [N]", {n}); !s) return s.error();
  if (present(&l->codebook))
    if (auto s = expect_shape(l->codebook, "codebook [16]", {16}); !s) return s.error();
  if (present(&l->correction) && l->group_size != 0)
    if (auto s = expect_shape(l->correction, "correction [K/G, N]", {groups, n}); !s) return s.error();
  if (present(&l->bias))
    if (auto s = expect_shape(l->bias, "bias [N]", {n}); !s) return s.error();

  numerics::W4a8Layer out;
  out.n = static_cast<std::size_t>(n);
  out.k = static_cast<std::size_t>(*k);
  out.bits = k6 ? 6 : 4;
  out.group_size = static_cast<std::size_t>(l->group_size);
  out.convrot_groupsize = static_cast<std::size_t>(l->convrot_groupsize);
  const std::span<const std::uint8_t> w = bytes_of(l->weight);
  out.weight.assign(w.begin(), w.end());
  out.s_rel = floats_of(l->s_rel);
  out.s_channel = floats_of(l->s_channel);
  if (present(&l->codebook)) {
    const std::vector<float> cb = floats_of(l->codebook);
    std::array<float, 16> a{};
    std::copy_n(cb.begin(), 16, a.begin());
    out.codebook = a;
  }
  if (present(&l->correction)) out.correction = floats_of(l->correction);
  if (present(&l->bias)) out.bias = floats_of(l->bias);
  return out;
}

std::unique_ptr<safespec_tensors> tensor_list(std::vector<NamedTensor> list) {
  auto out = std::make_unique<safespec_tensors>();
  out->tensors = std::move(list);
  for (const NamedTensor& t : out->tensors) {
    safespec_tensor_view v{};
    v.name = t.name.c_str();
    v.dtype = static_cast<safespec_dtype>(t.dtype);
    v.rank = static_cast<std::uint32_t>(t.shape.size());
    std::copy(t.shape.begin(), t.shape.end(), v.shape);
    v.data = t.bytes.data();
    v.size_bytes = t.bytes.size();
    out->views.push_back(v);
  }
  return out;
}

}  // namespace safespec::c_api
