// The C API's int8_tensorwise and convrot_w4a4 linears
// (include/safespec/numerics.h): each operand checked as `safespec linear`'s
// readers (src/parse/layer_readers.cpp: read_int8, read_w4a4, read_bias) check the
// checkpoint tensor it stands for, then the very reference `linear_int` in
// src/commands/linear_paths.cpp calls (spec/numerics/int_linear.hpp), with the same
// device, backend and intermediates, so the two give the same bits.
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "safespec/safespec.h"
#include "spec/checked_math.hpp"
#include "spec/numerics/int_linear.hpp"
#include "src/c_api/numerics_support.hpp"
#include "src/parse/layer_io.hpp"

namespace {

using namespace safespec;
using namespace safespec::c_api;

// An enum argument of another value is the caller's mistake, said before any
// tensor is read (numerics.h: the MIN/MAX sentinels make it representable).
ApiStatus check_semantics(safespec_semantics s) {
  if (s == SAFESPEC_SEMANTICS_CUDA || s == SAFESPEC_SEMANTICS_EAGER) return Unit{};
  return invalid_argument("semantics: expected SAFESPEC_SEMANTICS_CUDA or _EAGER, found " +
                          std::to_string(static_cast<int>(s)));
}

// The bias [N] of either layer, absent or binary32 values (read_bias).
ApiResult<std::optional<std::vector<float>>> read_bias(const safespec_tensor& bias, std::uint64_t n) {
  if (!present(&bias)) return std::optional<std::vector<float>>{};
  if (auto s = expect_shape(bias, "bias [N]", {n}); !s) return s.error();
  return std::optional<std::vector<float>>(floats_of(bias));
}

// x [M, K] of F32, BF16 or F16 as the reference's input, on a CUDA device as
// `safespec linear` runs it (eager.4's multiply by f32(1/127)).
ApiResult<deq::LinearInput> read_x(const safespec_tensor* x, std::uint64_t n, std::uint64_t k,
                                   std::optional<std::vector<float>> bias) {
  if (auto s = check_tensor(x, "x", kFloats); !s) return s.error();
  if (auto s = expect_rank(*x, "x [M, K]", 2); !s) return s.error();
  if (x->shape[1] != k)
    return invalid_input("x: expected shape [M, " + std::to_string(k) + "] (the weight is [N, K] = [" +
                         std::to_string(n) + ", " + std::to_string(k) + "]), found " + shape_text(shape_of(*x)));
  return deq::LinearInput{deq::Mat<float>(x->shape[0], k, floats_of(*x)), dtype_of(*x), std::move(bias),
                          deq::Device::Gpu};
}

template <class V>
std::vector<std::uint8_t> le_bytes(const std::vector<V>& values) {
  std::vector<std::uint8_t> out(values.size() * sizeof(V));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto u = static_cast<std::uint64_t>(values[i]);  // two's complement, then its low bytes
    for (std::size_t b = 0; b < sizeof(V); ++b) out[i * sizeof(V) + b] = static_cast<std::uint8_t>(u >> (8 * b));
  }
  return out;
}

// The reference's result into y and, on request, the intermediates under the
// names, dtypes and shapes `linear --dump` writes them (linear_int).
ApiStatus deliver(const Result<deq::LinearTrace>& r, Dtype t, safespec_buffer* y, safespec_tensors** trace) {
  if (!r) return refused(r.error());
  const deq::LinearTrace& tr = r.value();
  const auto ft = *float_type_of(t);
  const std::string what = "y [" + std::to_string(tr.y.rows) + ", " + std::to_string(tr.y.cols) + "]";
  if (auto s = write_values(y, what, tr.y.v, {t}); !s) return s;
  if (!trace) return Unit{};
  std::vector<NamedTensor> more;
  more.push_back({"rotated", t, {tr.xr.rows, tr.xr.cols}, encode_floats(ft, tr.xr.v)});
  more.push_back({"xs", Dtype::F32, {tr.xr.rows}, encode_floats(numerics::FloatType::F32, tr.x_scale)});
  more.push_back({"xq", Dtype::I8, {tr.xq.rows, tr.xq.cols}, le_bytes(tr.xq.v)});
  more.push_back({"acc", Dtype::I64, {tr.acc.rows, tr.acc.cols}, le_bytes(tr.acc.v)});
  more.push_back({"y", t, {tr.y.rows, tr.y.cols}, encode_floats(ft, tr.y.v)});
  *trace = tensor_list(std::move(more)).release();
  return Unit{};
}

}  // namespace

