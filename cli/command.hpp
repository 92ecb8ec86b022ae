// The subcommands of safespec, one file each: `register_NAME(app)` adds the
// subcommand and its options to `app`; after parsing, the chosen one's `run`
// does the work and says what to print and which exit status to end with
// (src/commands/command_outcome.hpp). main.cpp only registers, parses and emits.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include "spec/numerics/w4a8_reference.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/commands/command_outcome.hpp"

namespace safespec::cli {

struct Command {
  CLI::App* sub = nullptr;
  std::function<CommandOutcome()> run;
};

Command register_check(CLI::App& app);
Command register_table(CLI::App& app);
Command register_inspect(CLI::App& app);
Command register_rules(CLI::App& app);
Command register_linear(CLI::App& app);
Command register_dequant(CLI::App& app);
Command register_compare(CLI::App& app);
Command register_conformance(CLI::App& app);
Command register_vectors(CLI::App& app);
Command register_diff(CLI::App& app);

// The one place profile and semantics names are read: the option takes the
// names profile_name and semantics_name give, and nothing else.
CLI::Option* add_profile_option(CLI::App* sub, const std::string& name, Profile& into, const std::string& help);
// An option that takes one of a few words and stores the value each names.
// Help and errors show the words, never the stored values (an enum is a
// byte CLI11 would print raw).
template <class T>
CLI::Option* add_choice_option(CLI::App* sub, const std::string& name, T& into,
                               std::vector<std::pair<std::string, T>> choices, const std::string& help) {
  std::vector<std::string> words;
  for (const auto& [word, value] : choices) words.push_back(word);
  return sub
      ->add_option_function<std::string>(
          name,
          [&into, choices](const std::string& text) {
            for (const auto& [word, value] : choices)
              if (word == text) into = value;
          },
          help)
      ->check(CLI::IsMember(words))
      ->type_name("WORD");
}
// --consumer NAME=VERSION, repeatable, into `into` (spec/consumers.hpp).
CLI::Option* add_consumer_option(CLI::App* sub, VersionChoice& into);
CLI::Option* add_semantics_option(CLI::App* sub, numerics::Semantics& into, const std::string& help);
// A whole-number option's check: plain digits, so a minus sign is refused by
// name rather than wrapped to 2^64 - 1 (ranges are the command's to check).
CLI::Validator whole_number();
// --ulps N: a count of units in the last place; a negative number is a usage error.
CLI::Option* add_ulps_option(CLI::App* sub, std::uint64_t& into, const std::string& help);
// --atol A and --rtol R: finite, 0 or more (src/commands/compare.hpp's Tolerance says
// how they combine with --ulps).
void add_error_options(CLI::App* sub, double& atol, double& rtol);

}  // namespace safespec::cli
