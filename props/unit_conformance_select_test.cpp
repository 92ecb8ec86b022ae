// `conformance run` as a parser maintainer uses it: impldef_ files
// in their own column (--impldef report|fail|skip), subsets (--only,
// --exclude, --rerun-failed) and JUnit XML, on the five-file suite of
// props/conformance_run_support.hpp.
#include <fstream>
#include <iterator>
#include <string>

#include "conformance/selection.hpp"
#include "props/catch.hpp"
#include "props/conformance_run_support.hpp"
#include "props/unit_support.hpp"

using namespace safespec;
using test::Run;
using test::Suite;

namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every time="1.234" becomes time="T".
std::string without_times(std::string doc) {
  const std::string key = "time=\"";
  for (std::size_t at = doc.find(key); at != std::string::npos; at = doc.find(key, at + 1)) {
    const std::size_t begin = at + key.size();
    doc.replace(begin, doc.find('"', begin) - begin, "T");
  }
  return doc;
}

const std::string kTable = "class                           files  impldef\n";

}  // namespace

TEST_CASE("conformance run: impldef_ files are reported, not failed, unless --impldef fail", "[conformance]") {
  const Suite s;
  // Under safetensors by_name disagrees only on the impldef_ file (and on the
  // W4A8 file, left out here): it rejects what the reference accepts.
  const std::string args = "--profile safetensors --exclude CQ-W4A8-CONVROT";
  Run r = s.run_impl("by_name", args);
  CHECK(r.code == 0);
  CHECK(r.out == "profile safetensors: 4 files, timeout 10 s; 1 more not selected\n" + kTable +
                     "agrees                              3        0\n"
                     "accepts what it should reject       0        0\n"
                     "rejects what it should accept       1        1\n"
                     "crashed                             0        0\n"
                     "timed out                           0        0\n"
                     "\n"
                     "rejects what it should accept (1):\n"
                     "  impldef_leading_space.safetensors [impldef]: expected accept, got exit status 1\n"
                     "    a space before the header's { [ST-HEADER-LEADING-SPACE]\n"
                     "\n"
                     "ok: agrees on all 3 files; impldef files (reported, not counted; --impldef fail counts them): "
                     "0 of 1 agree\n");
  r = s.run_impl("by_name", args + " --impldef fail");
  CHECK(r.code == 1);
  CHECK(r.out.ends_with("\nFAIL: disagrees on 1 of 4 files\n"));
  r = s.run_impl("by_name", args + " --impldef skip");
  CHECK(r.code == 0);
  CHECK(r.out.starts_with("profile safetensors: 3 files, timeout 10 s; 2 more not selected\n"));
  CHECK(r.out.ends_with("\nok: agrees on all 3 files\n"));
  CHECK(s.run_impl("by_name", args + " --impldef maybe").code == 2);
}

TEST_CASE("conformance run: --only and --exclude by group, rule id and glob", "[conformance]") {
  const Suite s;
  const auto files = [&](const std::string& more) {
    const Run r = s.run_impl("by_name", "--profile strict " + more);
    INFO(more << "\n" << r.out << r.err);
    CHECK(r.code == 0);
    return r.out.substr(0, r.out.find('\n'));
  };
  // Files that break no rule are in every group; the rest by their rules' scope.
  CHECK(files("--only quant") == "profile strict: 3 files, timeout 10 s; 2 more not selected");
  CHECK(files("--only container") == "profile strict: 4 files, timeout 10 s; 1 more not selected");
  CHECK(files("--only index") == "profile strict: 2 files, timeout 10 s; 3 more not selected");
  CHECK(files("--only ST-OFFSET-GAP") == "profile strict: 1 file, timeout 10 s; 4 more not selected");
  CHECK(files("--only 'ST-*' --only 'CQ-*'") == "profile strict: 3 files, timeout 10 s; 2 more not selected");
  CHECK(files("--only '*zero*'") == "profile strict: 1 file, timeout 10 s; 4 more not selected");
  CHECK(files("--exclude 'accept_*' --exclude quant") == "profile strict: 2 files, timeout 10 s; 3 more not selected");

  // A selector that names nothing is a usage error, and so is a selection of none.
  Run r = s.run_impl("by_name", "--profile strict --only ST-NO-SUCH-RULE");
  CHECK(r.code == 2);
  CHECK(r.err == "safespec: expected a group (container, index, quant, data), a rule id of `safespec rules` or a "
                 "glob, found 'ST-NO-SUCH-RULE'\n");
  r = s.run_impl("by_name", "--profile strict --only ST-OFFSET-GAP --exclude 'reject_*'");
  CHECK(r.code == 2);
  CHECK(r.err == "safespec: expected at least one file to run, found none of the 5 in the suite left by --only, "
                 "--exclude, --rerun-failed and --impldef skip\n");
}

TEST_CASE("conformance run: groups come from the rule catalogue's scopes and tiers", "[conformance]") {
  using V = std::vector<std::string_view>;
  conformance::Case c;
  CHECK(conformance::case_groups(c) == V{"container", "index", "quant", "data"});
  c.rules = {"ST-OFFSET-GAP", "CQ-W4A8-CONVROT"};
  CHECK(conformance::case_groups(c) == V{"container", "quant"});
  c.rules = {"CQ-DATA-S-REL"};
  CHECK(conformance::case_groups(c) == V{"quant", "data"});
  c.rules = {"ST-OFFSET-GAP"};
  c.data = true;
  CHECK(conformance::case_groups(c) == V{"container", "data"});
}

