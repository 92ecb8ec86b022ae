// F5: strict UTF-8 (RFC 3629, as Rust's str::from_utf8): no overlong forms, no
// surrogates, nothing above U+10FFFF, no truncated sequences.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace safespec {

// Length of the valid UTF-8 sequence starting at text[i] (1-4), or 0 when
// the bytes there do not start one. i < text.size().
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

// Offset of the first byte of the first invalid sequence, or nullopt.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

// Appends the UTF-8 encoding of a Unicode scalar value (not a surrogate).
void append_utf8(std::string& out, std::uint32_t code_point);

}  // namespace safespec
