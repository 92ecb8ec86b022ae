// conformance_cases(): the conformance suite's manifest as (path, expected)
// pairs for pytest.mark.parametrize, from the suite beside the source tree
// (corpus/conformance), an installed one (share/safespec/conformance) or
// the folder given.
#include <filesystem>
#include <fstream>

#include "python/bindings.hpp"

#ifndef SAFESPEC_CONFORMANCE_DIR
#error "SAFESPEC_CONFORMANCE_DIR is defined by python/CMakeLists.txt"
#endif

namespace safespec::python {

namespace {

std::filesystem::path suite_dir(const std::optional<std::string>& suite) {
  if (suite) return *suite;
  if (const char* env = std::getenv("SAFESPEC_CONFORMANCE")) return env;
  return SAFESPEC_CONFORMANCE_DIR;
}

py::list conformance_cases(const std::string& profile, const std::optional<std::string>& suite) {
  const std::filesystem::path dir = suite_dir(suite);
  std::ifstream manifest(dir / "manifest.jsonl");
  if (!manifest) throw py::value_error("no conformance manifest at " + (dir / "manifest.jsonl").string());
  const py::object loads = py::module_::import("json").attr("loads");
  py::list out;
  std::string line;
  bool known = false;
  while (std::getline(manifest, line)) {
    if (line.empty()) continue;
    const py::dict entry = loads(line);
    const py::dict expect = entry["expect"];
    if (!expect.contains(profile)) continue;
    known = true;
    const std::string file = py::str(entry["file"]);
    out.append(py::make_tuple((dir / file).string(), expect[py::str(profile)]));
  }
  if (!known) throw py::value_error("the manifest has no expectation for profile '" + profile + "'");
  return out;
}

}  // namespace

void add_conformance(py::module_& m) {
  m.def("conformance_cases", &conformance_cases, py::arg("profile") = "strict", py::arg("suite") = py::none(),
        "The conformance suite as a list of (path, expected) for pytest.mark.parametrize: expected is the "
        "manifest's verdict for the profile ('accept' or 'reject'). suite: the folder holding manifest.jsonl "
        "(default: $SAFESPEC_CONFORMANCE, else the suite this module was built with).");
}

}  // namespace safespec::python
