#include "cli/parse.hpp"

#include "src/command_outcome.hpp"

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
    (void)app.exit(e);  // prints the usage error
    return kExitUsage;
  }
  return std::nullopt;
}

}  // namespace safespec::cli
