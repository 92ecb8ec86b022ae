// `safespec rules`: the rule catalogue, as text, JSON or docs/RULES.md.
#include <memory>

#include "cli/command.hpp"
#include "src/report/report.hpp"

namespace safespec::cli {

Command register_rules(CLI::App& app) {
  struct Args {
    bool json = false, markdown = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* rules = app.add_subcommand("rules", "Print the rule catalogue");
  rules->add_flag("--json", a->json, "print one JSON document");
  rules->add_flag("--markdown", a->markdown, "print docs/RULES.md")->excludes("--json");
  return Command{rules, [a] {
                   return CommandOutcome{kExitOk,
                                         a->json       ? render_rules_json()
                                         : a->markdown ? render_rules_markdown()
                                                       : render_rules_text(),
                                         "", 0};
                 }};
}

}  // namespace safespec::cli
