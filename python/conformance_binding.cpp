// conformance_cases(): the conformance suite's manifest as (path, expected)
// pairs for pytest.mark.parametrize, from the suite beside the source tree
// (corpus/conformance), an installed one (share/safespec/conformance) or
// the folder given.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "python/bindings.hpp"

#ifndef SAFESPEC_CONFORMANCE_DIR
#error "SAFESPEC_CONFORMANCE_DIR is defined by python/CMakeLists.txt"
#endif
#ifndef SAFESPEC_INSTALLED_CONFORMANCE_DIR
#error "SAFESPEC_INSTALLED_CONFORMANCE_DIR is defined by python/CMakeLists.txt"
#endif

namespace safespec::python {

namespace {

bool has_manifest(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::is_regular_file(dir / "manifest.jsonl", ec);
}

// A module used away from the tree it was built in (pip install, cmake
// --install, a copied .so) finds the suite where `cmake --install` puts it,
// share/safespec/conformance under a prefix (cmake/SafespecInstall.cmake).
// The prefix is not known for sure: the module's own folder's ancestors
// come first (lib/python3/dist-packages under the prefix, or a pip --target
// folder), then the interpreter's prefix, then the one configured at build.
std::optional<std::filesystem::path> installed_suite() {
  const std::filesystem::path share = std::filesystem::path("share") / "safespec" / "conformance";
  const py::object file = py::module_::import("safespec").attr("__file__");
  for (std::filesystem::path p = std::filesystem::absolute(std::string(py::str(file))).parent_path();;
       p = p.parent_path()) {
    if (has_manifest(p / share)) return p / share;
    if (p == p.parent_path()) break;
  }
  const std::filesystem::path sys_prefix = std::string(py::str(py::module_::import("sys").attr("prefix")));
  if (has_manifest(sys_prefix / share)) return sys_prefix / share;
  if (has_manifest(SAFESPEC_INSTALLED_CONFORMANCE_DIR)) return SAFESPEC_INSTALLED_CONFORMANCE_DIR;
  return std::nullopt;
}

std::filesystem::path suite_dir(const std::optional<std::string>& suite) {
  if (suite) return *suite;
  if (const char* env = std::getenv("SAFESPEC_CONFORMANCE")) return env;
  if (has_manifest(SAFESPEC_CONFORMANCE_DIR)) return SAFESPEC_CONFORMANCE_DIR;
  if (auto installed = installed_suite()) return *installed;
  throw py::value_error(std::string("no conformance suite: not at ") + SAFESPEC_CONFORMANCE_DIR +
                        " (the source tree this module was built from), nor under share/safespec/conformance of an "
                        "install prefix; pass suite= or set SAFESPEC_CONFORMANCE");
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
        "(default: $SAFESPEC_CONFORMANCE, else the suite of the source tree this module was built from, else an "
        "installed one: share/safespec/conformance under the module's ancestors, sys.prefix or the configured "
        "install prefix).");
}

}  // namespace safespec::python
