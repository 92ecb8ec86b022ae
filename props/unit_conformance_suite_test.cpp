// The committed conformance suite (corpus/conformance/): it covers
// every rule of the catalogue, each file breaks exactly the rules its
// manifest line lists, the name's prefix agrees with the expectations, and
// the expectations are what `safespec check --profile P --data FILE` says
// (check_paths, the function the command calls). Regeneration byte for byte
// is the CTest conformance.regenerates_identically (tools/CMakeLists.txt).
#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "conformance/manifest.hpp"
#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "spec/finding_sink.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/commands/check.hpp"

using namespace safespec;
using namespace safespec::conformance;

namespace {

const std::filesystem::path kSuite = test::suite_dir();

const std::vector<Case>& suite() {
  static const std::vector<Case> cases = [] {
    auto read = read_manifest(kSuite);
    if (!read) FAIL(read.error());
    return std::move(read).value();
  }();
  return cases;
}

// The one rule no reader can report: the writer refuses the name, and a
// reader sees a __metadata__ entry instead (X10). Its file lists it beside
// the ST-METADATA-TYPE finding it produces.
constexpr std::string_view kWriterOnly = "ST-TENSOR-NAME-RESERVED";

// Rules no file can break alone, because the defect implies another rule's
// (gen/quant_mutations*.cpp lists each as a companion and says why).
// Their files break exactly the pair.
const std::map<std::string_view, std::string_view> kNeverAlone{
    {"ST-DUPLICATE-NESTED-KEY", "repeated keys live inside unknown fields: ST-TENSOR-UNKNOWN-FIELD warns"},
    {"ST-TENSOR-NAME-RESERVED", "writer-only: a reader sees ST-METADATA-TYPE"},
    {"CQ-MARKER-ORPHAN", "a marked layer without P.weight lacks its format's tensors (CQ-*-TENSORS)"},
    {"CQ-FORMAT-MISSING", "sglang resolves no config for format None (CQ-SGLANG-FORMATS)"},
    {"CQ-FORMAT-UNKNOWN", "sglang resolves no config for an unknown format (CQ-SGLANG-FORMATS)"},
    {"CQ-MARKER-INT", "only a value of the wrong JSON type fails int() (CQ-MARKER-KEY-TYPE warns)"},
    {"CQ-NVFP4-WEIGHT-RANK", "kitchen's swizzled layout needs a 2-D weight (CQ-NVFP4-LAYOUT)"},
    {"CQ-W4A8-GROUP-SIZE", "the K predicate requires G >= 4 (CQ-W4A8-K)"},
    {"CQ-W4A8-CORRECTION", "a bad correction is still a correction (CQ-W4A8-CORRECTION-IGNORED warns)"},
    {"CQ-W4A8-HADAMARD", "a C that is not a power of 4 is not 256 (CQ-W4A8-CUDA-GROUPSIZE)"},
    {"CQ-W6A8-GEOMETRY", "only kitchen 2a6f4ef reads 6-bit storage; the rest refuse its scale grid (CQ-W4A8-SHAPES)"},
    {"CQ-W6A8-CODEBOOK", "only kitchen 2a6f4ef reads 6-bit storage; the rest refuse its scale grid (CQ-W4A8-SHAPES)"},
    {"CQ-AWQ-TENSORS", "sglang has no awq_w4a16 config (CQ-SGLANG-FORMATS)"},
    {"CQ-AWQ-SHAPES", "sglang has no awq_w4a16 config (CQ-SGLANG-FORMATS)"},
    {"CQ-AWQ-ZERO-SPELLING", "sglang has no awq_w4a16 config (CQ-SGLANG-FORMATS)"},
    {"CQ-SVDQUANT-TENSORS", "ComfyUI and sglang refuse svdquant_w4a4 by name (CQ-FORMAT-UNKNOWN, CQ-SGLANG-FORMATS)"},
    {"CQ-SVDQUANT-LAYOUT", "ComfyUI and sglang refuse svdquant_w4a4 by name (CQ-FORMAT-UNKNOWN, CQ-SGLANG-FORMATS)"},
    {"CQ-SVDQUANT-SHAPES", "ComfyUI and sglang refuse svdquant_w4a4 by name (CQ-FORMAT-UNKNOWN, CQ-SGLANG-FORMATS)"},
    {"CQ-LEGACY-INT8", "a declared legacy checkpoint's I8 weights are unmarked to ComfyUI (CQ-MARKER-MISSING)"},
    {"CQ-LEGACY-INT8-CONFIG", "the config's I8 weights are unmarked to ComfyUI (CQ-MARKER-MISSING)"},
    {"CQ-LEGACY-INT8-MARKERS", "the checkpoint is still declared legacy (CQ-LEGACY-INT8 warns)"},
    {"CQ-LEGACY-INT8-SCALE-MISSING", "the checkpoint is still declared legacy (CQ-LEGACY-INT8 warns)"},
    {"CQ-LEGACY-INT8-SCALE-META", "the checkpoint is still declared legacy (CQ-LEGACY-INT8 warns)"},
    {"CQ-LEGACY-INT8-NO-WEIGHTS", "the checkpoint is still declared legacy (CQ-LEGACY-INT8 warns)"},
    {"CQ-SVDQUANT-KEYS", "ComfyUI and sglang refuse svdquant_w4a4 by name (CQ-FORMAT-UNKNOWN, CQ-SGLANG-FORMATS)"},
};

std::vector<std::string> strict_findings(const Case& c) {
  HeaderParser parser;
  std::set<std::string> rules;
  for (const FileReport& r : check_paths({(kSuite / c.file).string()}, CheckOptions{.data = true}, parser))
    for (const Finding& f : r.findings) rules.insert(std::string(rule_name(f.rule)));
  return {rules.begin(), rules.end()};
}

}  // namespace

