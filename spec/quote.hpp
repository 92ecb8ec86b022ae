// Names in messages: single-quoted, with quotes, backslashes and control
// characters escaped so a hostile name cannot forge or hide text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace safespec {

std::string quote_name(std::string_view name);

// "1 byte", "2 bytes": a count and its noun, in the plural unless 1.
std::string count_of(std::uint64_t n, std::string_view noun);


}  // namespace safespec
