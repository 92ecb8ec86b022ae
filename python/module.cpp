// `import safespec`: the executable specification in-process for Python
// tests (checking files, the reference numerics, the conformance suite).
#include "python/bindings.hpp"

PYBIND11_MODULE(safespec, m) {
  m.doc() =
      "safespec: the executable specification of safetensors and comfy_quant layers. check() gives what "
      "`safespec check --json` gives, w4a8_linear()/int8_linear()/w4a4_linear()/dequant() the reference numerics, layer_info() a layer's format and logical size, "
      "bit for bit, compare() an ulp comparison, rules() the catalogue and conformance_cases() the conformance "
      "suite for pytest.";
  safespec::python::add_errors(m);
  safespec::python::add_check(m);
  safespec::python::add_numerics(m);
  safespec::python::add_layers(m);
  safespec::python::add_compare(m);
  safespec::python::add_conformance(m);
}