TEST_CASE("conformance suite: at least 400 files, in file order, each present", "[conformance]") {
  const auto& cases = suite();
  CHECK(cases.size() >= 400);
  for (std::size_t i = 1; i < cases.size(); ++i) CHECK(cases[i - 1].file < cases[i].file);
  for (const Case& c : cases) {
    INFO(c.file);
    CHECK(std::filesystem::is_regular_file(kSuite / c.file));
    CHECK(!c.description.empty());
  }
}

TEST_CASE("conformance suite: every rule of the catalogue has a file (safespec rules)", "[conformance]") {
  std::map<std::string, std::size_t> listed, alone;
  HeaderParser parser;
  for (const Case& c : suite()) {
    for (const std::string& r : c.rules) ++listed[r];
    if (c.rules.size() == 1) {
      ++alone[c.rules.front()];
      continue;
    }
    // Beside findings only older versions act on (listed all the same), a
    // rule is still alone.
    std::set<std::string> breaks;
    for (const FileReport& r : check_paths({(kSuite / c.file).string()}, CheckOptions{.data = c.data}, parser))
      for (const Finding& f : r.findings)
        if (!only_other_versions(f.verdicts)) breaks.insert(std::string(rule_name(f.rule)));
    if (breaks.size() == 1) ++alone[*breaks.begin()];
  }
  for (const RuleInfo& info : rule_catalogue()) {
    const std::string name(info.name);
    INFO("no conformance file lists " << name);
    CHECK(listed[name] > 0);
    if (!kNeverAlone.count(info.name)) {
      INFO("no conformance file breaks " << name << " alone");
      CHECK(alone[name] > 0);
    }
  }
}

