// check() and rules(): the C API's report as `safespec check --json` prints
// it, and the catalogue as `safespec rules --json` prints it, each decoded by
// Python's json module, so the dicts have those documents' schema exactly.
#include <memory>
#include <vector>

#include "python/bindings.hpp"

namespace safespec::python {

namespace {

py::object loads(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

// --fail-on's words; "default" is what the command does without it.
safespec_fail_on fail_on_named(const std::string& name) {
  if (name == "default") return SAFESPEC_FAIL_ON_DEFAULT;
  if (name == "error") return SAFESPEC_FAIL_ON_ERROR;
  if (name == "misload") return SAFESPEC_FAIL_ON_MISLOAD;
  if (name == "warning") return SAFESPEC_FAIL_ON_WARNING;
  throw py::value_error("fail_on: expected 'default', 'error', 'misload' or 'warning', found '" + name + "'");
}

py::object check(const py::object& path_or_bytes, const std::string& profile, bool data,
                 const std::optional<std::vector<std::string>>& layers, const std::string& fail_on,
                 const std::optional<std::vector<std::string>>& consumers) {
  safespec_check_options o;
  safespec_check_options_init(&o);
  o.data = data;
  o.fail_on = fail_on_named(fail_on);
  std::vector<const char*> words;
  if (layers)
    for (const std::string& w : *layers) words.push_back(w.c_str());
  o.layers = words.data();
  o.layer_count = words.size();
  std::vector<const char*> picks;
  if (consumers)
    for (const std::string& w : *consumers) picks.push_back(w.c_str());
  o.consumers = picks.data();
  o.consumer_count = picks.size();
  safespec_report* report = nullptr;
  safespec_status s;
  if (py::isinstance<py::bytes>(path_or_bytes) || py::isinstance<py::bytearray>(path_or_bytes)) {
    const std::string bytes = py::bytes(path_or_bytes);
    py::gil_scoped_release unlocked;
    s = safespec_check_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), profile.c_str(), &o, &report);
  } else {
    const std::string path = py::str(py::module_::import("os").attr("fspath")(path_or_bytes));
    const char* p = path.c_str();
    py::gil_scoped_release unlocked;
    s = safespec_check_paths(&p, 1, profile.c_str(), &o, &report);
  }
  std::unique_ptr<safespec_report, void (*)(safespec_report*)> owned(report, safespec_report_free);
  if (s == SAFESPEC_UNKNOWN_PROFILE || s == SAFESPEC_INVALID_ARGUMENT || s == SAFESPEC_UNSUPPORTED)
    throw py::value_error(std::string(safespec_status_message(s)));
  if (s != SAFESPEC_OK) throw std::runtime_error(safespec_status_message(s));
  const char* json = nullptr;
  size_t len = 0;
  if (safespec_report_json(report, &json, &len) != SAFESPEC_OK) throw std::runtime_error("safespec_report_json failed");
  return loads(std::string(json, len));
}

}  // namespace

void add_check(py::module_& m) {
  m.def("check", &check, py::arg("path_or_bytes"), py::arg("profile") = "strict", py::arg("data") = false,
        py::arg("layers") = py::none(), py::kw_only(), py::arg("fail_on") = "default",
        py::arg("consumers") = py::none(),
        "Check a file (a path) or whole file bytes as `safespec check --json --profile PROFILE` does; returns that "
        "JSON document as a dict ({'schema': 1, 'profile': ..., 'files': [...]}). data: also the value rules "
        "(paths only). layers: ['NAME=linear', ...] as --layer. consumers: ['comfyui=dynamic-vram', ...] as "
        "--consumer (every version's verdict is in each file's 'versions' either way). fail_on: what makes a file's 'ok' false, as "
        "--fail-on ('default', 'error', 'misload' or 'warning'; the conformance manifest's verdicts are "
        "data=True, fail_on='error').");
  m.def(
      "rules",
      [] {
        const char* json = nullptr;
        size_t len = 0;
        if (const safespec_status s = safespec_rules_json(&json, &len); s != SAFESPEC_OK)
          throw std::runtime_error(safespec_status_message(s));
        const py::object doc = loads(std::string(json, len));
        return py::object(doc["rules"]);
      },
      "The rule catalogue as `safespec rules --json` gives it: a list of dicts (id, severity, ...).");
}

}  // namespace safespec::python
