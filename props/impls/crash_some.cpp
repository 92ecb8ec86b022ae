// An implementation under test that crashes on some files, chosen by a
// stable rule: a name containing "_segv" dies of SIGSEGV, "_abort" of
// SIGABRT; the others get the verdict their name tells.
#include <csignal>
#include <cstdlib>
#include <string>

#include "props/impls/by_name.hpp"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string name = safespec::test_impl::base_name(argv[1]);
  if (name.find("_segv") != std::string::npos) {
    // The default action, even under a sanitizer that installs its own
    // SIGSEGV handler (which would print a report and exit 1 instead).
    std::signal(SIGSEGV, SIG_DFL);
    std::raise(SIGSEGV);
  }
  if (name.find("_abort") != std::string::npos) std::abort();
  return safespec::test_impl::verdict_by_name(argv[1]);
}
