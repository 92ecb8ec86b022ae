// The pieces of the `safespec` Python module (python/module.cpp), one file
// each, and what they share: numpy arrays as C API tensor descriptors
// (pointing into the array, no copy) and C API failures as Python errors.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>

#include "safespec/safespec.h"

namespace safespec::python {

namespace py = pybind11;

void add_check(py::module_& m);
void add_numerics(py::module_& m);
void add_layers(py::module_& m);
void add_compare(py::module_& m);
void add_conformance(py::module_& m);
// safespec.Error and its subclasses, and the translator that raises them for
// pybind11's value_error, type_error and std::runtime_error (python/errors.cpp).
void add_errors(py::module_& m);

// A count argument taken as a Python int: a negative one is refused by name
// (safespec.InputError), never wrapped to 2^64 - 1 or left to pybind11's
// overload error, which prints every argument.
std::uint64_t whole_number(const char* name, std::int64_t v);

// The safespec dtype of an array: float32/float16/float64 and the integer
// types by their numpy dtype; bit patterns (uint16 for BF16, uint8 for
// F8_E4M3, F8_E5M2, F8_E8M0) need `name`, which also overrides. Raises
// TypeError for a dtype safespec has no name for.
safespec_dtype dtype_named(const std::string& name);  // "bf16", "F8_E4M3", ...; TypeError when unknown
safespec_dtype dtype_of(const py::array& a, const std::optional<std::string>& name);

// A descriptor of a C-contiguous array (ValueError otherwise), pointing into
// its buffer: the array must outlive the call.
safespec_tensor tensor_of(const py::array& a, const std::optional<std::string>& name, const char* what);

// A new array of `shape` whose numpy dtype holds `dtype` (bf16 as uint16).
py::array new_array(safespec_dtype dtype, std::initializer_list<py::ssize_t> shape);
py::dtype numpy_dtype(safespec_dtype dtype);

// Raises ValueError ("RULE: message") unless the status is SAFESPEC_OK.
void raise_unless_ok(safespec_status s, const safespec_error& e);

}  // namespace safespec::python