extern "C" {

safespec_status safespec_int8_linear(const safespec_int8_layer* layer, const safespec_tensor* x,
                                     safespec_semantics semantics, safespec_buffer* y, safespec_tensors** trace,
                                     safespec_error* error) {
  return numeric_call(error, [&]() -> ApiStatus {
    // A missing output is the caller's mistake whatever the input: said first.
    if (!y || !y->data) return invalid_argument("y: expected an output buffer, found a null pointer");
    if (!layer) return invalid_argument("layer: expected a safespec_int8_layer, found a null pointer");
    if (auto s = check_semantics(semantics); !s) return s;
    if (auto s = check_tensor(&layer->weight, "weight", {Dtype::I8, Dtype::U8}); !s) return s;
    if (auto s = check_tensor(&layer->weight_scale, "weight_scale", kFloats); !s) return s;
    if (auto s = check_tensor(&layer->bias, "bias", kFloats, true); !s) return s;
    if (auto s = expect_rank(layer->weight, "weight [N, K]", 2); !s) return s;
    const std::uint64_t n = layer->weight.shape[0], k = layer->weight.shape[1];
    const safespec_tensor& sc = layer->weight_scale;
    const bool rowwise = sc.rank == 2 && sc.shape[0] == n && sc.shape[1] == 1;
    if (!rowwise && element_count(sc) != 1)  // L14: [N] would broadcast along K
      return invalid_input("weight_scale: expected shape () or [" + std::to_string(n) + ", 1], found " +
                           shape_text(shape_of(sc)));
    auto bias = read_bias(layer->bias, n);
    if (!bias) return bias.error();
    auto in = read_x(x, n, k, std::move(bias).value());
    if (!in) return in.error();
    const deq::Mat<std::uint8_t> b = byte_matrix(layer->weight);
    std::vector<std::int8_t> q(b.v.size());
    std::memcpy(q.data(), b.v.data(), q.size());
    const deq::Int8Weight w{deq::Mat<std::int8_t>(n, k, std::move(q)), floats_of(sc), layer->convrot_groupsize};
    // semantics changes nothing here: `linear_int` runs one path for int8.
    return deliver(deq::int8_linear(in.value(), w), in.value().t, y, trace);
  });
}

safespec_status safespec_w4a4_linear(const safespec_w4a4_layer* layer, const safespec_tensor* x,
                                     safespec_semantics semantics, safespec_buffer* y, safespec_tensors** trace,
                                     safespec_error* error) {
  return numeric_call(error, [&]() -> ApiStatus {
    if (!y || !y->data) return invalid_argument("y: expected an output buffer, found a null pointer");
    if (!layer) return invalid_argument("layer: expected a safespec_w4a4_layer, found a null pointer");
    if (auto s = check_semantics(semantics); !s) return s;
    const safespec_w4a4_linear_dtype ld = layer->linear_dtype;
    if (ld != SAFESPEC_W4A4_LINEAR_INT4 && ld != SAFESPEC_W4A4_LINEAR_INT8)
      return invalid_argument("linear_dtype: expected SAFESPEC_W4A4_LINEAR_INT4 or _INT8, found " +
                              std::to_string(static_cast<int>(ld)));
    if (auto s = check_tensor(&layer->weight, "weight", {Dtype::I8, Dtype::U8}); !s) return s;
    if (auto s = check_tensor(&layer->weight_scale, "weight_scale", kFloats); !s) return s;
    if (auto s = check_tensor(&layer->bias, "bias", kFloats, true); !s) return s;
    if (auto s = expect_rank(layer->weight, "weight [N, K/2]", 2); !s) return s;
    const std::uint64_t n = layer->weight.shape[0];
    const auto k = checked_mul(layer->weight.shape[1], 2);
    if (!k) return invalid_input("weight: K = 2 * packed columns overflows 64 bits");
    if (auto s = expect_shape(layer->weight_scale, "weight_scale [N]", {n}); !s) return s;
    auto bias = read_bias(layer->bias, n);
    if (!bias) return bias.error();
    auto in = read_x(x, n, *k, std::move(bias).value());
    if (!in) return in.error();
    const deq::W4a4Weight w{byte_matrix(layer->weight), floats_of(layer->weight_scale), layer->convrot_groupsize};
    const auto dt = ld == SAFESPEC_W4A4_LINEAR_INT8 ? deq::W4a4LinearDtype::Int8 : deq::W4a4LinearDtype::Int4;
    const auto be = semantics == SAFESPEC_SEMANTICS_CUDA ? deq::Backend::Cuda : deq::Backend::Eager;
    return deliver(deq::convrot_w4a4_linear(in.value(), w, dt, be), in.value().t, y, trace);
  });
}

}  // extern "C"
