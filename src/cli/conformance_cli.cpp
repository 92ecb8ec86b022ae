#include "src/cli/conformance_cli.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>

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

int emit(const cf::ToolOutcome& o) {
  std::fwrite(o.out.data(), 1, o.out.size(), stdout);
  std::fwrite(o.err.data(), 1, o.err.size(), stderr);
  if (o.stop_signal != 0) {
    // Stopped by the user: die of the same signal, as a shell expects.
    std::fflush(nullptr);
    ::signal(o.stop_signal, SIG_DFL);
    ::raise(o.stop_signal);
    return 128 + o.stop_signal;
  }
  return o.exit_code;
}

}  // namespace

struct ConformanceCli::Options {
  CLI::App* top = nullptr;
  CLI::App* run = nullptr;
  CLI::App* numeric = nullptr;
  cf::RunRequest run_req;
  std::string profile;
  std::string suite = "corpus/conformance";
  cf::NumericRequest num_req;
  std::string vectors = "corpus/vectors";
  std::string semantics = "cuda";
};

ConformanceCli::ConformanceCli(CLI::App& app) : o_(std::make_unique<Options>()) {
  Options& o = *o_;
  o.top = app.add_subcommand("conformance", "Hold another implementation to the conformance suite or the golden vectors");
  o.top->require_subcommand(1);

  o.run_req.jobs = online_cpus();
  o.run = o.top->add_subcommand(
      "run",
      "Run an implementation once per suite file (exit 0 = accept, other = reject) and tabulate where it disagrees "
      "with a profile; exit 0 only when it agrees on every file");
  o.run->add_option("--impl", o.run_req.impl,
                    "the command, with {file} where the file's absolute path goes; split into words like a shell "
                    "(quotes, backslashes) and run without one: use sh -c '...' for pipes or redirections")
      ->required();
  o.run->add_option("--profile", o.profile, "whose expectations to hold it to: safetensors, sglang, comfyui, kitchen, strict")
      ->required()
      ->check(CLI::IsMember({"safetensors", "sglang", "comfyui", "kitchen", "strict"}));
  o.run->add_option("--suite", o.suite, "the suite directory (default corpus/conformance)");
  o.run->add_option("--jobs", o.run_req.jobs, "children at a time (default: the number of CPUs)")
      ->check(CLI::Range(1u, 1024u));
  o.run->add_option("--timeout", o.run_req.timeout_s, "seconds per file before its process group is killed (default 10)")
      ->check(CLI::Range(0.001, 86400.0));
  o.run->add_option("--json", o.run_req.json_out, "also write one JSON document with every file's result here");

  o.num_req.jobs = online_cpus();
  o.numeric = o.top->add_subcommand(
      "numeric", "Run an implementation of the W4A8 linear over the golden vectors and compare its outputs");
  o.numeric->add_option("--impl", o.num_req.impl,
                        "the command, with {checkpoint} {layer} {input} {output} (absolute paths; layer: lin), "
                        "split and run as for `run`")
      ->required();
  o.numeric->add_option("--vectors", o.vectors, "the vectors directory (default corpus/vectors)");
  o.numeric->add_option("--semantics", o.semantics, "whose outputs to compare with: cuda (default) or eager")
      ->check(CLI::IsMember({"cuda", "eager"}));
  o.numeric->add_option("--ulps", o.num_req.ulps, "accepted distance in ulps of the output dtype (default 0: bit-exact)")
      ->check(CLI::Validator(
          [](std::string& s) { return s.starts_with('-') ? "expected a count of ulps (0 or more), found " + s : std::string(); },
          "ULPS"));
  o.numeric->add_option("--jobs", o.num_req.jobs, "children at a time (default: the number of CPUs)")
      ->check(CLI::Range(1u, 1024u));
  o.numeric->add_option("--timeout", o.num_req.timeout_s, "seconds per vector (default 60)")
      ->check(CLI::Range(0.001, 86400.0));
}

ConformanceCli::~ConformanceCli() = default;

bool ConformanceCli::chosen() const { return o_->top->parsed(); }

int ConformanceCli::run() {
  Options& o = *o_;
  if (o.run->parsed()) {
    const std::map<std::string, Profile> profiles{{"strict", Profile::Strict},   {"safetensors", Profile::Safetensors},
                                                  {"sglang", Profile::Sglang},   {"comfyui", Profile::Comfyui},
                                                  {"kitchen", Profile::Kitchen}};
    o.run_req.profile = profiles.at(o.profile);
    o.run_req.suite_dir = o.suite;
    cf::ToolOutcome out;
    {
      const Progress progress;
      out = cf::run_conformance(o.run_req, [&](std::size_t d, std::size_t t) { progress(d, t); });
    }
    return emit(out);
  }
  o.num_req.vectors_dir = o.vectors;
  o.num_req.semantics = o.semantics == "eager" ? numerics::Semantics::Eager : numerics::Semantics::Cuda;
  cf::ToolOutcome out;
  {
    const Progress progress;
    out = cf::run_numeric(o.num_req, [&](std::size_t d, std::size_t t) { progress(d, t); });
  }
  return emit(out);
}

}  // namespace safespec::cli
