// What the numeric calls of the C API (include/safespec/numerics.h) share:
// reading a caller's tensor descriptor into the reference's plain values,
// writing a result into a caller's buffer, and turning a refusal into a
// status and a safespec_error. Every check runs before a byte is read, so a
// wrong shape or size is an error, never a read past a caller's buffer.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "safespec/safespec.h"
#include "spec/dtype.hpp"
#include "spec/numerics/float_type.hpp"
#include "spec/numerics/matrix.hpp"
#include "spec/numerics/w4a8_reference.hpp"
#include "spec/result.hpp"
#include "src/commands/compare.hpp"
#include "src/commands/linear.hpp"

// The intermediates of one call (safespec_tensors in numerics.h). The views
// point into `tensors`, which is never resized after they are made.
struct safespec_tensors {
  std::vector<safespec::NamedTensor> tensors;
  std::vector<safespec_tensor_view> views;
};

namespace safespec::c_api {

// The float dtypes a numerics argument may have.
inline constexpr std::initializer_list<Dtype> kFloats{Dtype::F32, Dtype::BF16, Dtype::F16};

struct ApiError {
  safespec_status status = SAFESPEC_INVALID_ARGUMENT;
  std::string rule;  // "" when the specification names none
  std::string message;
};
template <class T>
using ApiResult = Result<T, ApiError>;
using ApiStatus = ApiResult<Unit>;

ApiError invalid_argument(std::string message);
ApiError invalid_input(std::string message);
// A refusal of the numeric reference: its rule id, place and message.
ApiError refused(const Error& e);

// Fills *error (when not null) with a rule and a message, truncated on a
// UTF-8 character boundary; empty strings for SAFESPEC_OK. Never allocates.
void fill_error(safespec_error* error, std::string_view rule, std::string_view message) noexcept;

// Runs a numeric call, the one exception boundary of the numerics: a refusal
// and every exception become a status, with *error filled.
template <class Body>
safespec_status numeric_call(safespec_error* error, Body&& body) noexcept {
  try {
    ApiStatus s = body();
    if (s) {
      fill_error(error, "", "");
      return SAFESPEC_OK;
    }
    fill_error(error, s.error().rule, s.error().message);
    return s.error().status;
  } catch (const std::bad_alloc&) {
    fill_error(error, "", "out of memory");
    return SAFESPEC_OUT_OF_MEMORY;
  } catch (...) {
    fill_error(error, "", "internal error in safespec");
    return SAFESPEC_INTERNAL_ERROR;
  }
}

// A required (or, with optional, possibly absent) input tensor: a known
// dtype among `allowed`, rank within SAFESPEC_MAX_RANK, data present and
// size_bytes equal to its shape's bytes.
ApiStatus check_tensor(const safespec_tensor* t, const char* what, std::initializer_list<Dtype> allowed,
                       bool optional = false);
bool present(const safespec_tensor* t);
Dtype dtype_of(const safespec_tensor& t);
std::vector<std::uint64_t> shape_of(const safespec_tensor& t);
using safespec::shape_text;  // "[2, 3]", as the command's messages write a shape
// `what` must have exactly `shape` (INVALID_INPUT otherwise).
ApiStatus expect_shape(const safespec_tensor& t, const char* what, std::initializer_list<std::uint64_t> shape);
ApiStatus expect_rank(const safespec_tensor& t, const char* what, std::uint32_t rank);
std::uint64_t element_count(const safespec_tensor& t);

std::span<const std::uint8_t> bytes_of(const safespec_tensor& t);
// F32, BF16 or F16 values as binary32; U8 / F8_E4M3 as decoded E4M3.
std::vector<float> floats_of(const safespec_tensor& t);
deq::Mat<std::uint8_t> byte_matrix(const safespec_tensor& t);  // a checked 2-D tensor of 1-byte elements

// Writes values of T into out, whose dtype must be one of `allowed` and
// whose size must be exactly count values of it. `what`: "y [3, 8]".
ApiStatus write_values(safespec_buffer* out, const std::string& what, std::span<const float> values,
                       std::initializer_list<Dtype> allowed);

// The W4A8 layer of a descriptor, every tensor checked as read_w4a8 checks a
// checkpoint's (dtypes, [N, K/2], [N, K/G], [N], [16], [K/G, N]).
ApiResult<numerics::W4a8Layer> read_w4a8_layer(const safespec_w4a8_layer* layer);

std::string dtype_list(std::initializer_list<Dtype> allowed);

// The list handed to the caller as a safespec_tensors (its views made here).
std::unique_ptr<safespec_tensors> tensor_list(std::vector<NamedTensor> list);

}  // namespace safespec::c_api
