// make_conformance DIR: writes the conformance suite (conformance/suite.hpp)
// and its manifest.jsonl into DIR; `make_conformance corpus/conformance`
// regenerates the committed suite, and conformance.regenerates_identically
// checks it is current. Exit 1 when a file is not what its draft says.
#include <cstdio>

#include "conformance/suite.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_conformance DIR\n");
    return 2;
  }
  auto n = safespec::conformance::generate_suite(argv[1]);
  if (!n) {
    std::fprintf(stderr, "make_conformance: %s\n", n.error().c_str());
    return 1;
  }
  std::printf("%zu files in %s\n", n.value(), argv[1]);
  return 0;
}
