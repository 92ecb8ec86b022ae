// The C API's W4A8 linear, its intermediates and the number-format codecs
// (include/safespec/numerics.h): the caller's buffers into the reference's
// structs, then the very functions `safespec linear` runs, so the two give
// the same bits.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "safespec/safespec.h"
#include "spec/number_formats.hpp"
#include "src/c_api/numerics_support.hpp"
#include "src/parse/layer_io.hpp"
#include "src/commands/linear.hpp"
#include "src/numerics/w4a8_fast.hpp"

namespace {

using namespace safespec;
using namespace safespec::c_api;

static_assert(SAFESPEC_DTYPE_U8 == static_cast<int>(Dtype::U8));
static_assert(SAFESPEC_DTYPE_F8_E4M3 == static_cast<int>(Dtype::F8_E4M3));
static_assert(SAFESPEC_DTYPE_F16 == static_cast<int>(Dtype::F16));
static_assert(SAFESPEC_DTYPE_BF16 == static_cast<int>(Dtype::BF16));
static_assert(SAFESPEC_DTYPE_F32 == static_cast<int>(Dtype::F32));
static_assert(SAFESPEC_DTYPE_U64 == static_cast<int>(Dtype::U64) && SAFESPEC_DTYPE_U64 + 1 == kDtypeCount);

ApiResult<numerics::W4a8Options> read_options(const safespec_w4a8_options* in) {
  safespec_w4a8_options defaults;
  if (!in) {
    safespec_w4a8_options_init(&defaults);
    in = &defaults;
  }
  // A struct of another layout would be read wrong; refuse it rather than guess.
  if (in->struct_size != sizeof(safespec_w4a8_options))
    return invalid_argument("options: expected struct_size " + std::to_string(sizeof(safespec_w4a8_options)) +
                            " (call safespec_w4a8_options_init), found " + std::to_string(in->struct_size));
  numerics::W4a8Options o;
  switch (in->semantics) {
    case SAFESPEC_SEMANTICS_CUDA: o.semantics = numerics::Semantics::Cuda; break;
    case SAFESPEC_SEMANTICS_EAGER: o.semantics = numerics::Semantics::Eager; break;
    default: return invalid_argument("options: semantics is neither SAFESPEC_SEMANTICS_CUDA nor _EAGER");
  }
  o.cuda_fma_epilogue = in->cuda_fma_epilogue != 0;
  o.cuda_flush_subnormals = in->cuda_flush_subnormals != 0;
  o.eager_scale = in->eager_reciprocal_scale ? numerics::EagerScale::Reciprocal : numerics::EagerScale::Divide;
  o.cuda_any_block_size = in->cuda_any_block_size != 0;
  return o;
}

numerics::FloatType float_type(Dtype d) {
  return d == Dtype::F32 ? numerics::FloatType::F32 : d == Dtype::F16 ? numerics::FloatType::F16 : numerics::FloatType::BF16;
}

bool is_code_codec(safespec_codec c) { return c != SAFESPEC_CODEC_BF16 && c != SAFESPEC_CODEC_F16; }

}  // namespace

