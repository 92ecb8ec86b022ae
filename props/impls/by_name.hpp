// The verdict a well-behaved implementation under test gives, taken from the
// suite file's name as the naming convention tells it: accept_ files are
// accepted, everything else rejected. The test programs beside this header
// add one misbehaviour each.
#pragma once

#include <string>

namespace safespec::test_impl {

inline std::string base_name(const char* path) {
  const std::string p = path;
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

inline int verdict_by_name(const char* path) { return base_name(path).rfind("accept_", 0) == 0 ? 0 : 1; }

}  // namespace safespec::test_impl
