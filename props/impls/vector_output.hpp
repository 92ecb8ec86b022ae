// For the numeric test programs: the expected output of a golden vector
// (corpus/vectors/NAME/y_SEMANTICS.safetensors, beside the checkpoint) as
// bytes, and where its one tensor's data starts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace safespec::test_impl {

inline std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

inline std::vector<char> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline bool write_all(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

// The data section's offset: 8 + the little-endian header length.
inline std::size_t data_start(const std::vector<char>& file) {
  std::uint64_t n = 0;
  for (int i = 0; i < 8 && i < static_cast<int>(file.size()); ++i)
    n |= std::uint64_t{static_cast<unsigned char>(file[static_cast<std::size_t>(i)])} << (8 * i);
  return static_cast<std::size_t>(8 + n);
}

}  // namespace safespec::test_impl
