// A W4A8 implementation under test that is off on some vectors, chosen by
// name: BF16 vectors get element 5 one ulp up, F16 vectors element 0 300
// ulps up (the bits read as an integer and incremented, which moves a finite
// value away from zero by that many ulps), F32 vectors are exact.
// Arguments: CHECKPOINT INPUT OUTPUT SEMANTICS.
#include <cstdint>
#include <string>

#include "props/impls/vector_output.hpp"

int main(int argc, char** argv) {
  using namespace safespec::test_impl;
  if (argc != 5) return 2;
  const std::string dir = directory_of(argv[1]);
  std::vector<char> y = read_all(dir + "/y_" + argv[4] + ".safetensors");
  if (y.empty()) return 1;
  const std::string name = dir.substr(dir.rfind('/') + 1);
  std::size_t element = 0;
  std::uint16_t step = 0;
  if (name.find("_bf16_") != std::string::npos) element = 5, step = 1;
  else if (name.find("_f16_") != std::string::npos) element = 0, step = 300;
  if (step != 0) {
    const std::size_t at = data_start(y) + 2 * element;
    if (at + 2 > y.size()) return 1;
    auto bits = static_cast<std::uint16_t>(static_cast<unsigned char>(y[at]) |
                                           static_cast<unsigned char>(y[at + 1]) << 8);
    bits = static_cast<std::uint16_t>(bits + step);
    y[at] = static_cast<char>(bits & 0xff);
    y[at + 1] = static_cast<char>(bits >> 8);
  }
  return write_all(argv[3], y) ? 0 : 1;
}
