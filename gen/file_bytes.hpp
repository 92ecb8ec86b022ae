// Tiny byte builders for hand-written test files, kept apart from the
// production writer so tests can build what the writer refuses to.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace safespec::gen {

// 8-byte little-endian `n`, then `header`, then `data_bytes` zero bytes.
std::vector<std::uint8_t> file_with_length(std::uint64_t n, std::string_view header, std::size_t data_bytes = 0);

// The same with n = header.size().
std::vector<std::uint8_t> file_with_header(std::string_view header, std::size_t data_bytes = 0);

}  // namespace safespec::gen
