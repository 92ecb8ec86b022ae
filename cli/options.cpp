#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include <fmt/format.h>

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

CLI::Option* add_consumer_option(CLI::App* sub, VersionChoice& into) {
  std::string versions;
  for (const ConsumerInfo& c : kConsumerTable) {
    if (c.versions.size() < 2) continue;
    versions += fmt::format("{}{}=", versions.empty() ? "" : "; ", c.name);
    for (std::size_t v = 0; v < c.versions.size(); ++v)
      versions += fmt::format("{}{}{}", v ? "|" : "", c.versions[v].id, v == c.default_version ? " (default)" : "");
  }
  return sub
      ->add_option_function<std::vector<std::string>>(
          "--consumer",
          [&into](const std::vector<std::string>& picks) {
            for (const std::string& text : picks)
              if (auto p = pick_version(text)) into[p.value().consumer] = p.value().version;
          },
          "NAME=VERSION: the version of a consumer whose verdict, profile and exit status the report uses "
          "(repeatable; every version is judged and shown where it differs): " + versions)
      ->check(CLI::Validator(
          [](std::string& s) {
            auto p = pick_version(s);
            return p ? std::string() : p.error();
          },
          "NAME=VERSION"));
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

CLI::Validator whole_number() {
  return CLI::Validator(
      [](std::string& s) {
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        // A minus sign fails here too: an unsigned option never wraps around.
        if (s.empty() || ec != std::errc() || end != s.data() + s.size())
          return "expected a whole number (0 or more, digits only), found " + s;
        return std::string();
      },
      "N");
}

CLI::Option* add_ulps_option(CLI::App* sub, std::uint64_t& into, const std::string& help) {
  return sub->add_option("--ulps", into, help)->check(whole_number());
}

void add_error_options(CLI::App* sub, double& atol, double& rtol) {
  const CLI::Validator non_negative(
      [](std::string& s) {
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || *end != '\0' || !std::isfinite(v) || v < 0)
          return "expected a finite number, 0 or more, found " + s;
        return std::string();
      },
      "ERR");
  sub->add_option("--atol", atol,
                  "also pass an element within atol + rtol * |expected| (numpy.isclose's rule; default 0)")
      ->check(non_negative);
  sub->add_option("--rtol", rtol, "the relative part of that bound (default 0)")->check(non_negative);
}

}  // namespace safespec::cli
