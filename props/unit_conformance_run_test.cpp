// `safespec conformance run`, and that its verdicts can fail: the runner held to a small hand-made suite with implementations
// that accept everything, reject everything, crash on some files or hang on
// some, each a program of props/impls/. The exact table, file lists, JSON
// and exit status; and every usage error exits 2 before anything runs.
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "conformance/manifest.hpp"
#include "conformance/runner.hpp"
#include "props/catch.hpp"
#include "props/conformance_run_support.hpp"
#include "props/unit_support.hpp"

using namespace safespec;
using conformance::Case;
using conformance::Expect;
using test::Run;
namespace fs = std::filesystem;

namespace {

using test::A;
using test::R;
using test::entry;
using test::kGapMessage;
using test::Suite;
using test::without_seconds;

const std::string kTableHead = "class                           files  impldef\n";

}  // namespace

TEST_CASE("conformance run: accept_all under strict accepts what it should reject", "[conformance]") {
  const Suite s;
  const Run r = s.run_impl("accept_all", "--profile strict");
  CHECK(r.code == 1);
  CHECK(r.err == "");  // no progress bar: stderr is not a terminal
  CHECK(r.out == "profile strict: 5 files, timeout 10 s\n" + kTableHead +
                     "agrees                              2        0\n"
                     "accepts what it should reject       3        1\n"
                     "rejects what it should accept       0        0\n"
                     "crashed                             0        0\n"
                     "timed out                           0        0\n"
                     "\n"
                     "accepts what it should reject (3):\n"
                     "  impldef_leading_space.safetensors [impldef]: expected reject, got exit status 0\n"
                     "    a space before the header's { [ST-HEADER-LEADING-SPACE]\n"
                     "    printed: accepted impldef_leading_space.safetensors\n"
                     "  reject_abort_gap.safetensors: expected reject, got exit status 0\n"
                     "    a gap of one byte before the first tensor [ST-OFFSET-GAP]\n"
                     "    printed: accepted reject_abort_gap.safetensors\n"
                     "  loader-reject_slow_no_convrot.safetensors: expected reject, got exit status 0\n"
                     "    a W4A8 layer\\nwithout convrot [CQ-W4A8-CONVROT]\n"
                     "    printed: accepted loader-reject_slow_no_convrot.safetensors\n"
                     "\n"
                     "FAIL: disagrees on 2 of 4 files; impldef files (reported, not counted; --impldef fail counts them): 0 of 1 agree\n");
}

TEST_CASE("conformance run: the profile picks the expectations, sglang's shows its messages", "[conformance]") {
  const Suite s;
  Run r = s.run_impl("accept_all", "--profile safetensors");
  CHECK(r.code == 1);
  CHECK(r.out == "profile safetensors: 5 files, timeout 10 s\n" + kTableHead +
                     "agrees                              4        1\n"
                     "accepts what it should reject       1        0\n"
                     "rejects what it should accept       0        0\n"
                     "crashed                             0        0\n"
                     "timed out                           0        0\n"
                     "\n"
                     "accepts what it should reject (1):\n"
                     "  reject_abort_gap.safetensors: expected reject, got exit status 0\n"
                     "    a gap of one byte before the first tensor [ST-OFFSET-GAP]\n"
                     "    printed: accepted reject_abort_gap.safetensors\n"
                     "\n"
                     "FAIL: disagrees on 1 of 4 files; impldef files (reported, not counted; --impldef fail counts them): 1 of 1 agree\n");
  r = s.run_impl("accept_all", "--profile sglang");
  CHECK(r.code == 1);
  CHECK(r.out == "profile sglang: 5 files, timeout 10 s\n" + kTableHead +
                     "agrees                              3        1\n"
                     "accepts what it should reject       2        0\n"
                     "rejects what it should accept       0        0\n"
                     "crashed                             0        0\n"
                     "timed out                           0        0\n"
                     "\n"
                     "accepts what it should reject (2):\n"
                     "  reject_abort_gap.safetensors: expected reject, got exit status 0\n"
                     "    a gap of one byte before the first tensor [ST-OFFSET-GAP]\n"
                     "    sglang: " + kGapMessage + "\n"
                     "    printed: accepted reject_abort_gap.safetensors\n"
                     "  loader-reject_slow_no_convrot.safetensors: expected reject, got exit status 0\n"
                     "    a W4A8 layer\\nwithout convrot [CQ-W4A8-CONVROT]\n"
                     "    sglang: ValueError: Serialized W4A8 layer 'lin' must set convrot=true\n"
                     "    printed: accepted loader-reject_slow_no_convrot.safetensors\n"
                     "\n"
                     "FAIL: disagrees on 2 of 4 files; impldef files (reported, not counted; --impldef fail counts them): 1 of 1 agree\n");
}