extern "C" {

const char* safespec_dtype_name(safespec_dtype dtype) {
  if (static_cast<unsigned>(dtype) >= kDtypeCount) return nullptr;
  return dtype_name(static_cast<Dtype>(dtype)).data();  // the table's names are literals, NUL-terminated
}

safespec_status safespec_w4a8_options_init(safespec_w4a8_options* options) {
  if (!options) return SAFESPEC_INVALID_ARGUMENT;
  *options = safespec_w4a8_options{};
  options->struct_size = sizeof(safespec_w4a8_options);
  options->semantics = SAFESPEC_SEMANTICS_CUDA;
  const numerics::W4a8Options d;
  options->cuda_fma_epilogue = d.cuda_fma_epilogue;
  options->cuda_flush_subnormals = d.cuda_flush_subnormals;
  options->eager_reciprocal_scale = d.eager_scale == numerics::EagerScale::Reciprocal;
  options->cuda_any_block_size = d.cuda_any_block_size;
  return SAFESPEC_OK;
}

safespec_status safespec_w4a8_linear(const safespec_w4a8_layer* layer, const safespec_tensor* x,
                                     const safespec_w4a8_options* options, safespec_buffer* y, safespec_tensors** trace,
                                     safespec_error* error) {
  return numeric_call(error, [&]() -> ApiStatus {
    // A missing output is the caller's mistake whatever the input: said first.
    if (!y || !y->data) return invalid_argument("y: expected an output buffer, found a null pointer");
    auto w = read_w4a8_layer(layer);
    if (!w) return w.error();
    if (auto s = check_tensor(x, "x", {Dtype::F32, Dtype::BF16, Dtype::F16}); !s) return s;
    if (auto s = expect_rank(*x, "x [M, K]", 2); !s) return s;
    const numerics::W4a8Layer& l = w.value();
    if (x->shape[1] != l.k)
      return invalid_input("x: expected shape [M, " + std::to_string(l.k) + "] (the weight is [N, K] = [" +
                           std::to_string(l.n) + ", " + std::to_string(l.k) + "]), found " + shape_text(shape_of(*x)));
    auto o = read_options(options);
    if (!o) return o.error();
    o.value().record_trace = trace != nullptr;
    const numerics::Activations a{static_cast<std::size_t>(x->shape[0]), float_type(dtype_of(*x)), floats_of(*x)};
    auto out = numerics::w4a8_linear_fast(l, a, o.value());
    if (!out) return refused(out.error());
    const std::string what = "y [" + std::to_string(a.m) + ", " + std::to_string(l.n) + "]";
    if (auto s = write_values(y, what, out.value().y, {safespec::dtype_of(out.value().out_dtype)}); !s) return s;
    if (trace) {
      auto d = w4a8_dump_tensors(l, a, out.value(), o.value().semantics);
      if (!d) return refused(d.error());
      *trace = tensor_list(std::move(d).value()).release();
    }
    return Unit{};
  });
}

safespec_status safespec_dequant_w4a8(const safespec_w4a8_layer* layer, safespec_buffer* out, safespec_error* error) {
  return numeric_call(error, [&]() -> ApiStatus {
    auto w = read_w4a8_layer(layer);
    if (!w) return w.error();
    auto m = w4a8_dequant_f32(w.value());
    if (!m) return refused(m.error());
    const std::string what = "weight [" + std::to_string(m.value().rows) + ", " + std::to_string(m.value().cols) + "]";
    return write_values(out, what, m.value().v, {Dtype::F32});
  });
}

safespec_status safespec_tensors_count(const safespec_tensors* tensors, size_t* count) {
  if (!tensors || !count) return SAFESPEC_INVALID_ARGUMENT;
  *count = tensors->views.size();
  return SAFESPEC_OK;
}

safespec_status safespec_tensors_get(const safespec_tensors* tensors, size_t index, safespec_tensor_view* out) {
  if (!tensors || !out) return SAFESPEC_INVALID_ARGUMENT;
  if (index >= tensors->views.size()) return SAFESPEC_OUT_OF_RANGE;
  *out = tensors->views[index];
  return SAFESPEC_OK;
}

const safespec_tensor_view* safespec_tensors_find(const safespec_tensors* tensors, const char* name) {
  if (!tensors || !name) return nullptr;
  for (const safespec_tensor_view& v : tensors->views)
    if (std::strcmp(v.name, name) == 0) return &v;
  return nullptr;
}

void safespec_tensors_free(safespec_tensors* tensors) { delete tensors; }

safespec_status safespec_decode(safespec_codec codec, const void* codes, size_t count, float* values,
                                safespec_error* error) {
  return numeric_call(error, [&]() -> ApiStatus {
    if (static_cast<unsigned>(codec) > SAFESPEC_CODEC_F16) return invalid_argument("codec: unknown value");
    if (count > 0 && (!codes || !values)) return invalid_argument("codes, values: expected buffers, found a null pointer");
    const auto* b = static_cast<const std::uint8_t*>(codes);
    for (std::size_t i = 0; i < count; ++i) {
      std::uint16_t u = 0;
      if (!is_code_codec(codec)) std::memcpy(&u, b + 2 * i, 2);
      switch (codec) {
        case SAFESPEC_CODEC_E4M3FN: values[i] = num::decode_e4m3fn(b[i]); break;
        case SAFESPEC_CODEC_E5M2: values[i] = num::decode_e5m2(b[i]); break;
        case SAFESPEC_CODEC_E8M0_KITCHEN: values[i] = num::decode_e8m0(b[i], num::E8M0::Kitchen); break;
        case SAFESPEC_CODEC_E8M0_OCP: values[i] = num::decode_e8m0(b[i], num::E8M0::Ocp); break;
        case SAFESPEC_CODEC_E2M1: values[i] = num::decode_e2m1(b[i]); break;
        case SAFESPEC_CODEC_BF16: values[i] = num::bf16_to_f32(u); break;
        case SAFESPEC_CODEC_F16: values[i] = num::f16_to_f32(u); break;
        default: break;  // unreachable: refused above
      }
    }
    return Unit{};
  });
}

safespec_status safespec_encode(safespec_codec codec, const float* values, size_t count, void* codes,
                                safespec_error* error) {
  return numeric_call(error, [&]() -> ApiStatus {
    if (static_cast<unsigned>(codec) > SAFESPEC_CODEC_F16) return invalid_argument("codec: unknown value");
    if (codec == SAFESPEC_CODEC_E5M2 || codec == SAFESPEC_CODEC_E8M0_KITCHEN || codec == SAFESPEC_CODEC_E8M0_OCP)
      return ApiError{SAFESPEC_UNSUPPORTED, "", "codec: the specification defines no encoder for E5M2 or E8M0"};
    if (count > 0 && (!codes || !values)) return invalid_argument("values, codes: expected buffers, found a null pointer");
    auto* b = static_cast<std::uint8_t*>(codes);
    for (std::size_t i = 0; i < count; ++i) {
      if (codec == SAFESPEC_CODEC_E4M3FN) {
        b[i] = num::f32_to_e4m3fn(values[i]);
      } else if (codec == SAFESPEC_CODEC_E2M1) {
        b[i] = num::f32_to_e2m1(values[i]);
      } else {
        const std::uint16_t u = codec == SAFESPEC_CODEC_BF16 ? num::f32_to_bf16(values[i]) : num::f32_to_f16(values[i]);
        std::memcpy(b + 2 * i, &u, 2);
      }
    }
    return Unit{};
  });
}

}  // extern "C"
