#include "spec/file_prefix.hpp"

#include <string>

#include "spec/checked_math.hpp"
#include "spec/quote.hpp"

namespace safespec {

std::uint64_t read_u64_le(std::span<const std::uint8_t, 8> b) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | b[static_cast<std::size_t>(i)];
  return n;
}

Result<std::uint64_t> check_prefix(std::span<const std::uint8_t> first, std::uint64_t file_size) {
  if (file_size < 8 || first.size() < 8) {
    return Error{RuleId::FileTooSmall, Place::at_byte(0),
                 "expected at least 8 bytes (the header length), found a file of " + count_of(file_size, "byte")};
  }
  const std::uint64_t n = read_u64_le(first.first<8>());
  // F2 cannot fail: usize is 64 bits on every target safespec supports.
  if (n > kMaxHeaderSize) {
    return Error{RuleId::HeaderTooLarge, Place::at_byte(0),
                 "expected a header length of at most 100000000 bytes, found " +
                     std::to_string(n)};
  }
  const auto needed = checked_add(8, n);
  if (!needed || *needed > file_size) {
    return Error{RuleId::HeaderLength, Place::at_byte(0),
                 "expected a file of at least 8 + " + std::to_string(n) + " = " +
                     std::to_string(8 + n) + " bytes for the header, found " + count_of(file_size, "byte")};
  }
  return n;
}

}  // namespace safespec
