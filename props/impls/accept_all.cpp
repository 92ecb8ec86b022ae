// An implementation under test that accepts every file (exit 0) and says so
// on stdout, which `conformance run --json` keeps.
#include <cstdio>

#include "props/impls/by_name.hpp"

int main(int argc, char** argv) {
  if (argc > 1) std::printf("accepted %s\n", safespec::test_impl::base_name(argv[1]).c_str());
  return 0;
}
