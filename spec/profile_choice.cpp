#include "spec/profile_choice.hpp"

namespace safespec {

std::optional<Profile> profile_by_name(std::string_view name) {
  for (Profile p : kProfiles)
    if (profile_name(p) == name) return p;
  return std::nullopt;
}

FailOn default_fail_on(Profile p) {
  return p == Profile::Strict || p == Profile::Safetensors ? FailOn::Error : FailOn::MisLoad;
}

}  // namespace safespec
