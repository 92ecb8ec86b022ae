// The C API's dequantization of the formats other than W4A8
// (include/safespec/numerics.h): each operand checked as `safespec dequant`'s
// reader (src/parse/layer_readers.cpp) checks the checkpoint tensor it stands for, then
// the fast paths of src/numerics/dequant_fast.hpp, which `safespec dequant`
// runs too: bit-identical to spec/numerics/dequant.hpp's references, errors
// included (props/prop_dequant_fast_test.cpp).
#include <cstring>
#include <string>
#include <vector>

#include "safespec/safespec.h"
#include "spec/numerics/dequant.hpp"
#include "src/c_api/numerics_support.hpp"
#include "src/numerics/dequant_fast.hpp"

namespace {

using namespace safespec;
using namespace safespec::c_api;

// The reference's result into the caller's buffer of dtype T.
ApiStatus deliver(const Result<deq::Mat<float>>& m, Dtype t, safespec_buffer* out) {
  if (!m) return refused(m.error());
  const std::string what = "weight [" + std::to_string(m.value().rows) + ", " + std::to_string(m.value().cols) + "]";
  return write_values(out, what, m.value().v, {t});
}

// The output dtype T the caller asks for, one of `allowed`.
ApiResult<Dtype> out_dtype(const safespec_buffer* out, std::initializer_list<Dtype> allowed) {
  if (!out || !out->data) return invalid_argument("out: expected an output buffer, found a null pointer");
  if (static_cast<unsigned>(out->dtype) >= kDtypeCount) return invalid_argument("out: unknown dtype");
  const auto d = static_cast<Dtype>(out->dtype);
  for (Dtype a : allowed)
    if (a == d) return d;
  return invalid_argument("out: expected dtype " + dtype_list(allowed) + ", found " + std::string(dtype_name(d)));
}

// A one-element scale (rank 0, or every dimension 1) as binary32.
ApiResult<float> one_value(const safespec_tensor* t, const char* what) {
  if (auto s = check_tensor(t, what, kFloats); !s) return s.error();
  if (element_count(*t) != 1)
    return invalid_input(std::string(what) + ": expected one element, found shape " + shape_text(shape_of(*t)));
  return floats_of(*t)[0];
}

ApiStatus two_d(const safespec_tensor* t, const char* what, std::initializer_list<Dtype> allowed) {
  if (auto s = check_tensor(t, what, allowed); !s) return s;
  return expect_rank(*t, what, 2);
}

// A nvfp4 / mxfp8 logical size: 0, 0 for the whole padded matrix.
void logical(std::uint64_t& rows, std::uint64_t& cols, std::uint64_t padded_rows, std::uint64_t padded_cols) {
  if (rows == 0 && cols == 0) rows = padded_rows, cols = padded_cols;
}

}  // namespace

