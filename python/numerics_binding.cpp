// w4a8_linear(), int8_linear(), w4a4_linear() and w4a8_dequant(): numpy arrays
// handed to the C API's numerics (include/safespec/numerics.h) without a
// copy, the result in a new array (or the caller's out=).
#include <cstring>
#include <vector>

#include "python/bindings.hpp"

namespace safespec::python {

namespace {

using OptArray = std::optional<py::array>;
using OptName = std::optional<std::string>;

// `dtype` names the bit patterns of uint16 arrays; float arrays beside them
// (a float32 bias of a bf16 layer) keep their own dtype.
safespec_tensor optional_tensor(const OptArray& a, const OptName& name, const char* what) {
  if (!a) return safespec_tensor{};
  const bool bits = a->dtype().kind() == 'u' && a->itemsize() == 2;
  return tensor_of(*a, bits ? name : std::nullopt, what);
}

// The intermediates as {name: array}, copied out of the library's list.
py::dict trace_dict(const safespec_tensors* trace) {
  py::dict out;
  size_t n = 0;
  safespec_tensors_count(trace, &n);
  for (size_t i = 0; i < n; ++i) {
    safespec_tensor_view v;
    safespec_tensors_get(trace, i, &v);
    py::array a(numpy_dtype(v.dtype), std::vector<py::ssize_t>(v.shape, v.shape + v.rank));
    std::memcpy(a.mutable_data(), v.data, v.size_bytes);
    out[py::str(v.name)] = a;
  }
  return out;
}

// `out=`: the caller's array, written in place (the zero-copy output path),
// so it must be exactly what a new result would be: C-contiguous, writable,
// [M, N] in x's numpy dtype.
py::array out_buffer(const py::array& a, safespec_dtype dtype, py::ssize_t m, py::ssize_t n) {
  if (!a.dtype().equal(numpy_dtype(dtype)))
    throw py::type_error("out: expected numpy dtype " + std::string(py::str(numpy_dtype(dtype))) + " (x's), found " +
                         std::string(py::str(a.dtype())));
  if (a.ndim() != 2 || a.shape(0) != m || a.shape(1) != n) {
    std::string found = "[";
    for (py::ssize_t i = 0; i < a.ndim(); ++i) {
      // Appended in two steps: g++-12's LTO link of `(i ? ", " : "") +
      // std::to_string(...)` warns of a memcpy over 2^63 bytes (-Wstringop-
      // overflow, a false positive of the same family as GCC bug 105329).
      if (i) found += ", ";
      found += std::to_string(a.shape(i));
    }
    throw py::value_error("out: expected shape [" + std::to_string(m) + ", " + std::to_string(n) + "], found " + found +
                          "]");
  }
  if (!(a.flags() & py::array::c_style)) throw py::value_error("out: expected a C-contiguous array, found strides");
  if (!a.writeable()) throw py::value_error("out: expected a writable array, found a read-only one");
  return a;
}

safespec_semantics semantics_of(const std::string& s) {
  if (s == "cuda") return SAFESPEC_SEMANTICS_CUDA;
  if (s == "eager") return SAFESPEC_SEMANTICS_EAGER;
  throw py::value_error("semantics: expected 'cuda' or 'eager', found '" + s + "'");
}

py::object w4a8_linear(const py::array& x, const py::array& weight, const py::array& s_rel, const py::array& s_channel,
                       const OptArray& codebook, const OptArray& correction, const OptArray& bias, std::int64_t group_size_arg,
                       std::int64_t convrot_groupsize_arg, const std::string& semantics, bool dump, const OptName& dtype,
                       const OptName& s_rel_dtype, const OptArray& out_array) {
  const std::uint64_t group_size = whole_number("group_size", group_size_arg);
  const std::uint64_t convrot_groupsize = whole_number("convrot_groupsize", convrot_groupsize_arg);
  safespec_w4a8_layer l{};
  l.weight = tensor_of(weight, std::nullopt, "weight");
  // uint8 s_rel are E4M3 codes, as comfy-kitchen views a U8 s_rel.
  l.s_rel = tensor_of(s_rel, s_rel_dtype, "s_rel");
  l.s_channel = tensor_of(s_channel, std::nullopt, "s_channel");
  l.codebook = optional_tensor(codebook, std::nullopt, "codebook");
  l.correction = optional_tensor(correction, dtype, "correction");
  l.bias = optional_tensor(bias, dtype, "bias");
  l.group_size = group_size;
  l.convrot_groupsize = convrot_groupsize;
  const safespec_tensor xt = tensor_of(x, dtype, "x");
  safespec_w4a8_options o;
  safespec_w4a8_options_init(&o);
  o.semantics = semantics_of(semantics);
  const py::ssize_t m = xt.rank == 2 ? static_cast<py::ssize_t>(xt.shape[0]) : 0;
  const py::ssize_t n = l.weight.rank == 2 ? static_cast<py::ssize_t>(l.weight.shape[0]) : 0;
  py::array y = out_array ? out_buffer(*out_array, xt.dtype, m, n) : new_array(xt.dtype, {m, n});
  safespec_buffer out{y.mutable_data(), static_cast<size_t>(y.nbytes()), xt.dtype};
  safespec_tensors* trace = nullptr;
  safespec_error err;
  safespec_status s;
  {
    py::gil_scoped_release unlocked;
    s = safespec_w4a8_linear(&l, &xt, &o, &out, dump ? &trace : nullptr, &err);
  }
  raise_unless_ok(s, err);
  if (!dump) return y;
  std::unique_ptr<safespec_tensors, void (*)(safespec_tensors*)> owned(trace, safespec_tensors_free);
  return py::make_tuple(y, trace_dict(trace));
}

// int8_linear and w4a4_linear: y [M, N] (N = weight's rows) into a new array
// or out=, then the C API call `run` without the GIL; (y, {name: array})
// with dump.
template <class Run>
py::object int_linear(const safespec_tensor& xt, const safespec_tensor& weight, const OptArray& out_array, bool dump,
                      Run run) {
  const py::ssize_t m = xt.rank == 2 ? static_cast<py::ssize_t>(xt.shape[0]) : 0;
  const py::ssize_t n = weight.rank == 2 ? static_cast<py::ssize_t>(weight.shape[0]) : 0;
  py::array y = out_array ? out_buffer(*out_array, xt.dtype, m, n) : new_array(xt.dtype, {m, n});
  safespec_buffer out{y.mutable_data(), static_cast<size_t>(y.nbytes()), xt.dtype};
  safespec_tensors* trace = nullptr;
  safespec_error err;
  safespec_status s;
  {
    py::gil_scoped_release unlocked;
    s = run(&out, dump ? &trace : nullptr, &err);
  }
  raise_unless_ok(s, err);
  if (!dump) return y;
  std::unique_ptr<safespec_tensors, void (*)(safespec_tensors*)> owned(trace, safespec_tensors_free);
  return py::make_tuple(y, trace_dict(trace));
}

py::object int8_linear(const py::array& x, const py::array& weight, const py::array& weight_scale, const OptArray& bias,
                       std::int64_t convrot_groupsize_arg, const std::string& semantics, bool dump, const OptName& dtype,
                       const OptArray& out_array) {
  const std::uint64_t convrot_groupsize = whole_number("convrot_groupsize", convrot_groupsize_arg);
  safespec_int8_layer l{};
  l.weight = tensor_of(weight, std::nullopt, "weight");
  l.weight_scale = optional_tensor(weight_scale, dtype, "weight_scale");
  l.bias = optional_tensor(bias, dtype, "bias");
  l.convrot_groupsize = convrot_groupsize;
  const safespec_tensor xt = tensor_of(x, dtype, "x");
  const safespec_semantics sem = semantics_of(semantics);
  return int_linear(xt, l.weight, out_array, dump, [&](safespec_buffer* y, safespec_tensors** t, safespec_error* e) {
    return safespec_int8_linear(&l, &xt, sem, y, t, e);
  });
}

py::object w4a4_linear(const py::array& x, const py::array& weight, const py::array& weight_scale, const OptArray& bias,
                       std::int64_t convrot_groupsize_arg, const std::string& linear_dtype, const std::string& semantics,
                       bool dump, const OptName& dtype, const OptArray& out_array) {
  const std::uint64_t convrot_groupsize = whole_number("convrot_groupsize", convrot_groupsize_arg);
  safespec_w4a4_layer l{};
  l.weight = tensor_of(weight, std::nullopt, "weight");
  l.weight_scale = optional_tensor(weight_scale, dtype, "weight_scale");
  l.bias = optional_tensor(bias, dtype, "bias");
  l.convrot_groupsize = convrot_groupsize;
  if (linear_dtype == "int8") l.linear_dtype = SAFESPEC_W4A4_LINEAR_INT8;
  else if (linear_dtype != "int4")
    throw py::value_error("linear_dtype: expected 'int4' or 'int8', found '" + linear_dtype + "'");
  const safespec_tensor xt = tensor_of(x, dtype, "x");
  const safespec_semantics sem = semantics_of(semantics);
  // N is weight's rows: the packed [N, K/2] has as many as the [N, K] weight.
  return int_linear(xt, l.weight, out_array, dump, [&](safespec_buffer* y, safespec_tensors** t, safespec_error* e) {
    return safespec_w4a4_linear(&l, &xt, sem, y, t, e);
  });
}

py::array w4a8_dequant(const py::array& weight, const py::array& s_rel, const py::array& s_channel,
                       const OptArray& codebook, const OptArray& correction, std::int64_t group_size_arg,
                       std::int64_t convrot_groupsize_arg, const OptName& dtype, const OptName& s_rel_dtype) {
  const std::uint64_t group_size = whole_number("group_size", group_size_arg);
  const std::uint64_t convrot_groupsize = whole_number("convrot_groupsize", convrot_groupsize_arg);
  safespec_w4a8_layer l{};
  l.weight = tensor_of(weight, std::nullopt, "weight");
  l.s_rel = tensor_of(s_rel, s_rel_dtype, "s_rel");
  l.s_channel = tensor_of(s_channel, std::nullopt, "s_channel");
  l.codebook = optional_tensor(codebook, std::nullopt, "codebook");
  l.correction = optional_tensor(correction, dtype, "correction");
  l.group_size = group_size;
  l.convrot_groupsize = convrot_groupsize;
  const py::ssize_t n = l.weight.rank == 2 ? static_cast<py::ssize_t>(l.weight.shape[0]) : 0;
  // K is the scale grid's, groups * G, for 4-bit and 6-bit storage alike;
  // a weight that disagrees with it is refused by the C API.
  py::ssize_t k = l.weight.rank == 2 ? 2 * static_cast<py::ssize_t>(l.weight.shape[1]) : 0;
  if (l.s_rel.rank == 2 && group_size != 0) k = static_cast<py::ssize_t>(l.s_rel.shape[1] * group_size);
  py::array out = new_array(SAFESPEC_DTYPE_F32, {n, k});
  safespec_buffer b{out.mutable_data(), static_cast<size_t>(out.nbytes()), SAFESPEC_DTYPE_F32};
  safespec_error err;
  raise_unless_ok(safespec_dequant_w4a8(&l, &b, &err), err);
  return out;
}

}  // namespace

void add_numerics(py::module_& m) {
  m.def("w4a8_linear", &w4a8_linear, py::arg("x"), py::arg("weight"), py::arg("s_rel"), py::arg("s_channel"),
        py::arg("codebook") = py::none(), py::arg("correction") = py::none(), py::arg("bias") = py::none(), py::kw_only(),
        py::arg("group_size"), py::arg("convrot_groupsize"), py::arg("semantics") = "cuda", py::arg("dump") = false,
        py::arg("dtype") = py::none(), py::arg("s_rel_dtype") = py::none(), py::arg("out") = py::none(),
        "The reference W4A8 linear (asym_w4a8_int8) as `safespec linear` computes it, bit for bit. x [M, K] float32, "
        "float16, or uint16 bf16 bits with dtype='bf16' (dtype also names uint16 correction and bias); weight "
        "[N, K/2] int8/uint8; s_rel [N, K/G] float32 or uint8 E4M3 codes; s_channel [N] float32. Returns y [M, N] "
        "in x's dtype, or (y, {name: intermediate}) with dump=True (the `linear --dump` tensors). C-contiguous "
        "arrays are read in place, without a copy. out: a C-contiguous writable [M, N] array of x's numpy dtype "
        "that y is written into and returned as (no new array). Bad inputs raise safespec.InputError (a ValueError) or InputTypeError (a TypeError) with "
        "the C API's message ('RULE: ...' when the spec names a rule).");
  m.def("int8_linear", &int8_linear, py::arg("x"), py::arg("weight"), py::arg("weight_scale"),
        py::arg("bias") = py::none(), py::kw_only(), py::arg("convrot_groupsize") = 0, py::arg("semantics") = "cuda",
        py::arg("dump") = false, py::arg("dtype") = py::none(), py::arg("out") = py::none(),
        "The reference int8_tensorwise linear (quant-numerics.md §7.1) as `safespec linear` computes it, bit for "
        "bit. x [M, K] float32, float16, or uint16 bf16 bits with dtype='bf16' (dtype also names uint16 "
        "weight_scale and bias; a float32 array holding their values gives the same result); weight [N, K] "
        "int8/uint8; weight_scale one element or [N, 1]; bias [N] or None; convrot_groupsize 0 without ConvRot, "
        "else C (a power of 4). semantics is accepted as `linear --semantics` is; int8 has one activation path, so "
        "both give the same y. Returns y [M, N] in x's dtype, or (y, {name: intermediate}) with dump=True (rotated, "
        "xs, xq, acc, y: the `linear --dump` tensors). Arrays are read in place; out= as for w4a8_linear. Bad "
        "inputs raise safespec.InputError or InputTypeError with the C API's message.");
  m.def("w4a4_linear", &w4a4_linear, py::arg("x"), py::arg("weight"), py::arg("weight_scale"),
        py::arg("bias") = py::none(), py::kw_only(), py::arg("convrot_groupsize") = 256,
        py::arg("linear_dtype") = "int4", py::arg("semantics") = "cuda", py::arg("dump") = false,
        py::arg("dtype") = py::none(), py::arg("out") = py::none(),
        "The reference convrot_w4a4 linear (quant-numerics.md §6.2, §6.3) as `safespec linear` computes it, bit "
        "for bit. x [M, K] as for int8_linear; weight [N, K/2] uint8/int8, signed low-nibble-first codes; "
        "weight_scale [N]; bias [N] or None; convrot_groupsize C (a power of 4); linear_dtype the marker's 'int4' "
        "or 'int8'. semantics picks comfy-kitchen's backend: 'cuda' runs linear_dtype as given, 'eager' always the "
        "int4 path. Returns y [M, N] in x's dtype, or (y, {name: intermediate}) with dump=True. Arrays are read in "
        "place; out= as for w4a8_linear. Bad inputs raise safespec.InputError or InputTypeError with the C API's message.");
  m.def("w4a8_dequant", &w4a8_dequant, py::arg("weight"), py::arg("s_rel"), py::arg("s_channel"),
        py::arg("codebook") = py::none(), py::arg("correction") = py::none(), py::kw_only(), py::arg("group_size"),
        py::arg("convrot_groupsize"), py::arg("dtype") = py::none(), py::arg("s_rel_dtype") = py::none(),
        "An asym_w4a8_int8 weight as comfy-kitchen's eager dequantize computes it, float32 [N, K].");
}

}  // namespace safespec::python
