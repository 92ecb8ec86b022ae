// Names in messages: single-quoted, with quotes, backslashes and control
// characters escaped so a hostile name cannot forge or hide text.
#pragma once

#include <string>
#include <string_view>

namespace safespec {

std::string quote_name(std::string_view name);

inline std::string tensor_where(std::string_view name) { return "tensor " + quote_name(name); }

}  // namespace safespec