extern "C" {

safespec_status safespec_dequant_fp8(const safespec_tensor* codes, const safespec_tensor* scale, safespec_buffer* out,
                                     safespec_error* error) {
  return numeric_call(error, [&]() -> ApiStatus {
    auto t = out_dtype(out, kFloats);
    if (!t) return t.error();
    if (auto s = two_d(codes, "codes", {Dtype::F8_E4M3, Dtype::F8_E5M2}); !s) return s;
    auto sc = one_value(scale, "scale");
    if (!sc) return sc.error();
    const deq::Fp8 kind = dtype_of(*codes) == Dtype::F8_E5M2 ? deq::Fp8::E5M2 : deq::Fp8::E4M3;
    return deliver(numerics::dequant_fp8_fast({kind, byte_matrix(*codes), sc.value()}, t.value()), t.value(), out);
  });
}

safespec_status safespec_dequant_int8(const safespec_tensor* q, const safespec_tensor* scale,
                                      uint64_t convrot_groupsize, safespec_buffer* out, safespec_error* error) {
  return numeric_call(error, [&]() -> ApiStatus {
    auto t = out_dtype(out, kFloats);
    if (!t) return t.error();
    if (auto s = two_d(q, "q", {Dtype::I8, Dtype::U8}); !s) return s;
    if (auto s = check_tensor(scale, "scale", kFloats); !s) return s;
    const std::uint64_t n = q->shape[0];
    const bool rowwise = scale->rank == 2 && scale->shape[0] == n && scale->shape[1] == 1;
    if (!rowwise && element_count(*scale) != 1)  // L14: [N] would broadcast along K
      return invalid_input("scale: expected shape () or [" + std::to_string(n) + ", 1], found " +
                           shape_text(shape_of(*scale)));
    const deq::Mat<std::uint8_t> b = byte_matrix(*q);
    std::vector<std::int8_t> v(b.v.size());
    std::memcpy(v.data(), b.v.data(), v.size());
    deq::Int8Weight w{deq::Mat<std::int8_t>(b.rows, b.cols, std::move(v)), floats_of(*scale), convrot_groupsize};
    return deliver(numerics::dequant_int8_fast(w, t.value()), t.value(), out);
  });
}

safespec_status safespec_dequant_convrot_w4a4(const safespec_tensor* packed, const safespec_tensor* scale,
                                              uint64_t convrot_groupsize, safespec_buffer* out, safespec_error* error) {
  return numeric_call(error, [&]() -> ApiStatus {
    auto t = out_dtype(out, kFloats);
    if (!t) return t.error();
    if (auto s = two_d(packed, "packed", {Dtype::I8, Dtype::U8}); !s) return s;
    if (auto s = check_tensor(scale, "scale", kFloats); !s) return s;
    if (auto s = expect_shape(*scale, "scale [N]", {packed->shape[0]}); !s) return s;
    deq::W4a4Weight w{byte_matrix(*packed), floats_of(*scale), convrot_groupsize};
    return deliver(numerics::dequant_convrot_w4a4_fast(w, t.value()), t.value(), out);
  });
}

safespec_status safespec_dequant_nvfp4(const safespec_tensor* packed, const safespec_tensor* block_scales,
                                       const safespec_tensor* global_scale, uint64_t rows, uint64_t cols,
                                       safespec_buffer* out, safespec_error* error) {
  return numeric_call(error, [&]() -> ApiStatus {
    auto t = out_dtype(out, kFloats);
    if (!t) return t.error();
    if (auto s = two_d(packed, "packed", {Dtype::U8, Dtype::I8}); !s) return s;
    if (auto s = two_d(block_scales, "block_scales", {Dtype::F8_E4M3, Dtype::U8}); !s) return s;
    auto g = one_value(global_scale, "global_scale");
    if (!g) return g.error();
    if (packed->shape[1] > UINT64_MAX / 2) return invalid_input("packed: K = 2 * packed columns overflows 64 bits");
    logical(rows, cols, packed->shape[0], 2 * packed->shape[1]);
    deq::Nvfp4Weight w{byte_matrix(*packed), byte_matrix(*block_scales), g.value(), rows, cols};
    return deliver(numerics::dequant_nvfp4_fast(w, t.value()), t.value(), out);
  });
}

safespec_status safespec_dequant_mxfp8(const safespec_tensor* codes, const safespec_tensor* block_scales, uint64_t rows,
                                       uint64_t cols, safespec_e8m0 e8m0, safespec_buffer* out, safespec_error* error) {
  return numeric_call(error, [&]() -> ApiStatus {
    auto t = out_dtype(out, kFloats);
    if (!t) return t.error();
    if (e8m0 != SAFESPEC_E8M0_KITCHEN && e8m0 != SAFESPEC_E8M0_OCP) return invalid_argument("e8m0: unknown value");
    if (auto s = two_d(codes, "codes", {Dtype::F8_E4M3, Dtype::U8}); !s) return s;
    if (auto s = two_d(block_scales, "block_scales", {Dtype::U8, Dtype::F8_E8M0}); !s) return s;
    logical(rows, cols, codes->shape[0], codes->shape[1]);
    deq::Mxfp8Weight w{byte_matrix(*codes), byte_matrix(*block_scales), rows, cols,
                       e8m0 == SAFESPEC_E8M0_OCP ? num::E8M0::Ocp : num::E8M0::Kitchen};
    return deliver(numerics::dequant_mxfp8_fast(w, t.value()), t.value(), out);
  });
}

safespec_status safespec_dequant_awq(const safespec_tensor* packed, const safespec_tensor* scale,
                                     const safespec_tensor* zeros, uint64_t group_size, safespec_buffer* out,
                                     safespec_error* error) {
  return numeric_call(error, [&]() -> ApiStatus {
    if (auto s = two_d(packed, "packed", {Dtype::I8, Dtype::U8}); !s) return s;
    if (auto s = two_d(scale, "scale", kFloats); !s) return s;
    const Dtype sd = dtype_of(*scale);
    if (auto s = check_tensor(zeros, "zeros", {sd}); !s) return s;
    if (auto s = expect_shape(*zeros, "zeros [K/G, N]", {scale->shape[0], scale->shape[1]}); !s) return s;
    // §11 computes in the scale dtype S; F32 receives the same S values.
    auto t = out_dtype(out, {sd, Dtype::F32});
    if (!t) return t.error();
    const deq::Mat<float> s(scale->shape[0], scale->shape[1], floats_of(*scale));
    const deq::Mat<float> z(zeros->shape[0], zeros->shape[1], floats_of(*zeros));
    deq::AwqWeight w{byte_matrix(*packed), s, z, group_size, sd};
    return deliver(numerics::dequant_awq_w4a16_fast(w), t.value(), out);
  });
}

}  // extern "C"