TEST_CASE("conformance run: reject_all rejects what it should accept", "[conformance]") {
  const Suite s;
  const Run r = s.run_impl("reject_all", "--profile comfyui --jobs 3");
  CHECK(r.code == 1);
  CHECK(r.err == "");
  CHECK(r.out == "profile comfyui: 5 files, timeout 10 s\n" + kTableHead +
                     "agrees                              1        0\n"
                     "accepts what it should reject       0        0\n"
                     "rejects what it should accept       4        1\n"
                     "crashed                             0        0\n"
                     "timed out                           0        0\n"
                     "\n"
                     "rejects what it should accept (4):\n"
                     "  accept_segv_metadata.safetensors: expected accept, got exit status 1\n"
                     "    one tensor and string metadata\n"
                     "    printed: rejected accept_segv_metadata.safetensors\n"
                     "  accept_zero_tensors.safetensors: expected accept, got exit status 1\n"
                     "    no tensors at all\n"
                     "    printed: rejected accept_zero_tensors.safetensors\n"
                     "  impldef_leading_space.safetensors [impldef]: expected accept, got exit status 1\n"
                     "    a space before the header's { [ST-HEADER-LEADING-SPACE]\n"
                     "    printed: rejected impldef_leading_space.safetensors\n"
                     "  loader-reject_slow_no_convrot.safetensors: expected accept, got exit status 1\n"
                     "    a W4A8 layer\\nwithout convrot [CQ-W4A8-CONVROT]\n"
                     "    printed: rejected loader-reject_slow_no_convrot.safetensors\n"
                     "\n"
                     "FAIL: disagrees on 3 of 4 files; impldef files (reported, not counted; --impldef fail counts them): 0 of 1 agree\n");
}

TEST_CASE("conformance run: a signal is a crash, whatever file it is on", "[conformance]") {
  const Suite s;
  const Run r = s.run_impl("crash_some", "--profile kitchen --jobs 2");
  CHECK(r.code == 1);
  CHECK(r.out == "profile kitchen: 5 files, timeout 10 s\n" + kTableHead +
                     "agrees                              1        0\n"
                     "accepts what it should reject       0        0\n"
                     "rejects what it should accept       2        1\n"
                     "crashed                             2        0\n"
                     "timed out                           0        0\n"
                     "\n"
                     "rejects what it should accept (2):\n"
                     "  impldef_leading_space.safetensors [impldef]: expected accept, got exit status 1\n"
                     "    a space before the header's { [ST-HEADER-LEADING-SPACE]\n"
                     "  loader-reject_slow_no_convrot.safetensors: expected accept, got exit status 1\n"
                     "    a W4A8 layer\\nwithout convrot [CQ-W4A8-CONVROT]\n"
                     "\n"
                     "crashed (2):\n"
                     "  accept_segv_metadata.safetensors: expected accept, got killed by SIGSEGV\n"
                     "    one tensor and string metadata\n"
                     "  reject_abort_gap.safetensors: expected reject, got killed by SIGABRT\n"
                     "    a gap of one byte before the first tensor [ST-OFFSET-GAP]\n"
                     "\n"
                     "FAIL: disagrees on 3 of 4 files; impldef files (reported, not counted; --impldef fail counts them): 0 of 1 agree\n");
}

TEST_CASE("conformance run: the time limit kills the whole process group", "[conformance]") {
  const Suite s;
  const Run r = s.run_impl("sleep_some", "--profile strict --timeout 2");
  CHECK(r.code == 1);
  CHECK(r.out == "profile strict: 5 files, timeout 2 s\n" + kTableHead +
                     "agrees                              4        1\n"
                     "accepts what it should reject       0        0\n"
                     "rejects what it should accept       0        0\n"
                     "crashed                             0        0\n"
                     "timed out                           1        0\n"
                     "\n"
                     "timed out (1):\n"
                     "  loader-reject_slow_no_convrot.safetensors: expected reject, got no exit within 2 s\n"
                     "    a W4A8 layer\\nwithout convrot [CQ-W4A8-CONVROT]\n"
                     "\n"
                     "FAIL: disagrees on 1 of 4 files; impldef files (reported, not counted; --impldef fail counts them): 1 of 1 agree\n");
}

