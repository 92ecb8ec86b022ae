#include "cli/parse.hpp"

#include <cstdio>
#include <string>

#include "src/commands/command_outcome.hpp"

namespace safespec::cli {

std::optional<int> parse_or_exit(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // No command, or a word that is none: name the commands there are.
    if (app.get_subcommands().empty()) {
      std::string names;
      for (const CLI::App* sub : app.get_subcommands({})) names += (names.empty() ? "" : ", ") + sub->get_name();
      const std::string found = argc > 1 ? "'" + std::string(argv[1]) + "'" : std::string("none");
      std::fprintf(stderr, "safespec: expected a command (%s), found %s\nRun 'safespec --help' for what each does.\n",
                   names.c_str(), found.c_str());
      return kExitUsage;
    }
    (void)app.exit(e);  // prints the usage error
    return kExitUsage;
  }
  return std::nullopt;
}

}  // namespace safespec::cli
