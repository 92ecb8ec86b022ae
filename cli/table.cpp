// `safespec table`: which consumer loads each file, as a table. A report:
// exit 0 unless a path cannot be read (2).
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "src/commands/check.hpp"
#include "src/parse/load.hpp"
#include "src/report/report.hpp"

namespace safespec::cli {

Command register_table(CLI::App& app) {
  struct Args {
    std::vector<std::string> paths;
    CheckOptions options;
    bool json = false;
    bool versions = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* table = app.add_subcommand(
      "table", "Print which consumers load each file (a report: exit 0 unless a file cannot be read)");
  table->add_option("paths", a->paths, "as for check")->required();
  table->add_flag("--separate", a->options.separate, "check each .safetensors path alone, shard series included");
  table->add_flag("--checkpoint", a->options.checkpoint, "read all the .safetensors paths given as one checkpoint");
  table->add_flag("--data", a->options.data, "also check tensor values");
  table->add_flag("--json", a->json, "print one JSON document (every version's verdict included)");
  table->add_flag("--versions", a->versions,
                  "a column per consumer version wherever the versions disagree, and a line naming those that agree");
  add_consumer_option(table, a->options.versions);
  return Command{table, [a] {
                   HeaderParser parser;
                   const std::vector<FileReport> reports = check_paths(a->paths, a->options, parser);
                   CommandOutcome o;
                   o.out = a->json ? render_table_json(reports) : render_table(reports, a->versions);
                   for (const FileReport& r : reports)
                     if (r.io_error) o.exit_code = kExitUsage;
                   return o;
                 }};
}

}  // namespace safespec::cli
