// JSON string escaping as the reference writer does it (W4): \" \\ \b \f \n
// \r \t, other C0 controls as \u00xx in lowercase hex, everything else raw;
// bytes that are not UTF-8 (only possible in file paths) as \ufffd.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace safespec {

// The version of every --json document's layout: its top-level "schema" key.
inline constexpr int kJsonSchema = 1;

void append_json_string(std::string& out, std::string_view s);
std::string json_string(std::string_view s);
// A shape as a JSON array without spaces, "[2,2]" (inspect and diff print it so).
std::string shape_json(std::span<const std::uint64_t> shape);

}  // namespace safespec
