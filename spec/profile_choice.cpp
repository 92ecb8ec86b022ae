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

Result<VersionPick, std::string> pick_version(std::string_view text) {
  const std::size_t eq = text.find('=');
  std::string names;
  for (const ConsumerInfo& c : kConsumerTable) names += (names.empty() ? "" : ", ") + std::string(c.name);
  if (eq == std::string_view::npos)
    return "expected NAME=VERSION with NAME one of " + names + ", found '" + std::string(text) + "'";
  const std::string_view name = text.substr(0, eq), id = text.substr(eq + 1);
  const std::optional<Consumer> c = consumer_by_name(name);
  if (!c) return "expected a consumer name, one of " + names + ", found '" + std::string(name) + "'";
  const std::optional<std::size_t> v = version_by_id(*c, id);
  if (!v) {
    std::string ids;
    for (const ConsumerVersion& row : consumer_info(*c).versions) ids += (ids.empty() ? "" : ", ") + std::string(row.id);
    return "expected a version of " + std::string(name) + ", one of " + ids + ", found '" + std::string(id) + "'";
  }
  return VersionPick{*c, static_cast<std::uint8_t>(*v)};
}

}  // namespace safespec
