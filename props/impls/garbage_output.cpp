// A W4A8 implementation under test that writes something that is not a
// safetensors file and exits 0. Arguments: CHECKPOINT INPUT OUTPUT.
#include <string>

#include "props/impls/vector_output.hpp"

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const std::string junk = "not a safetensors file\n";
  return safespec::test_impl::write_all(argv[3], {junk.begin(), junk.end()}) ? 0 : 1;
}
