// compare(): two arrays of one dtype as `safespec compare` compares two
// tensors, through the C API's safespec_compare: the summary, how many
// elements lie at each distance, and where they first and worst differ.
#include <cmath>
#include <memory>

#include "python/bindings.hpp"

namespace safespec::python {

namespace {

py::object difference_of(const safespec_comparison* c, safespec_difference_kind which) {
  safespec_difference d;
  if (safespec_comparison_difference(c, which, &d) != SAFESPEC_OK)
    throw std::runtime_error("safespec_comparison_difference failed");
  if (!d.present) return py::none();
  py::dict f;
  f["index"] = d.index;
  f["position"] = std::string(d.position.data, d.position.size);
  f["expected"] = std::string(d.expected.data, d.expected.size);
  f["actual"] = std::string(d.actual.data, d.actual.size);
  if (which == SAFESPEC_DIFFERENCE_FIRST) f["differing"] = d.differing;
  return f;
}

py::dict compare(const py::array& expected, const py::array& actual, uint64_t ulps, double atol, double rtol,
                 const std::optional<std::string>& dtype) {
  // The CLI's --atol/--rtol validator, so both refuse the same values.
  if (!std::isfinite(atol) || atol < 0 || !std::isfinite(rtol) || rtol < 0)
    throw py::value_error("expected atol and rtol finite, 0 or more, found atol=" + py::repr(py::float_(atol)).cast<std::string>() +
                          ", rtol=" + py::repr(py::float_(rtol)).cast<std::string>());
  const safespec_tensor e = tensor_of(expected, dtype, "expected");
  const safespec_tensor a = tensor_of(actual, dtype, "actual");
  if (e.dtype != a.dtype) throw py::value_error("expected and actual have different dtypes");
  if (!std::equal(e.shape, e.shape + e.rank, a.shape, a.shape + a.rank))
    throw py::value_error("expected and actual have different shapes");
  const safespec_tolerance tolerance{ulps, atol, rtol};
  safespec_comparison* made = nullptr;
  safespec_error error;
  raise_unless_ok(safespec_compare(&e, &a, &tolerance, &made, &error), error);
  const std::unique_ptr<safespec_comparison, void (*)(safespec_comparison*)> c(made, safespec_comparison_free);
  safespec_comparison_summary sum;
  size_t entries = 0;
  if (safespec_comparison_get(c.get(), &sum) != SAFESPEC_OK ||
      safespec_comparison_distance_count(c.get(), &entries) != SAFESPEC_OK)
    throw std::runtime_error("safespec_comparison_get failed");
  // The histogram: elements per distance in ulps; None counts the
  // elements infinitely far apart (a NaN against a number).
  py::dict histogram;
  for (size_t i = 0; i < entries; ++i) {
    int infinite = 0;
    uint64_t at = 0, elements = 0;
    if (safespec_comparison_distance(c.get(), i, &infinite, &at, &elements) != SAFESPEC_OK)
      throw std::runtime_error("safespec_comparison_distance failed");
    if (infinite) histogram[py::none()] = elements;
    else histogram[py::int_(at)] = elements;
  }
  py::dict out;
  out["dtype"] = std::string(safespec_dtype_name(e.dtype));
  out["count"] = sum.count;
  out["bit_exact"] = sum.bit_exact;
  out["max_ulps"] = sum.max_ulps_infinite ? py::object(py::none()) : py::object(py::int_(sum.max_ulps));
  out["max_abs"] = sum.max_abs;
  out["max_rel"] = sum.max_rel;
  out["within"] = static_cast<bool>(sum.within);
  out["beyond"] = sum.beyond;
  out["histogram"] = histogram;
  out["first_difference"] = difference_of(c.get(), SAFESPEC_DIFFERENCE_FIRST);
  // The first element the furthest apart in ulps (max_ulps is its distance).
  out["worst_difference"] = difference_of(c.get(), SAFESPEC_DIFFERENCE_WORST);
  return out;
}

}  // namespace

void add_compare(py::module_& m) {
  m.def("compare", &compare, py::arg("expected"), py::arg("actual"), py::arg("ulps") = 0, py::kw_only(),
        py::arg("atol") = 0.0, py::arg("rtol") = 0.0, py::arg("dtype") = py::none(),
        "Compare two arrays of one dtype as `safespec compare` compares two tensors: a dict with count, bit_exact, "
        "max_ulps (None: infinite), max_abs, max_rel, within (every element within ulps, or, for finite values, "
        "within atol + rtol * |expected| as numpy.isclose), beyond (the elements that are not), histogram ({ulps: "
        "elements}, None for infinitely far) and first_difference (None, or index, position, expected, actual, "
        "differing), worst_difference (None, or the first element furthest apart: index, position, expected, "
        "actual). dtype names bit patterns: 'bf16' for uint16, 'F8_E4M3' for uint8.");
}

}  // namespace safespec::python
