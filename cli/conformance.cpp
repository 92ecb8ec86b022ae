// `safespec conformance run|numeric`: hold another implementation to the
// conformance suite or to the golden vectors (W4A8, W6A8, svdquant_w4a4).
// The work is in conformance/ (the runner; safespec_generate writes the suite).

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "conformance/numeric_runner.hpp"
#include "conformance/runner.hpp"

namespace safespec::cli {

namespace {

namespace cf = conformance;

unsigned online_cpus() {
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<unsigned>(n) : 1u;
}

// A progress line on stderr only when it is a terminal; cleared at the end
// so that the report on stdout starts on a clean line.
struct Progress {
  bool on = ::isatty(STDERR_FILENO) == 1;
  void operator()(std::size_t done, std::size_t total) const {
    if (!on) return;
    const std::string line = "\r" + cf::progress_bar(done, total) + " ";
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  }
  ~Progress() {
    if (on) std::fputs("\r\033[K", stderr);
  }
};

// corpus/NAME (the suite or the vectors) when --suite or --vectors is not
// given: in a checkout, ./corpus/NAME; else the copy `cmake --install` put
// beside the command (BIN/../share/safespec/NAME), so an installed safespec
// runs from any directory; else, for the command in its build tree, the
// checkout's corpus/NAME. When none exists, ./corpus/NAME, which the runner
// reports as missing.
std::string default_corpus(const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path local = fs::path("corpus") / name;
  std::error_code ec;
  if (fs::is_directory(local, ec)) return local.string();
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path() / SAFESPEC_SHARE_FROM_BIN / name;
    if (fs::is_directory(installed, ec)) return installed.lexically_normal().string();
    const fs::path checkout = fs::path(SAFESPEC_CHECKOUT_CORPUS) / name;
    if (fs::equivalent(exe.parent_path(), fs::path(SAFESPEC_BUILD_TREE_BIN), ec) && fs::is_directory(checkout, ec))
      return checkout.string();
  }
  return local.string();
}

struct Args {
  CLI::App* run = nullptr;
  cf::RunRequest run_req;
  std::string suite;  // empty: default_corpus
  std::string rerun_failed;
  cf::NumericRequest num_req;
  std::string vectors;
};

CommandOutcome run(Args& a) {
  const Progress progress;
  const auto report = [&](std::size_t d, std::size_t t) { progress(d, t); };
  if (a.run->parsed()) {
    a.run_req.suite_dir = a.suite.empty() ? default_corpus("conformance") : a.suite;
    cf::Selection& sel = a.run_req.selection;
    for (const auto* list : {&sel.only, &sel.exclude})
      for (const std::string& s : *list)
        if (auto ok = cf::check_selector(s); !ok) return {kExitUsage, "", "safespec: " + ok.error() + "\n"};
    if (!a.rerun_failed.empty()) {
      auto failed = cf::read_failed(a.rerun_failed);
      if (!failed) return {kExitUsage, "", "safespec: " + failed.error() + "\n"};
      sel.rerun = true;
      sel.failed = std::move(failed).value();
    }
    return cf::run_conformance(a.run_req, report);
  }
  a.num_req.vectors_dir = a.vectors.empty() ? default_corpus("vectors") : a.vectors;
  return cf::run_numeric(a.num_req, report);
}

}  // namespace

Command register_conformance(CLI::App& app) {
  auto a = std::make_shared<Args>();
  CLI::App* top =
      app.add_subcommand("conformance", "Hold another implementation to the conformance suite or the golden vectors");
  top->require_subcommand(1);

  a->run_req.jobs = online_cpus();
  a->run = top->add_subcommand(
      "run",
      "Run an implementation once per suite file (exit 0 = accept, other = reject) and tabulate where it disagrees "
      "with a profile; exit 0 only when it agrees on every file");
  a->run->add_option("--impl", a->run_req.impl,
                     "the command, with {file} where the file's absolute path goes; split into words like a shell "
                     "(quotes, backslashes) and run without one: use sh -c '...' for pipes or redirections")
      ->required();
  add_profile_option(a->run, "--profile", a->run_req.profile,
                     "whose expectations to hold it to: strict, safetensors, sglang, comfyui, kitchen")
      ->required();
  add_consumer_option(a->run, a->run_req.versions);
  a->run->add_option("--suite", a->suite, "the suite directory (default corpus/conformance, else the installed share/safespec/conformance)");
  a->run->add_option("--jobs", a->run_req.jobs, "children at a time (default: the number of CPUs)")
      ->check(CLI::Range(1u, 1024u));
  a->run->add_option("--timeout", a->run_req.timeout_s, "seconds per file before its process group is killed (default 10)")
      ->check(CLI::Range(0.001, 86400.0));
  a->run->add_option("--json", a->run_req.json_out, "also write one JSON document with every file's result here");
  a->run->add_option("--junit", a->run_req.junit_out, "also write JUnit XML (one test case per file) here, for CI");
  a->run->add_option("--only", a->run_req.selection.only,
                     "run only the files that match: a group (container, index, quant, data), a rule id, or a glob "
                     "over rule ids and file names; repeatable");
  a->run->add_option("--exclude", a->run_req.selection.exclude, "leave out the files that match, as --only; repeatable");
  a->run->add_option("--rerun-failed", a->rerun_failed,
                     "run only the files that did not agree in this earlier --json document");
  add_choice_option<cf::ImpldefMode>(
      a->run, "--impldef", a->run_req.selection.impldef,
      {{"report", cf::ImpldefMode::Report}, {"fail", cf::ImpldefMode::Fail}, {"skip", cf::ImpldefMode::Skip}},
      "impldef_ files (the spec leaves them open): report (the default: own column, never failing the run), fail "
      "(count them), skip (do not run them)");

  a->num_req.jobs = online_cpus();
  CLI::App* numeric = top->add_subcommand(
      "numeric",
      "Run an implementation of a quantized linear (W4A8, W6A8, svdquant_w4a4) over the golden vectors and compare its "
      "outputs");
  numeric->add_option("--impl", a->num_req.impl,
                      "the command, with {checkpoint} {layer} {input} {output} (absolute paths; layer: the vector's marked layer), "
                      "split and run as for `run`")
      ->required();
  numeric->add_option("--vectors", a->vectors, "a directory of vectors, or one vector as `safespec vectors` writes it (default corpus/vectors, else the "
                                  "installed share/safespec/vectors)");
  add_semantics_option(numeric, a->num_req.semantics, "whose outputs to compare with: cuda (default) or eager");
  add_ulps_option(numeric, a->num_req.ulps, "accepted distance in ulps of the output dtype (default 0: bit-exact)");
  add_error_options(numeric, a->num_req.atol, a->num_req.rtol);
  numeric->add_option("--jobs", a->num_req.jobs, "children at a time (default: the number of CPUs)")
      ->check(CLI::Range(1u, 1024u));
  numeric->add_option("--timeout", a->num_req.timeout_s, "seconds per vector (default 60)")
      ->check(CLI::Range(0.001, 86400.0));
  return Command{top, [a] { return run(*a); }};
}

}  // namespace safespec::cli
