#include <algorithm>
#include <cctype>

#include "python/bindings.hpp"

namespace safespec::python {

namespace {

// "bf16", "BF16", "f8_e4m3" and safetensors' own names alike.
std::optional<safespec_dtype> dtype_by_name(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
  if (name == "FLOAT32") name = "F32";
  if (name == "FLOAT16") name = "F16";
  if (name == "BFLOAT16") name = "BF16";
  for (int d = 0; d <= SAFESPEC_DTYPE_U64; ++d)
    if (name == safespec_dtype_name(static_cast<safespec_dtype>(d))) return static_cast<safespec_dtype>(d);
  return std::nullopt;
}

}  // namespace

safespec_dtype dtype_named(const std::string& name) {
  auto d = dtype_by_name(name);
  if (!d) throw py::type_error("unknown dtype name '" + name + "'");
  return *d;
}

safespec_dtype dtype_of(const py::array& a, const std::optional<std::string>& name) {
  if (name) {
    const std::optional<safespec_dtype> d = dtype_named(*name);
    if (static_cast<std::size_t>(a.itemsize()) * 8 != (*d == SAFESPEC_DTYPE_F64 || *d == SAFESPEC_DTYPE_I64 ||
                                                                 *d == SAFESPEC_DTYPE_U64   ? 64
                                                             : *d == SAFESPEC_DTYPE_F32 || *d == SAFESPEC_DTYPE_I32 ||
                                                                     *d == SAFESPEC_DTYPE_U32
                                                                 ? 32
                                                             : *d == SAFESPEC_DTYPE_F16 || *d == SAFESPEC_DTYPE_BF16 ||
                                                                     *d == SAFESPEC_DTYPE_I16 || *d == SAFESPEC_DTYPE_U16
                                                                 ? 16
                                                                 : 8))
      throw py::type_error("dtype " + *name + " does not match the array's " + std::to_string(a.itemsize()) +
                           "-byte elements");
    return *d;
  }
  const char kind = a.dtype().kind();
  const auto size = a.itemsize();
  if (kind == 'f') {
    if (size == 4) return SAFESPEC_DTYPE_F32;
    if (size == 2) return SAFESPEC_DTYPE_F16;
    if (size == 8) return SAFESPEC_DTYPE_F64;
  } else if (kind == 'i') {
    if (size == 1) return SAFESPEC_DTYPE_I8;
    if (size == 2) return SAFESPEC_DTYPE_I16;
    if (size == 4) return SAFESPEC_DTYPE_I32;
    if (size == 8) return SAFESPEC_DTYPE_I64;
  } else if (kind == 'u') {
    if (size == 1) return SAFESPEC_DTYPE_U8;
    if (size == 2) return SAFESPEC_DTYPE_U16;
    if (size == 4) return SAFESPEC_DTYPE_U32;
    if (size == 8) return SAFESPEC_DTYPE_U64;
  }
  throw py::type_error("arrays of numpy dtype " + std::string(py::str(a.dtype())) +
                       " have no safespec dtype (bf16 is passed as uint16 and the fp8 formats as uint8, with the dtype named)");
}

safespec_tensor tensor_of(const py::array& a, const std::optional<std::string>& name, const char* what) {
  if (!(a.flags() & py::array::c_style))
    throw py::value_error(std::string(what) + ": expected a C-contiguous array (numpy.ascontiguousarray), found strides");
  if (a.ndim() > SAFESPEC_MAX_RANK)
    throw py::value_error(std::string(what) + ": expected at most 4 dimensions, found " + std::to_string(a.ndim()));
  safespec_tensor t{};
  t.data = a.data();
  t.size_bytes = static_cast<size_t>(a.nbytes());
  t.dtype = dtype_of(a, name);
  t.rank = static_cast<uint32_t>(a.ndim());
  for (py::ssize_t i = 0; i < a.ndim(); ++i) t.shape[i] = static_cast<uint64_t>(a.shape(i));
  // An empty array may have no buffer; the C API reads NULL as "absent".
  static const unsigned char kEmpty = 0;
  if (!t.data) t.data = &kEmpty;
  return t;
}

py::dtype numpy_dtype(safespec_dtype d) {
  switch (d) {
    case SAFESPEC_DTYPE_F32: return py::dtype::of<float>();
    case SAFESPEC_DTYPE_F64: return py::dtype::of<double>();
    case SAFESPEC_DTYPE_F16: return py::dtype("float16");
    case SAFESPEC_DTYPE_BF16:
    case SAFESPEC_DTYPE_U16: return py::dtype::of<uint16_t>();
    case SAFESPEC_DTYPE_I8: return py::dtype::of<int8_t>();
    case SAFESPEC_DTYPE_I16: return py::dtype::of<int16_t>();
    case SAFESPEC_DTYPE_I32: return py::dtype::of<int32_t>();
    case SAFESPEC_DTYPE_I64: return py::dtype::of<int64_t>();
    case SAFESPEC_DTYPE_U32: return py::dtype::of<uint32_t>();
    case SAFESPEC_DTYPE_U64: return py::dtype::of<uint64_t>();
    default: return py::dtype::of<uint8_t>();  // U8 and the 8-bit codes
  }
}

py::array new_array(safespec_dtype dtype, std::initializer_list<py::ssize_t> shape) {
  return py::array(numpy_dtype(dtype), std::vector<py::ssize_t>(shape));
}

void raise_unless_ok(safespec_status s, const safespec_error& e) {
  if (s == SAFESPEC_OK) return;
  if (s == SAFESPEC_OUT_OF_MEMORY) throw std::bad_alloc();
  const std::string text = e.rule[0] ? std::string(e.rule) + ": " + e.message : std::string(e.message);
  if (s == SAFESPEC_INVALID_ARGUMENT) throw py::value_error(text);
  if (s == SAFESPEC_INVALID_INPUT || s == SAFESPEC_UNSUPPORTED) throw py::value_error(text);
  throw std::runtime_error(std::string(safespec_status_message(s)) + (text.empty() ? "" : ": " + text));
}

}  // namespace safespec::python
