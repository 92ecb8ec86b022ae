// `safespec conformance run`: holds an external
// implementation to one profile's expectations over the suite. Exit 0 =
// accept, any other exit = reject, a signal = crash, the time limit = timed
// out. Process handling is in process.hpp; the tally and the two renderings
// are in runner_report.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/manifest.hpp"
#include "conformance/process.hpp"
#include "conformance/selection.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/commands/command_outcome.hpp"

namespace safespec::conformance {

enum class Agreement : unsigned char { Agrees, AcceptsReject, RejectsAccept, Crashed, TimedOut };
inline constexpr std::array<Agreement, 5> kAgreements{Agreement::Agrees, Agreement::AcceptsReject,
                                                      Agreement::RejectsAccept, Agreement::Crashed,
                                                      Agreement::TimedOut};
// "accepts what it should reject"; the JSON key "accepts_reject".
std::string_view agreement_title(Agreement a);
std::string_view agreement_key(Agreement a);

Agreement classify(Expect expected, const ChildResult& child);

struct FileOutcome {
  Case entry;
  Expect expected = Expect::Accept;  // entry.expected(profile)
  ChildResult child;
  Agreement agreement = Agreement::Agrees;
};

struct RunReport {
  Profile profile = Profile::Strict;
  std::string version;  // the profile's consumer version when not its default ("dynamic-vram"), else empty
  std::string suite;  // the suite directory, absolute
  std::string impl;   // the template as given
  double timeout_s = 10;
  ImpldefMode impldef = ImpldefMode::Report;
  std::size_t not_selected = 0;    // manifest files left out by the selection
  std::vector<FileOutcome> files;  // manifest order
};

// A file whose name starts with impldef_: the written spec leaves it open.
bool is_impldef(const Case& c);
// Whether a file's agreement decides the run: impldef_ files only under
// --impldef fail.
bool counts(const RunReport& r, const FileOutcome& f);
// Every counted file agrees: the run's exit status 0.
bool run_passes(const RunReport& r);

// The table (class, files, of which impldef), then the files of each class
// but `agrees` (expected verdict, what happened, the description and rules,
// under profile sglang the message sglang raises, and the first lines the
// implementation printed), then one verdict line.
std::string render_run_text(const RunReport& r);
// {"profile":…,"suite":…,"impl":…,"timeout_s":…,"impldef":"report"|…,
//  "not_selected":N,"counts":{"agrees":N,…},
//  "files":[{"file":…,"impldef":bool,"counted":bool,"description":…,
//  "rules":[…],"expected":"accept"|"reject",
//  ["sglang_message":…,] "got":"accept"|"reject"|"crash"|"timeout",
//  "class":…,"exit":N|null,"signal":N|null,"seconds":S,"output":…,
//  "output_truncated":bool}]}
std::string render_run_json(const RunReport& r);
// JUnit XML, one <testcase> per file (junit_report.cpp): a disagreement is a
// <failure>, a crash or timeout an <error>, an impldef_ file that disagrees
// under --impldef report is <skipped> with the reason.
std::string render_run_junit(const RunReport& r);

// "[#########...............] 120/480" for a terminal's progress line.
std::string progress_bar(std::size_t done, std::size_t total, std::size_t width = 40);

struct RunRequest {
  std::filesystem::path suite_dir = "corpus/conformance";
  Profile profile = Profile::Strict;
  // The consumer version whose expectations apply (--consumer comfyui=dynamic-vram).
  VersionChoice versions = default_versions();
  std::string impl;  // "COMMAND ... {file} ..."
  unsigned jobs = 1;
  double timeout_s = 10;
  std::string json_out;   // empty: no JSON document
  std::string junit_out;  // empty: no JUnit XML
  Selection selection;
};

// What the command ends with. exit_code 0: every counted file agrees; 1:
// some file does not; 2: usage error (a template without {file}, bad quoting,
// an unreadable suite or manifest, a selection that leaves no file, a program
// that cannot be started, a JSON or JUnit path that cannot be written). `stop_signal`: the run was stopped by that
// signal (children killed); the caller re-raises it.

CommandOutcome run_conformance(const RunRequest& request,
                            const std::function<void(std::size_t done, std::size_t total)>& progress);

// A file named by the manifest must stay inside the suite directory
// (relative, no `..`): an error message, or empty.
std::string check_relative(const std::string& file);

}  // namespace safespec::conformance
