// The safespec command line. Exit status: 0 no error findings, 1 error
// findings, 2 usage or I/O error (message on stderr).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "src/check.hpp"
#include "src/load.hpp"
#include "src/report.hpp"

namespace {

using namespace safespec;

constexpr int kExitOk = 0, kExitFindings = 1, kExitUsage = 2;

void print(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

int run_check(const std::vector<std::string>& paths, Profile profile, bool json) {
  FastHeaderParser parser;
  std::vector<FileReport> reports;
  for (const std::string& path : paths)
    for (FileReport& r : check_path(path, profile, parser)) reports.push_back(std::move(r));
  print(json ? render_check_json(reports, profile) : render_check_text(reports, profile));
  bool io = false, failed = false;
  for (const FileReport& r : reports) {
    if (r.io_error) {
      io = true;
      std::fprintf(stderr, "safespec: %s: %s\n", r.path.c_str(), r.io_error->c_str());
    }
    failed = failed || !r.ok();
  }
  return io ? kExitUsage : failed ? kExitFindings : kExitOk;
}

int run_inspect(const std::string& path, bool json) {
  FastHeaderParser parser;
  auto loaded = load_model(path, parser);
  if (!loaded) {
    std::fprintf(stderr, "safespec: %s: %s\n", path.c_str(), loaded.error().message.c_str());
    return kExitUsage;
  }
  const auto& parsed = loaded.value();
  if (!parsed) {
    const Error& e = parsed.error();
    std::fprintf(stderr, "safespec: %s: %s at %s: %s\n", path.c_str(), std::string(rule_name(e.rule)).c_str(),
                 e.where.c_str(), e.message.c_str());
    return kExitFindings;
  }
  print(json ? render_inspect_json(path, parsed.value()) : render_inspect_text(parsed.value()));
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"safespec: an executable specification of safetensors checkpoints"};
  app.require_subcommand(1);

  std::vector<std::string> paths;
  std::string profile_text = "strict";
  bool json = false;
  CLI::App* check = app.add_subcommand("check", "Check files against the spec; exit 1 on any error finding");
  check->add_option("paths", paths, "safetensors files, or model.safetensors.index.json shard indexes")->required();
  check->add_option("--profile", profile_text, "strict (all rules) or safetensors (exactly the reference reader)")
      ->check(CLI::IsMember({"strict", "safetensors"}));
  check->add_flag("--json", json, "print one JSON document");

  std::string inspect_path;
  bool inspect_json = false;
  CLI::App* inspect = app.add_subcommand("inspect", "List a file's tensors and metadata");
  inspect->add_option("path", inspect_path, "a safetensors file")->required();
  inspect->add_flag("--json", inspect_json, "print one JSON document");

  bool rules_json = false;
  CLI::App* rules = app.add_subcommand("rules", "Print the rule catalogue");
  rules->add_flag("--json", rules_json, "print one JSON document");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    (void)app.exit(e);
    return kExitUsage;
  }

  if (*check)
    return run_check(paths, profile_text == "safetensors" ? Profile::Safetensors : Profile::Strict, json);
  if (*inspect) return run_inspect(inspect_path, inspect_json);
  if (*rules) {
    print(rules_json ? render_rules_json() : render_rules_text());
    return kExitOk;
  }
  return kExitUsage;
}