TEST_CASE("conformance suite: each file breaks exactly its listed rules, and its name says its verdict", "[conformance]") {
  constexpr std::array<Profile, 4> kReaders{Profile::Safetensors, Profile::Sglang, Profile::Comfyui, Profile::Kitchen};
  for (const Case& c : suite()) {
    INFO(c.file);
    std::vector<std::string> listed;
    for (const std::string& r : c.rules)
      if (r != kWriterOnly) listed.push_back(r);
    std::sort(listed.begin(), listed.end());
    CHECK(strict_findings(c) == listed);
    // The prefix says whose verdict it is, checked here against the
    // expectations directly, not through name_prefix.
    const bool readers_accept = std::all_of(kReaders.begin(), kReaders.end(),
                                            [&](Profile p) { return c.expected(p) == Expect::Accept; });
    const bool strict_rejects = c.expected(Profile::Strict) == Expect::Reject;
    if (c.file.starts_with("accept_")) {
      CHECK(readers_accept);
      CHECK_FALSE(strict_rejects);
    } else if (c.file.starts_with("strict-reject_")) {
      CHECK(readers_accept);
      CHECK(strict_rejects);
    } else if (c.file.starts_with("loader-reject_")) {
      CHECK(c.expected(Profile::Safetensors) == Expect::Accept);
      CHECK_FALSE(readers_accept);
    } else if (c.file.starts_with("reject_")) {
      CHECK(c.expected(Profile::Safetensors) == Expect::Reject);
    } else {
      CHECK(c.file.starts_with("impldef_"));
    }
    if (!c.file.starts_with("accept_") && !c.file.starts_with("impldef_")) {
      CHECK(strict_rejects);
      // The rule the file is built to break is in its name.
      CHECK(std::any_of(c.rules.begin(), c.rules.end(),
                        [&](const std::string& r) { return c.file.find(r) != std::string::npos; }));
    }
    CHECK(std::all_of(c.file.begin(), c.file.end(), [](char ch) {
      return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
             ch == '-' || ch == '.' || ch == '/';
    }));
  }
}

TEST_CASE("conformance suite: the expectations are what check --profile P --data says", "[conformance]") {
  for (const Case& c : suite()) {
    INFO(c.file);
    for (Profile p : kManifestProfiles) {
      INFO(profile_name(p));
      HeaderParser parser;
      const auto reports = check_paths({(kSuite / c.file).string()}, CheckOptions{.profile = p, .data = true}, parser);
      const bool ok = std::all_of(reports.begin(), reports.end(), [](const FileReport& r) { return r.ok(); });
      CHECK((ok ? Expect::Accept : Expect::Reject) == c.expected(p));
      if (p != Profile::Sglang || ok) continue;
      // sglang's message names the file by its path under the suite.
      std::string message;
      for (const FileReport& r : reports)
        if (r.judged && !r.consumers[Consumer::Sglang].loads) {
          const Outcome& o = r.consumers[Consumer::Sglang];
          message = o.unknown.empty() ? o.message : "(unknown: " + o.unknown + ")";
          break;
        }
      const std::string prefix = kSuite.string() + "/";
      for (std::size_t at = message.find(prefix); at != std::string::npos; at = message.find(prefix, at))
        message.erase(at, prefix.size());
      CHECK(message == c.sglang_message);
    }
    // Each other version where the manifest lists one, else the default's.
    for (const ConsumerInfo& info : kConsumerTable)
      for (std::size_t v = 0; v < info.versions.size(); ++v) {
        if (v == info.default_version) continue;  // the profile loop above checked it
        INFO(info.versions[v].id);
        VersionChoice chosen = default_versions();
        chosen[info.id] = static_cast<std::uint8_t>(v);
        const Profile p = Profile::of(info.id);
        HeaderParser parser;
        const auto reports = check_paths({(kSuite / c.file).string()},
                                         CheckOptions{.profile = p, .data = true, .versions = chosen}, parser);
        const bool ok = std::all_of(reports.begin(), reports.end(), [](const FileReport& r) { return r.ok(); });
        CHECK((ok ? Expect::Accept : Expect::Reject) == c.expected(p, chosen));
      }
  }
}
