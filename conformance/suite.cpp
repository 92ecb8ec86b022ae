// Assembling the suite: every part's drafts, their expectations derived by
// running safespec's own pipeline on the written bytes exactly as
// `safespec check --profile P --data FILE` runs it (check_paths with
// CheckOptions{.profile = P, .data = true}), and the checks that a draft is what its name
// and its rule list say.
#include "conformance/suite.hpp"

#include <stdlib.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <set>

#include "conformance/suite_parts.hpp"
#include "src/commands/check.hpp"

namespace safespec::conformance {

namespace {

namespace fs = std::filesystem;
using detail::Draft;

bool is_data_rule(RuleId r) { return r >= RuleId::DataScale && r <= RuleId::DataInt8Range; }

bool safe_name(std::string_view name) {
  if (name.empty() || name.front() == '/' || name.find("..") != std::string_view::npos) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.' || c == '/';
  });
}

bool put(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::string rules_text(const std::vector<RuleId>& rules) {
  std::string s = "{";
  for (RuleId r : rules) s += (s.size() > 1 ? ", " : "") + detail::rule_text(r);
  return s + "}";
}

struct Built {
  std::vector<SuiteFile> files;
  std::vector<std::string> problems;
};

// One profile's run of `safespec check --profile P --data PATH`.
struct Run {
  bool accepts = true;
  std::vector<RuleId> rules;  // every finding's rule, distinct, RuleId order
  std::string sglang_message;
};

Run run_check(const std::string& path, Profile p, const VersionChoice& versions = default_versions()) {
  HeaderParser parser;
  const std::vector<FileReport> reports =
      check_paths({path}, CheckOptions{.profile = p, .data = true, .versions = versions}, parser);
  Run run;
  const Finding* first_error = nullptr;
  for (const FileReport& r : reports) {
    if (r.io_error || !r.ok()) run.accepts = false;
    for (const Finding& f : r.findings) {
      run.rules.push_back(f.rule);
      if (!first_error && f.severity == Severity::Error) first_error = &f;
    }
  }
  std::sort(run.rules.begin(), run.rules.end());
  run.rules.erase(std::unique(run.rules.begin(), run.rules.end()), run.rules.end());
  if (p == Profile::Sglang && !run.accepts) {
    // sglang's Outcome (the checkpoint's first raise); a shard index's own
    // report is not judged, so look for the first judged one.
    for (const FileReport& r : reports)
      if (r.judged && !r.consumers[Consumer::Sglang].loads) {
        const Outcome& o = r.consumers[Consumer::Sglang];
        run.sglang_message = o.unknown.empty() ? o.message : "(unknown: " + o.unknown + ")";
        break;
      }
    if (run.sglang_message.empty() && first_error) run.sglang_message = first_error->message;
    if (run.sglang_message.empty()) run.sglang_message = "(unreadable)";
  }
  return run;
}

Built build(std::vector<Draft> drafts) {
  Built out;
  std::string pattern = (fs::temp_directory_path() / "safespec-suite-XXXXXX").string();
  if (!mkdtemp(pattern.data())) {
    out.problems.push_back("cannot create a scratch directory under " + fs::temp_directory_path().string());
    return out;
  }
  const fs::path scratch(pattern);
  const std::string prefix = scratch.string() + "/";
  std::set<std::string> names;
  std::set<std::string> final_names;
  std::sort(drafts.begin(), drafts.end(), [](const Draft& a, const Draft& b) { return a.name < b.name; });
  for (Draft& d : drafts) {
    const auto problem = [&](const std::string& what) { out.problems.push_back(d.name + ": " + what); };
    if (!safe_name(d.name)) problem("not a plain ASCII file name");
    if (!names.insert(d.name).second) problem("a second file of this name");
    const fs::path path = scratch / d.name;
    if (!put(path, d.bytes)) problem("cannot write " + path.string());
    for (const auto& [name, bytes] : d.beside)
      if (!put(path.parent_path() / name, bytes)) problem("cannot write " + name);

    Case c;
    c.file = d.name;  // until the verdicts name it
    c.description = d.description;
    std::vector<RuleId> found;
    for (std::size_t i = 0; i < kManifestProfiles.size(); ++i) {
      const Run run = run_check(path.string(), kManifestProfiles[i]);
      c.expect[i] = run.accepts ? Expect::Accept : Expect::Reject;
      if (kManifestProfiles[i] == Profile::Sglang) c.sglang_message = run.sglang_message;
      if (kManifestProfiles[i] == Profile::Strict) found = run.rules;
    }
    // Every other version of every consumer, where its verdict differs.
    for (const ConsumerInfo& info : kConsumerTable)
      for (std::size_t v = 0; v < info.versions.size(); ++v) {
        if (v == info.default_version) continue;
        VersionChoice chosen = default_versions();
        chosen[info.id] = static_cast<std::uint8_t>(v);
        const Profile p = Profile::of(info.id);
        const Expect e = run_check(path.string(), p, chosen).accepts ? Expect::Accept : Expect::Reject;
        if (e != c.expected(p)) c.versions.emplace_back(std::string(info.name) + "=" + std::string(info.versions[v].id), e);
      }
    std::vector<RuleId> want = d.rules;
    std::sort(want.begin(), want.end());
    if (found != want) problem("strict findings " + rules_text(found) + ", built to break exactly " + rules_text(want));
    std::vector<RuleId> listed = found;
    listed.insert(listed.end(), d.writer_only.begin(), d.writer_only.end());
    std::sort(listed.begin(), listed.end());
    listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
    for (RuleId r : listed) c.rules.push_back(detail::rule_text(r));
    c.data = std::any_of(found.begin(), found.end(), is_data_rule);

    // accept_: the reference and every consumer read the file; strict may
    // still flag a spelling the written spec forbids.
    constexpr std::array<Profile, 4> kReaders{Profile::Safetensors, Profile::Sglang, Profile::Comfyui, Profile::Kitchen};
    const bool all_accept = std::all_of(kReaders.begin(), kReaders.end(),
                                        [&](Profile p) { return c.expected(p) == Expect::Accept; });
    const bool strict_rejects = c.expected(Profile::Strict) == Expect::Reject;
    if (d.name.starts_with("accept_") ? !all_accept
        : d.name.starts_with("reject_") ? !strict_rejects
                                        : !d.name.starts_with("impldef_"))
      problem("the draft's accept_/reject_ disagrees with the expectations");
    if (d.description.empty()) problem("no description");
    // The name states whose verdict rejects it (manifest.hpp); the draft's
    // own accept_/reject_ only said what its author meant, checked above.
    c.file = std::string(name_prefix(c).prefix) + std::string(name_stem(d.name));
    if (!final_names.insert(c.file).second) problem("a second file named " + c.file);
    // Only the first path component carries the prefix; sglang's message
    // names the file (or the index folder) as it was written here.
    const auto first_component = [](const std::string& n) { return n.substr(0, n.find('/')); };
    c.sglang_message =
        replace_all(replace_all(c.sglang_message, prefix, ""), first_component(d.name), first_component(c.file));

    out.files.push_back(SuiteFile{c, d.bytes});
    for (auto& [name, bytes] : d.beside) {
      Case shard;
      shard.file = (fs::path(c.file).parent_path() / name).string();
      out.files.push_back(SuiteFile{shard, std::move(bytes)});
    }
  }
  std::error_code ec;
  fs::remove_all(scratch, ec);
  std::sort(out.files.begin(), out.files.end(),
            [](const SuiteFile& a, const SuiteFile& b) { return a.entry.file < b.entry.file; });
  return out;
}

Built build_all() {
  std::vector<Draft> drafts;
  for (auto part : {detail::container_drafts, detail::tricky_drafts, detail::quant_drafts, detail::data_drafts,
                    detail::index_drafts, detail::legacy_int8_drafts}) {
    std::vector<Draft> more = part();
    for (Draft& d : more) drafts.push_back(std::move(d));
  }
  return build(std::move(drafts));
}

}  // namespace

std::vector<SuiteFile> build_suite() { return build_all().files; }

Result<std::size_t, std::string> generate_suite(const std::filesystem::path& dir) {
  Built built = build_all();
  if (!built.problems.empty()) {
    std::string msg = "the suite is not what its drafts say (" + std::to_string(built.problems.size()) + " problems):";
    for (std::size_t i = 0; i < built.problems.size() && i < 40; ++i) msg += "\n  " + built.problems[i];
    return msg;
  }
  std::string manifest;
  std::size_t lines = 0;
  for (const SuiteFile& f : built.files) {
    if (!put(dir / f.entry.file, f.bytes)) return "cannot write " + (dir / f.entry.file).string();
    if (f.entry.description.empty()) continue;  // a shard beside its index
    manifest += render_case(f.entry) + "\n";
    ++lines;
  }
  if (!put(dir / "manifest.jsonl", std::vector<std::uint8_t>(manifest.begin(), manifest.end())))
    return "cannot write " + (dir / "manifest.jsonl").string();
  return lines;
}

}  // namespace safespec::conformance
