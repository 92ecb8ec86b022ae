// compare(): two arrays of one dtype as `safespec compare` compares two
// tensors (src/compare.hpp), plus where they first differ
// (src/first_difference.hpp) and how many elements lie at each distance.
#include <cmath>
#include <map>
#include <span>

#include "python/bindings.hpp"
#include "src/compare.hpp"

namespace safespec::python {

namespace {

py::dict compare(const py::array& expected, const py::array& actual, uint64_t ulps, double atol, double rtol,
                 const std::optional<std::string>& dtype) {
  // The CLI's --atol/--rtol validator, so both refuse the same values.
  if (!std::isfinite(atol) || atol < 0 || !std::isfinite(rtol) || rtol < 0)
    throw py::value_error("expected atol and rtol finite, 0 or more, found atol=" + py::repr(py::float_(atol)).cast<std::string>() +
                          ", rtol=" + py::repr(py::float_(rtol)).cast<std::string>());
  const safespec_tensor e = tensor_of(expected, dtype, "expected");
  const safespec_tensor a = tensor_of(actual, dtype, "actual");
  if (e.dtype != a.dtype) throw py::value_error("expected and actual have different dtypes");
  std::vector<uint64_t> shape(e.shape, e.shape + e.rank);
  if (!std::equal(shape.begin(), shape.end(), a.shape, a.shape + a.rank))
    throw py::value_error("expected and actual have different shapes");
  const auto d = static_cast<Dtype>(e.dtype);
  const std::span<const uint8_t> eb(static_cast<const uint8_t*>(e.data), e.size_bytes);
  const std::span<const uint8_t> ab(static_cast<const uint8_t*>(a.data), a.size_bytes);
  const TensorComparison c = compare_tensor("", d, shape, eb, ab, Tolerance{ulps, atol, rtol});
  // The histogram: elements per distance in ulps; None counts the
  // elements infinitely far apart (a NaN against a number).
  std::map<uint64_t, uint64_t> hist;
  uint64_t infinite = 0;
  const std::size_t item = dtype_element_bytes(d);
  for (std::size_t i = 0; item != 0 && i < eb.size() / item; ++i) {
    const ElementDistance dist = element_distance(d, eb.subspan(i * item, item), ab.subspan(i * item, item));
    if (dist.ulps) ++hist[*dist.ulps];
    else ++infinite;
  }
  py::dict histogram;
  for (const auto& [k, v] : hist) histogram[py::int_(k)] = v;
  if (infinite) histogram[py::none()] = infinite;
  py::dict out;
  out["dtype"] = std::string(dtype_name(d));
  out["count"] = c.count;
  out["bit_exact"] = c.bit_exact;
  out["max_ulps"] = c.max_ulps ? py::object(py::int_(*c.max_ulps)) : py::object(py::none());
  out["max_abs"] = c.max_abs;
  out["max_rel"] = c.max_rel;
  out["within"] = c.within;
  out["beyond"] = c.beyond;
  out["histogram"] = histogram;
  const auto difference = [](const std::optional<FirstDifference>& d, bool differing) -> py::object {
    if (!d) return py::none();
    py::dict f;
    f["index"] = d->index;
    f["position"] = d->position;
    f["expected"] = d->expected;
    f["actual"] = d->actual;
    if (differing) f["differing"] = d->differing;
    return f;
  };
  out["first_difference"] = difference(c.first, true);
  // The first element the furthest apart in ulps (max_ulps is its distance).
  out["worst_difference"] = difference(c.worst, false);
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
