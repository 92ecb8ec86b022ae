// `safespec conformance run`: from the request to the report. The suite is
// checked before anything runs, so a usage error never costs a run.
#include "conformance/runner.hpp"

#include <fstream>
#include <memory>
#include <system_error>

#include "conformance/command_template.hpp"

namespace safespec::conformance {

namespace fs = std::filesystem;

std::string check_relative(const std::string& file) {
  const fs::path p(file);
  if (file.empty() || p.is_absolute()) return "expected a path relative to the suite directory, found '" + file + "'";
  for (const fs::path& part : p)
    if (part == "..") return "expected a path inside the suite directory, found '" + file + "'";
  return "";
}

CommandOutcome run_conformance(const RunRequest& req,
                            const std::function<void(std::size_t done, std::size_t total)>& progress) {
  auto words = split_command(req.impl);
  if (!words) return usage_error("--impl: " + words.error());
  if (!mentions(words.value(), "file"))
    return usage_error("--impl: expected {file} in the template (where each suite file's path goes), found '" + req.impl +
                       "'");
  std::error_code no_suite;
  if (!fs::exists(req.suite_dir / "manifest.jsonl", no_suite))
    return usage_error(req.suite_dir.string() + ": expected a conformance suite (a manifest.jsonl), found none: pass " +
                       "--suite DIR (a checkout's corpus/conformance, or share/safespec/conformance where safespec is " +
                       "installed)");
  auto manifest = read_manifest(req.suite_dir);
  if (!manifest) return usage_error(manifest.error());
  if (manifest.value().empty())
    return usage_error(req.suite_dir.string() + ": expected at least one line in manifest.jsonl, found none");

  std::error_code ec;
  fs::path suite = fs::absolute(req.suite_dir, ec).lexically_normal();
  if (!suite.has_filename() && suite.has_parent_path()) suite = suite.parent_path();  // "dir/" as "dir"
  if (ec) return usage_error(req.suite_dir.string() + ": " + ec.message());
  const Selection& sel = req.selection;
  if (sel.rerun && sel.failed.empty()) return {0, "nothing to rerun: every file of that run agreed\n", "", 0};
  std::vector<Case> cases;
  std::vector<std::vector<std::string>> commands;
  for (const Case& c : manifest.value()) {
    if (std::string bad = check_relative(c.file); !bad.empty()) return usage_error(suite.string() + ": manifest: " + bad);
    const fs::path file = suite / c.file;
    if (!fs::is_regular_file(file, ec))
      return usage_error(suite.string() + ": manifest.jsonl lists '" + c.file + "', which is not a file there");
    if (!selected(c, sel) || (sel.impldef == ImpldefMode::Skip && is_impldef(c))) continue;
    cases.push_back(c);
    commands.push_back(substitute(words.value(), {{"file", file.string()}}));
  }
  if (cases.empty())
    return usage_error("expected at least one file to run, found none of the " + std::to_string(manifest.value().size()) +
                       " in the suite left by --only, --exclude, --rerun-failed and --impldef skip");

  // Opened before the run: an unwritable path is a usage error, not a
  // report lost after minutes of running.
  std::unique_ptr<std::ofstream> json, junit;
  if (!req.json_out.empty()) {
    json = std::make_unique<std::ofstream>(req.json_out, std::ios::binary | std::ios::trunc);
    if (!*json) return usage_error("--json: cannot write '" + req.json_out + "'");
  }
  if (!req.junit_out.empty()) {
    junit = std::make_unique<std::ofstream>(req.junit_out, std::ios::binary | std::ios::trunc);
    if (!*junit) return usage_error("--junit: cannot write '" + req.junit_out + "'");
  }

  const std::size_t total = commands.size();
  auto ran = run_batch(commands, {req.jobs, req.timeout_s}, [&](std::size_t done) {
    if (progress) progress(done, total);
  });
  if (!ran) {
    CommandOutcome o = usage_error(ran.error().message);
    o.stop_signal = ran.error().signal;
    return o;
  }

  RunReport report;
  report.profile = req.profile;
  if (const auto c = req.profile.consumer(); c && req.versions[*c] != consumer_info(*c).default_version)
    report.version = consumer_info(*c).versions[req.versions[*c]].id;
  report.suite = suite.string();
  report.impl = req.impl;
  report.timeout_s = req.timeout_s;
  report.impldef = sel.impldef;
  report.not_selected = manifest.value().size() - total;
  for (std::size_t i = 0; i < total; ++i) {
    FileOutcome f;
    f.entry = std::move(cases[i]);
    f.expected = f.entry.expected(req.profile, req.versions);
    f.child = std::move(ran.value()[i]);
    f.agreement = classify(f.expected, f.child);
    report.files.push_back(std::move(f));
  }
  CommandOutcome out{run_passes(report) ? 0 : 1, render_run_text(report), "", 0};
  const auto write = [&](std::ofstream* to, const std::string& doc, const std::string& option,
                         const std::string& path) {
    if (!to) return true;
    to->write(doc.data(), static_cast<std::streamsize>(doc.size()));
    to->flush();
    if (*to) return true;
    out = {2, out.out, "safespec: " + option + ": cannot write '" + path + "'\n", 0};
    return false;
  };
  if (write(json.get(), json ? render_run_json(report) : "", "--json", req.json_out))
    write(junit.get(), junit ? render_run_junit(report) : "", "--junit", req.junit_out);
  return out;
}

}  // namespace safespec::conformance
