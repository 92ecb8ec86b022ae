// safespec's own exceptions, as Python users expect to catch them: one base,
// safespec.Error, and a subclass per kind that is also the built-in a caller
// may already catch (InputError is a ValueError, InputTypeError a
// TypeError, InternalError a RuntimeError). Every binding raises through
// pybind11's value_error / type_error / runtime_error; one translator maps
// them here.
#include <exception>
#include <stdexcept>

#include "python/bindings.hpp"

namespace safespec::python {

namespace {

// Owned by the module for the life of the process (never freed: a
// translator may run during interpreter shutdown).
PyObject* g_input_error = nullptr;
PyObject* g_type_error = nullptr;
PyObject* g_internal_error = nullptr;

PyObject* make(py::module_& m, const char* name, py::handle bases, const char* doc) {
  py::dict attrs;
  attrs["__module__"] = "safespec";
  attrs["__doc__"] = doc;
  py::object cls = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&PyType_Type))(name, bases, attrs);
  m.attr(name) = cls;
  return cls.release().ptr();
}

}  // namespace

void add_errors(py::module_& m) {
  py::object error = py::reinterpret_steal<py::object>(make(
      m, "Error", py::make_tuple(py::handle(PyExc_Exception)), "Every error safespec raises: catch this for all of them."));
  g_input_error = make(m, "InputError", py::make_tuple(error, py::handle(PyExc_ValueError)),
                       "An argument or an input safespec refuses: what was expected and what was found.");
  g_type_error = make(m, "InputTypeError", py::make_tuple(error, py::handle(PyExc_TypeError)),
                      "An array of a dtype or kind safespec does not take.");
  g_internal_error = make(m, "InternalError", py::make_tuple(error, py::handle(PyExc_RuntimeError)),
                          "safespec failed where it should not have; the message says where.");
  error.inc_ref();  // kept alive as the others' base
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::value_error& e) {
      PyErr_SetString(g_input_error, e.what());
    } catch (const py::type_error& e) {
      PyErr_SetString(g_type_error, e.what());
    } catch (const std::runtime_error& e) {
      PyErr_SetString(g_internal_error, e.what());
    }
  });
}

std::uint64_t whole_number(const char* name, std::int64_t v) {
  if (v < 0) throw py::value_error(std::string(name) + ": expected a whole number, 0 or more, found " + std::to_string(v));
  return static_cast<std::uint64_t>(v);
}

}  // namespace safespec::python
