// An implementation under test that rejects every file: exit 1, a message on
// stderr (which `conformance run --json` keeps with stdout).
#include <cstdio>

#include "props/impls/by_name.hpp"

int main(int argc, char** argv) {
  if (argc > 1) std::fprintf(stderr, "rejected %s\n", safespec::test_impl::base_name(argv[1]).c_str());
  return 1;
}