TEST_CASE("conformance run: exit 0 only when every file agrees", "[conformance]") {
  const Suite s;
  const Run r = s.run_impl("by_name", "--profile strict");
  CHECK(r.code == 0);
  CHECK(r.err == "");
  CHECK(r.out == "profile strict: 5 files, timeout 10 s\n" + kTableHead +
                     "agrees                              5        1\n"
                     "accepts what it should reject       0        0\n"
                     "rejects what it should accept       0        0\n"
                     "crashed                             0        0\n"
                     "timed out                           0        0\n"
                     "\n"
                     "ok: agrees on all 4 files; impldef files (reported, not counted; --impldef fail counts them): 1 of 1 agree\n");
}

TEST_CASE("conformance run: --json writes every file's result", "[conformance]") {
  const Suite s;
  const fs::path json = s.root / "out.json";
  const Run r = s.run_impl("reject_all", "--profile sglang --json " + test::shell_word(json.string()));
  CHECK(r.code == 1);
  std::ifstream in(json, std::ios::binary);
  const std::string doc = without_seconds({std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()});
  const std::string impl = "'" + test::impls_dir() + "/reject_all' {file}";
  const std::string head = "{\"schema\":1,\"profile\":\"sglang\",\"suite\":\"" + s.dir.string() + "\",\"impl\":\"" + impl +
                           "\",\"timeout_s\":10,\"impldef\":\"report\",\"not_selected\":0,\"counts\":{\"agrees\":2,\"accepts_reject\":0,\"rejects_accept\":3,"
                           "\"crashed\":0,\"timed_out\":0},\"files\":[\n";
  CHECK(doc == head +
                   "{\"file\":\"accept_segv_metadata.safetensors\",\"impldef\":false,\"counted\":true,\"description\":\"one tensor and string metadata\",\"rules\":[],\"expected\":\"accept\",\"got\":"
                   "\"reject\",\"class\":\"rejects_accept\",\"exit\":1,\"signal\":null,\"seconds\":S,\"output\":"
                   "\"rejected accept_segv_metadata.safetensors\\n\",\"output_truncated\":false},\n"
                   "{\"file\":\"accept_zero_tensors.safetensors\",\"impldef\":false,\"counted\":true,\"description\":\"no tensors at all\",\"rules\":[],\"expected\":\"accept\",\"got\":"
                   "\"reject\",\"class\":\"rejects_accept\",\"exit\":1,\"signal\":null,\"seconds\":S,\"output\":"
                   "\"rejected accept_zero_tensors.safetensors\\n\",\"output_truncated\":false},\n"
                   "{\"file\":\"impldef_leading_space.safetensors\",\"impldef\":true,\"counted\":false,\"description\":\"a space before the header's {\",\"rules\":[\"ST-HEADER-LEADING-SPACE\"],\"expected\":\"accept\",\"got\":"
                   "\"reject\",\"class\":\"rejects_accept\",\"exit\":1,\"signal\":null,\"seconds\":S,\"output\":"
                   "\"rejected impldef_leading_space.safetensors\\n\",\"output_truncated\":false},\n"
                   "{\"file\":\"reject_abort_gap.safetensors\",\"impldef\":false,\"counted\":true,\"description\":\"a gap of one byte before the first tensor\",\"rules\":[\"ST-OFFSET-GAP\"],\"expected\":\"reject\","
                   "\"sglang_message\":\"" + kGapMessage + "\",\"got\":"
                   "\"reject\",\"class\":\"agrees\",\"exit\":1,\"signal\":null,\"seconds\":S,\"output\":"
                   "\"rejected reject_abort_gap.safetensors\\n\",\"output_truncated\":false},\n"
                   "{\"file\":\"loader-reject_slow_no_convrot.safetensors\",\"impldef\":false,\"counted\":true,\"description\":\"a W4A8 layer\\nwithout convrot\",\"rules\":[\"CQ-W4A8-CONVROT\"],\"expected\":\"reject\","
                   "\"sglang_message\":\"ValueError: Serialized W4A8 layer 'lin' must set convrot=true\",\"got\":"
                   "\"reject\",\"class\":\"agrees\",\"exit\":1,\"signal\":null,\"seconds\":S,\"output\":"
                   "\"rejected loader-reject_slow_no_convrot.safetensors\\n\",\"output_truncated\":false}\n"
                   "]}\n");
}

