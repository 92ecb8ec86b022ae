#include <string>
#include <vector>

#include "cli/command.hpp"
#include "spec/profile_choice.hpp"

namespace safespec::cli {

CLI::Option* add_profile_option(CLI::App* sub, const std::string& name, Profile& into, const std::string& help) {
  std::vector<std::string> names;
  for (Profile p : kProfiles) names.emplace_back(profile_name(p));
  return sub
      ->add_option_function<std::string>(
          name,
          [&into](const std::string& text) {
            if (auto p = profile_by_name(text)) into = *p;
          },
          help)
      ->check(CLI::IsMember(names));
}

CLI::Option* add_semantics_option(CLI::App* sub, numerics::Semantics& into, const std::string& help) {
  constexpr numerics::Semantics kAll[] = {numerics::Semantics::Cuda, numerics::Semantics::Eager};
  std::vector<std::string> names;
  for (auto s : kAll) names.emplace_back(numerics::semantics_name(s));
  return sub
      ->add_option_function<std::string>(
          "--semantics",
          [&into, kAll](const std::string& text) {
            for (auto s : kAll)
              if (numerics::semantics_name(s) == text) into = s;
          },
          help)
      ->check(CLI::IsMember(names));
}

CLI::Option* add_ulps_option(CLI::App* sub, std::uint64_t& into, const std::string& help) {
  return sub->add_option("--ulps", into, help)
      ->check(CLI::Validator(
          [](std::string& s) { return s.starts_with('-') ? "expected a count of ulps (0 or more), found " + s : std::string(); },
          "ULPS"));
}

}  // namespace safespec::cli
