// F1-F4: the 8-byte little-endian header length and what it must satisfy
// before any byte of the header is looked at.
#pragma once

#include <cstdint>
#include <span>

#include "spec/limits.hpp"
#include "spec/result.hpp"

namespace safespec {

// Assembled byte by byte: never a host-order memcpy (checklist item 1).
std::uint64_t read_u64_le(std::span<const std::uint8_t, 8> bytes);

// `first` holds min(8, file_size) bytes from the start of the file. Returns N.
// Checks F1, F3 (before any arithmetic with N), then F4.
Result<std::uint64_t> check_prefix(std::span<const std::uint8_t> first, std::uint64_t file_size);
// The same for a file held whole in memory.
inline Result<std::uint64_t> check_prefix(std::span<const std::uint8_t> file) {
  return check_prefix(file.first(file.size() < 8 ? file.size() : 8), file.size());
}

}  // namespace safespec