TEST_CASE("conformance run: --json records signals, timeouts and a bounded output", "[conformance]") {
  const Suite s;
  const fs::path json = s.root / "out.json";
  // sh -c for what needs a shell: the output of `yes`, cut at 3000 bytes.
  const std::string impl = "sh -c 'yes | head -c 3000; case \"$1\" in *_segv*) kill -SEGV $$;; *_slow*) sleep 60;; "
                           "esac; exit 0' sh {file}";
  const Run r = s.run("conformance run --suite " + test::shell_word(s.dir.string()) + " --profile strict --timeout 2 --impl " +
                      test::shell_word(impl) + " --json " + test::shell_word(json.string()));
  CHECK(r.code == 1);
  std::ifstream in(json, std::ios::binary);
  const std::string doc{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::string ys;
  for (int i = 0; i < 512; ++i) ys += "y\\n";  // the first 1,024 bytes
  CHECK(doc.find("\"counts\":{\"agrees\":1,\"accepts_reject\":2,\"rejects_accept\":0,\"crashed\":1,\"timed_out\":1}") !=
        std::string::npos);
  const auto line = [&](const std::string& file) {
    const auto at = doc.find("{\"file\":\"" + file + "\"");
    REQUIRE(at != std::string::npos);
    return without_seconds(doc.substr(at, doc.find('\n', at) - at));
  };
  CHECK(line("accept_segv_metadata.safetensors") ==
        "{\"file\":\"accept_segv_metadata.safetensors\",\"impldef\":false,\"counted\":true,\"description\":\"one tensor and string metadata\",\"rules\":[],\"expected\":\"accept\",\"got\":\"crash\","
        "\"class\":\"crashed\",\"exit\":null,\"signal\":11,\"seconds\":S,\"output\":\"" + ys +
        "\",\"output_truncated\":true},");
  CHECK(line("loader-reject_slow_no_convrot.safetensors") ==
        "{\"file\":\"loader-reject_slow_no_convrot.safetensors\",\"impldef\":false,\"counted\":true,\"description\":\"a W4A8 layer\\nwithout convrot\",\"rules\":[\"CQ-W4A8-CONVROT\"],\"expected\":\"reject\",\"got\":"
        "\"timeout\",\"class\":\"timed_out\",\"exit\":null,\"signal\":null,\"seconds\":S,\"output\":\"" + ys +
        "\",\"output_truncated\":true}");
}

TEST_CASE("conformance run: usage errors exit 2 before anything runs", "[conformance]") {
  const Suite s;
  const std::string suite = " --suite " + test::shell_word(s.dir.string());
  const std::string ok_impl = " --impl " + test::shell_word(test::shell_word(test::impls_dir() + "/accept_all") + " {file}");
  const auto usage = [&](const std::string& args, const std::string& err) {
    const Run r = s.run("conformance run" + args);
    INFO(args);
    CHECK(r.code == 2);
    CHECK(r.out == "");
    CHECK(r.err == err);
  };
  usage(suite + " --profile bogus" + ok_impl,
        "--profile: bogus not in {strict,safetensors,sglang,comfyui,kitchen}\nRun with --help for more information.\n");
  usage(suite + ok_impl, "--profile is required\nRun with --help for more information.\n");
  usage(suite + " --profile strict", "--impl is required\nRun with --help for more information.\n");
  usage(suite + " --profile strict --impl ' '",
        "safespec: --impl: expected a command in the template, found only blanks\n");
  usage(suite + " --profile strict --impl " + test::shell_word(test::shell_word(test::impls_dir() + "/accept_all")),
        "safespec: --impl: expected {file} in the template (where each suite file's path goes), found '" +
            test::shell_word(test::impls_dir() + "/accept_all") + "'\n");
  usage(suite + " --profile strict --impl 'cat {file} | wc -c'",
        "safespec: --impl: found an unquoted '|' at byte 11 of the template: the command runs without a shell, so "
        "pipes, redirections and variables need sh -c '...' (or quote the character to pass it on literally)\n");
  usage(suite + " --profile strict --impl 'no_such_program_for_safespec {file}'",
        "safespec: cannot run 'no_such_program_for_safespec': No such file or directory\n");
  usage(" --suite " + test::shell_word(s.root.string()) + " --profile strict" + ok_impl,
        "safespec: " + s.root.string() + ": expected a conformance suite (a manifest.jsonl), found none: pass "
        "--suite DIR (a checkout's corpus/conformance, or share/safespec/conformance where safespec is installed)\n");
  usage(suite + " --profile strict" + ok_impl + " --jobs 0",
        "--jobs: Value 0 not in range 1 to 1024\nRun with --help for more information.\n");
  usage(suite + " --profile strict" + ok_impl + " --timeout 0",
        "--timeout: Value 0 not in range 0.001000 to 86400.000000\nRun with --help for more information.\n");
  const std::string nowhere = (s.root / "no_dir" / "out.json").string();
  usage(suite + " --profile strict" + ok_impl + " --json " + test::shell_word(nowhere),
        "safespec: --json: cannot write '" + nowhere + "'\n");
  // A manifest naming a file the suite lacks, or one outside it.
  fs::remove(s.dir / "accept_zero_tensors.safetensors");
  usage(suite + " --profile strict" + ok_impl,
        "safespec: " + s.dir.string() +
            ": manifest.jsonl lists 'accept_zero_tensors.safetensors', which is not a file there\n");
  std::ofstream(s.dir / "manifest.jsonl", std::ios::binary)
      << conformance::render_case(entry("accept_x/../../escape.safetensors", "", {}, {A, A, A, A, A}, "")) << "\n";
  usage(suite + " --profile strict" + ok_impl,
        "safespec: " + s.dir.string() +
            ": manifest: expected a path inside the suite directory, found 'accept_x/../../escape.safetensors'\n");
  std::ofstream(s.dir / "manifest.jsonl", std::ios::binary) << "{\"file\": 1}\n";
  usage(suite + " --profile strict" + ok_impl, "safespec: " + (s.dir / "manifest.jsonl").string() +
                                                   ":1: manifest line: expected \"file\": a non-empty string\n");
}

TEST_CASE("conformance run: stopped by SIGTERM, it kills its children and dies of the signal", "[conformance]") {
  const Suite s;
  // Every file hangs (a directory of only _slow names would do too: here
  // sleep_some is given one through the template).
  const std::string run = test::shell_word(test::cli_path()) + " conformance run --suite " + test::shell_word(s.dir.string()) +
                          " --profile strict --impl " + test::shell_word(test::shell_word(test::impls_dir() + "/sleep_some") + " {file}_slow");
  const std::string err = (s.root / "run_stderr.txt").string();
  const std::string script = run + " >/dev/null 2>" + test::shell_word(err) + " & pid=$!; sleep 2; kill -TERM $pid; wait $pid; echo $?";
  const Run r = test::run_cli(s.root.string(), "rules >/dev/null; sh -c " + test::shell_word(script));
  CHECK(r.out == "143\n");
  std::ifstream in(err);
  CHECK(std::string{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()} ==
        "safespec: stopped by SIGTERM\n");
}

TEST_CASE("conformance run: the progress bar", "[conformance]") {
  CHECK(conformance::progress_bar(0, 4, 8) == "[........] 0/4");
  CHECK(conformance::progress_bar(3, 4, 8) == "[######..] 3/4");
  CHECK(conformance::progress_bar(4, 4, 8) == "[########] 4/4");
  CHECK(conformance::progress_bar(0, 0, 8) == "[########] 0/0");
}

TEST_CASE("conformance run: the command in its build tree finds the checkout's suite from any directory",
          "[conformance]") {
  const test::TempDir elsewhere("conformance-elsewhere");
  const std::string cli = test::shell_word(test::cli_path());
  const std::string cmd = "cd " + test::shell_word(elsewhere.dir.string()) + " && " + cli +
                          " conformance run --profile safetensors --only 'accept_F6.5_*' --impl " +
                          test::shell_word(test::cli_path() + " check --profile safetensors --fail-on error {file}") +
                          " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  while (const std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = ::pclose(p);
  INFO(out);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(out.find("no conformance suite") == std::string::npos);
  CHECK(out.find("expected a conformance suite") == std::string::npos);
  CHECK(out.find("accept") != std::string::npos);
}
