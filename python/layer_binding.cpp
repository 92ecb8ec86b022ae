// dequant() and layer_info(): one layer of any format, by its marker name,
// through the C API's safespec_dequant_layer and safespec_layer_describe
// (include/safespec/layer.h). The format table decides what a format needs,
// so nothing here names a format.
#include <string>
#include <vector>

#include "python/bindings.hpp"

namespace safespec::python {

namespace {

using OptDict = std::optional<py::dict>;

// The caller's {suffix: array} as the C API's named tensors; `keep` holds
// the suffixes and the arrays (made C-contiguous only by tensor_of's check)
// for the call's duration.
struct Named {
  std::vector<std::string> suffixes;
  std::vector<py::array> arrays;
  std::vector<safespec_named_tensor> tensors;
};

Named named_tensors(const py::dict& tensors, const OptDict& dtypes) {
  Named n;
  for (const auto& item : tensors) {
    if (!py::isinstance<py::str>(item.first))
      throw py::type_error("tensors: expected {suffix: array} with str keys, found a key of type " +
                           std::string(py::str(item.first.get_type().attr("__name__"))));
    n.suffixes.push_back(item.first.cast<std::string>());
    n.arrays.push_back(py::array::ensure(item.second));
    if (!n.arrays.back()) throw py::type_error("tensors[" + n.suffixes.back() + "]: expected an array");
  }
  if (dtypes)
    for (const auto& item : *dtypes) {
      if (!tensors.contains(item.first))
        throw py::value_error("dtypes: expected a suffix of one of the tensors, found " +
                              std::string(py::repr(item.first)));
    }
  for (std::size_t i = 0; i < n.suffixes.size(); ++i) {
    std::optional<std::string> dtype;
    if (dtypes && dtypes->contains(n.suffixes[i])) dtype = (*dtypes)[py::str(n.suffixes[i])].cast<std::string>();
    const std::string what = "tensors[" + n.suffixes[i] + "]";
    safespec_named_tensor t{};
    t.suffix = n.suffixes[i].c_str();
    t.tensor = tensor_of(n.arrays[i], dtype, what.c_str());
    n.tensors.push_back(t);
  }
  return n;
}

// The marker's other keys: a dict (as json.dumps writes it), a JSON text, or None.
std::string marker_text(const py::object& marker) {
  if (marker.is_none()) return "";
  if (py::isinstance<py::str>(marker)) return marker.cast<std::string>();
  if (py::isinstance<py::dict>(marker)) return py::module_::import("json").attr("dumps")(marker).cast<std::string>();
  throw py::type_error("marker: expected a dict, a JSON str or None, found " +
                       std::string(py::str(marker.get_type().attr("__name__"))));
}

py::dict describe(const Named& n, const std::string& format, const std::string& marker) {
  safespec_layer_info info{};
  safespec_error err;
  raise_unless_ok(safespec_layer_describe(format.c_str(), marker.empty() ? nullptr : marker.c_str(), n.tensors.data(),
                                          n.tensors.size(), &info, &err),
                  err);
  py::dict out;
  out["format"] = std::string(info.format);
  out["packing"] = std::string(info.packing);
  out["rows"] = info.rows;
  out["cols"] = info.cols;
  out["parameters"] = info.parameters;
  out["stored_bytes"] = info.stored_bytes;
  return out;
}

py::dict layer_info(const std::string& format, const py::dict& tensors, const py::object& marker, const OptDict& dtypes) {
  const Named n = named_tensors(tensors, dtypes);
  return describe(n, format, marker_text(marker));
}

py::array dequant(const std::string& format, const py::dict& tensors, const py::object& marker, const OptDict& dtypes,
                  const std::string& out_dtype, const std::string& codebook) {
  if (codebook != "uniform" && codebook != "frozen")
    throw py::value_error("codebook: expected 'uniform' or 'frozen', found '" + codebook + "'");
  const Named n = named_tensors(tensors, dtypes);
  const std::string m = marker_text(marker);
  const py::dict info = describe(n, format, m);
  const safespec_dtype od = dtype_named(out_dtype);
  py::array out = new_array(od, {info["rows"].cast<py::ssize_t>(), info["cols"].cast<py::ssize_t>()});
  safespec_buffer b{out.mutable_data(), static_cast<size_t>(out.nbytes()), od};
  safespec_error err;
  raise_unless_ok(safespec_dequant_layer(format.c_str(), m.empty() ? nullptr : m.c_str(), n.tensors.data(), n.tensors.size(),
                                         codebook == "frozen", &b, &err),
                  err);
  return out;
}

}  // namespace

void add_layers(py::module_& m) {
  m.def("dequant", &dequant, py::arg("format"), py::arg("tensors"), py::arg("marker") = py::none(), py::kw_only(),
        py::arg("dtypes") = py::none(), py::arg("out_dtype") = "F32", py::arg("codebook") = "uniform",
        "One layer of `format` (its comfy_quant marker's name) dequantized as `safespec dequant` does for the same "
        "layer in a file, in the original basis: the format's rules refuse it first (safespec.InputError naming "
        "the rule). tensors: {suffix: array} as the file names them (P.weight is 'weight'); marker: the marker's "
        "other keys (a dict or JSON text); dtypes: {suffix: safetensors dtype} for arrays of bit patterns "
        "(uint16 'BF16', uint8 'F8_E4M3'); out_dtype F32, BF16 (uint16 bits) or F16; codebook 'frozen' decodes a "
        "4-bit asym_w4a8_int8 layer without weight_codebook through comfy-kitchen's frozen codebook.");
  m.def("layer_info", &layer_info, py::arg("format"), py::arg("tensors"), py::arg("marker") = py::none(), py::kw_only(),
        py::arg("dtypes") = py::none(),
        "What the layer is, as `safespec inspect` says: {'format', 'packing' ('plain', 'nibbles', 'bits6', "
        "'tile_packed4'), 'rows' (N), 'cols' (K), 'parameters' (N * K), 'stored_bytes'}. Arguments as dequant's.");
}

}  // namespace safespec::python
