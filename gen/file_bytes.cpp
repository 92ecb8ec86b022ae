#include "gen/file_bytes.hpp"

namespace safespec::gen {

std::vector<std::uint8_t> file_with_length(std::uint64_t n, std::string_view header, std::size_t data_bytes) {
  std::vector<std::uint8_t> out;
  out.reserve(8 + header.size() + data_bytes);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.resize(out.size() + data_bytes, 0);
  return out;
}

std::vector<std::uint8_t> file_with_header(std::string_view header, std::size_t data_bytes) {
  return file_with_length(header.size(), header, data_bytes);
}

}  // namespace safespec::gen