TEST_CASE("conformance run: --rerun-failed runs what an earlier --json did not agree on", "[conformance]") {
  const Suite s;
  const auto json = s.root / "first.json";
  Run r = s.run_impl("reject_all", "--profile sglang --json " + test::shell_word(json.string()));
  CHECK(r.code == 1);
  r = s.run_impl("by_name", "--profile sglang --rerun-failed " + test::shell_word(json.string()));
  CHECK(r.code == 0);
  CHECK(r.out.starts_with("profile sglang: 3 files, timeout 10 s; 2 more not selected\n"));
  CHECK(r.out.ends_with("\nok: agrees on all 2 files; impldef files (reported, not counted; --impldef fail counts "
                        "them): 0 of 1 agree\n"));
  // A run where everything agreed leaves nothing to rerun.
  const auto clean = s.root / "clean.json";
  CHECK(s.run_impl("by_name", "--profile strict --json " + test::shell_word(clean.string())).code == 0);
  r = s.run_impl("by_name", "--profile strict --rerun-failed " + test::shell_word(clean.string()));
  CHECK(r.code == 0);
  CHECK(r.out == "nothing to rerun: every file of that run agreed\n");
  // Not a document of ours.
  std::ofstream(s.root / "other.json") << "{\"tensors\": []}";
  r = s.run_impl("by_name", "--profile strict --rerun-failed " + test::shell_word((s.root / "other.json").string()));
  CHECK(r.code == 2);
  CHECK(r.err == "safespec: --rerun-failed: " + (s.root / "other.json").string() +
                     ": expected an object with a \"files\" array, as `conformance run --json` writes\n");
}

TEST_CASE("conformance run: --json carries each file's rules, description and whether it counted", "[conformance]") {
  const Suite s;
  const auto json = s.root / "out.json";
  CHECK(s.run_impl("by_name", "--profile strict --json " + test::shell_word(json.string())).code == 0);
  const std::string doc = read(json);
  CHECK(doc.find(",\"timeout_s\":10,\"impldef\":\"report\",\"not_selected\":0,\"counts\":") != std::string::npos);
  CHECK(doc.find("{\"file\":\"impldef_leading_space.safetensors\",\"impldef\":true,\"counted\":false,\"description\":"
                 "\"a space before the header's {\",\"rules\":[\"ST-HEADER-LEADING-SPACE\"],\"expected\":\"reject\"") !=
        std::string::npos);
  CHECK(doc.find("{\"file\":\"loader-reject_slow_no_convrot.safetensors\",\"impldef\":false,\"counted\":true,\"description\":"
                 "\"a W4A8 layer\\nwithout convrot\",\"rules\":[\"CQ-W4A8-CONVROT\"],") != std::string::npos);
}

TEST_CASE("conformance run: --junit writes one test case per file", "[conformance]") {
  const Suite s;
  const auto xml = s.root / "junit.xml";
  const Run r = s.run_impl("crash_some", "--profile kitchen --junit " + test::shell_word(xml.string()));
  CHECK(r.code == 1);
  const std::string suite = "safespec conformance kitchen";
  CHECK(without_times(read(xml)) ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites tests=\"5\" failures=\"1\" errors=\"2\" skipped=\"1\" time=\"T\">\n"
        "  <testsuite name=\"" + suite + "\" tests=\"5\" failures=\"1\" errors=\"2\" skipped=\"1\" time=\"T\">\n"
        "    <testcase classname=\"" + suite + "\" name=\"accept_segv_metadata.safetensors\" time=\"T\">\n"
        "      <error message=\"expected accept, got killed by SIGSEGV\" type=\"crashed\">one tensor and string "
        "metadata\n</error>\n"
        "    </testcase>\n"
        "    <testcase classname=\"" + suite + "\" name=\"accept_zero_tensors.safetensors\" time=\"T\"/>\n"
        "    <testcase classname=\"" + suite + "\" name=\"impldef_leading_space.safetensors\" time=\"T\">\n"
        "      <skipped message=\"impldef (reported, not counted; --impldef fail counts it): expected accept, got exit "
        "status 1\"/>\n"
        "    </testcase>\n"
        "    <testcase classname=\"" + suite + "\" name=\"reject_abort_gap.safetensors\" time=\"T\">\n"
        "      <error message=\"expected reject, got killed by SIGABRT\" type=\"crashed\">a gap of one byte before the "
        "first tensor [ST-OFFSET-GAP]\nsglang: " + test::kGapMessage + "\n</error>\n"
        "    </testcase>\n"
        "    <testcase classname=\"" + suite + "\" name=\"loader-reject_slow_no_convrot.safetensors\" time=\"T\">\n"
        "      <failure message=\"expected accept, got exit status 1\" type=\"rejects_accept\">a W4A8 layer\nwithout "
        "convrot [CQ-W4A8-CONVROT]\nsglang: ValueError: Serialized W4A8 layer &apos;lin&apos; must set "
        "convrot=true\n</failure>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "</testsuites>\n");
  const std::string nowhere = (s.root / "no_dir" / "j.xml").string();
  const Run bad = s.run_impl("crash_some", "--profile kitchen --junit " + test::shell_word(nowhere));
  CHECK(bad.code == 2);
  CHECK(bad.err == "safespec: --junit: cannot write '" + nowhere + "'\n");
}
