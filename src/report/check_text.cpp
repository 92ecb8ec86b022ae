// `safespec check` for a person at a terminal: the full text report and the
// one-line-per-file summary. The JSON and SARIF documents carry the same
// facts (report.cpp, sarif.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "spec/finding_sink.hpp"
#include "spec/quant/render.hpp"
#include "spec/quote.hpp"
#include "src/report/report.hpp"

namespace safespec {

namespace {

// " [reference: InvalidOffset]" for a container rule, where the reference
// reader's own error variant is what a loader sees; other rules are ones the
// reference accepts, which the verdict lines already say.
std::string reference_text(const Finding& f) {
  if (const Verdict* v = f.verdict(Consumer::Safetensors)) return " [reference: " + v->error + "]";
  const RuleInfo& info = rule_info(f.rule);
  if (info.scope != RuleScope::Container || info.reference.empty()) return "";
  return " [reference: " + std::string(info.reference) + "]";
}

// " [sglang: rejects, comfyui: mis-loads]": what the consumers other than the
// reference reader do because of f; where only other versions than the
// chosen one act, which ("sglang pr36037, 321f98d: rejects").
std::string effects_text(const Finding& f, const VersionChoice& chosen) {
  std::string out;
  const auto add = [&out](std::string who, Effect e) {
    out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", who, effect_name(e));
  };
  for (Consumer c : kConsumers) {
    if (c == Consumer::Safetensors) continue;
    if (const Verdict* v = f.verdict(c, chosen[c])) {
      add(std::string(consumer_name(c)), v->effect);
      continue;
    }
    const ConsumerInfo& info = consumer_info(c);
    for (const Effect e : {Effect::Rejects, Effect::MisLoads, Effect::Warns}) {
      std::string versions;
      for (std::size_t k = 0; k < info.versions.size(); ++k)
        if (const Verdict* v = f.verdict(c, k); v && v->effect == e && (e != Effect::Rejects || !v->error.empty()))
          versions += (versions.empty() ? " " : ", ") + std::string(info.versions[k].id);
      if (!versions.empty()) add(std::string(consumer_name(c)) + versions, e);
    }
  }
  return out.empty() ? out : " [" + out + "]";
}

std::string rule_list(const std::vector<RuleId>& rules) {
  std::string out;
  for (RuleId id : rules) out += (out.empty() ? "" : ", ") + std::string(rule_name(id));
  return out;
}

std::string outcome_text(const Outcome& o) {
  if (!o.unknown.empty()) return "unknown (" + o.unknown + ")";
  const std::string file = o.file.empty() ? "" : "file " + quote_name(o.file) + " ";
  std::string out = o.loads ? "loads" : fmt::format("rejects {}({}: {})", file, o.error, o.message);
  for (const auto& [error, message] : o.alternatives) out += fmt::format(" or, in another process, ({}: {})", error, message);
  if (o.loads && !o.config.empty()) out += " (config " + o.config + ")";
  std::vector<const quant::Assumption*> kinds, machine;
  for (const quant::Assumption& a : o.assumes) (a.about_kind() ? kinds : machine).push_back(&a);
  for (std::size_t i = 0; i < kinds.size(); ++i)
    out += fmt::format("{}{}", i ? (i + 1 == kinds.size() ? " and " : ", ") : " if ", quant::repr(kinds[i]->layer));
  if (!kinds.empty())
    out += fmt::format(" {} {} layer{}", kinds.size() == 1 ? "is" : "are",
                       kinds[0]->kind == quant::LayerKind::Embedding ? (kinds.size() == 1 ? "an embedding" : "embedding")
                                                                     : (kinds.size() == 1 ? "a Linear" : "Linear"),
                       kinds.size() == 1 ? "" : "s");
  for (const quant::Assumption* a : kinds) {
    const std::string then = a->otherwise.error.empty() ? "unknown (" + a->otherwise.message + ")"
                                                        : fmt::format("rejects ({}: {})", a->otherwise.error, a->otherwise.message);
    out += fmt::format("; {} if {}{}", then, kinds.size() == 1 ? "" : quant::repr(a->layer) + " is ",
                       a->kind == quant::LayerKind::Embedding ? "Linear" : "an embedding");
  }
  for (const quant::Assumption* a : machine)
    out += fmt::format("; if {}: otherwise rejects ({}: {})", a->machine, a->otherwise.error, a->otherwise.message);
  if (!o.mis_loads.empty()) out += "; mis-loads: " + rule_list(o.mis_loads);
  if (!o.warns.empty()) out += "; warns: " + rule_list(o.warns);
  if (!o.unchecked.empty()) {
    out += "; not checked:";
    for (std::size_t i = 0; i < o.unchecked.size(); ++i) out += (i ? ", " : " ") + o.unchecked[i];
  }
  return out;
}

bool plain_rejection(const Outcome& o) {
  return !o.loads && o.unknown.empty() && o.alternatives.empty() && o.assumes.empty();
}

// "comfyui (dynamic-vram)": a consumer in a version other than its default
// is named with it, so a verdict never passes for another version's.
std::string consumer_label(const FileReport& r, Consumer c) {
  const ConsumerInfo& info = consumer_info(c);
  if (r.chosen[c] == info.default_version) return std::string(info.name);
  return fmt::format("{} ({})", info.name, info.versions[r.chosen[c]].id);
}

// Each other version whose verdict differs from the one the report chose.
std::string version_lines(const FileReport& r) {
  std::string out;
  for (Consumer c : kConsumers) {
    if (!r.shows(c)) continue;
    const std::string chosen = outcome_text(r.consumers[c]);
    for (std::size_t v = 0; v < r.versions[c].size(); ++v) {
      if (v == r.chosen[c]) continue;
      const std::string text = outcome_text(r.versions[c][v]);
      if (text != chosen)
        out += fmt::format("  verdict {} ({}): {}\n", consumer_name(c), consumer_info(c).versions[v].id, text);
    }
  }
  return out;
}

// The verdict lines. A file every consumer rejects the same way (the
// container did not parse: sglang, ComfyUI and comfy-kitchen raise the
// reference reader's error as a SafetensorError) gets one line, not four.
std::string verdict_lines(const FileReport& r) {
  const Outcome& ref = r.consumers[Consumer::Safetensors];
  const Outcome& sg = r.consumers[Consumer::Sglang];
  const auto same_as_sglang = [&](Consumer c) {
    const Outcome& o = r.consumers[c];
    return plain_rejection(o) && o.error == sg.error && o.message == sg.message;
  };
  bool all_same = plain_rejection(ref) && plain_rejection(sg) && r.checkpoint.empty();
  std::string python;  // "sglang, comfyui, kitchen"
  for (Consumer c : kConsumers) {
    if (c == Consumer::Safetensors) continue;
    all_same = all_same && same_as_sglang(c);
    python += (python.empty() ? "" : ", ") + consumer_label(r, c);
  }
  if (all_same)
    return fmt::format("  verdict all consumers: reject (safetensors: {}{}: {}; {}: {}: {})\n",
                       ref.file.empty() ? "" : "file " + quote_name(ref.file) + ": ", ref.error, ref.message, python,
                       sg.error, sg.message) +
           version_lines(r);
  std::string out, elsewhere;
  for (Consumer c : kConsumers) {
    if (r.shows(c))
      out += "  verdict " + consumer_label(r, c) + ": " + outcome_text(r.consumers[c]) + "\n";
    else
      elsewhere += (elsewhere.empty() ? "" : ", ") + consumer_label(r, c);
  }
  out += version_lines(r);
  if (!elsewhere.empty()) out += fmt::format("  verdicts of {}: on checkpoint {}\n", elsewhere, quote_name(r.checkpoint));
  return out;
}

// Under strict, a file every consumer loads as written can still fail: name
// the failing rules and what each one asks for, so the FAIL is not mistaken
// for a loader's rejection.
std::string strict_note(const FileReport& r, Profile profile) {
  if (profile != Profile::Strict || r.ok() || !r.judged) return "";
  for (Consumer c : kConsumers)
    if (r.shows(c) && (!r.consumers[c].loads || !r.consumers[c].unknown.empty() || !r.consumers[c].mis_loads.empty()))
      return "";
  std::vector<RuleId> failing;
  for (const Finding& f : r.findings)
    if (f.severity == Severity::Error && std::find(failing.begin(), failing.end(), f.rule) == failing.end())
      failing.push_back(f.rule);
  std::string out = "  note: every consumer loads this file as it is; strict fails it for rules no consumer enforces, "
                    "which guard against:";
  for (std::size_t i = 0; i < failing.size(); ++i)
    out += fmt::format("{} {} ({})", i ? ";" : "", rule_name(failing[i]), rule_info(failing[i]).description);
  return out + "\n";
}

// One word or so per consumer for --summary, never a bare "loads" where the
// full report qualifies it: on an assumed layer kind, with something left
// unchecked, or loading some layer wrong.
std::string summary_word(const Outcome& o) {
  if (!o.unknown.empty()) return "unknown";
  if (!o.loads) return "rejects";
  std::string out = "loads";
  const bool kinds_only = std::all_of(o.assumes.begin(), o.assumes.end(), [](const quant::Assumption& a) { return a.about_kind(); });
  if (!o.assumes.empty()) out += kinds_only ? " (if the assumed layer kinds hold)" : " (if what it assumes holds)";
  if (!o.unchecked.empty()) out += " (not all checked)";
  if (!o.mis_loads.empty()) out += " (mis-loads)";
  return out;
}

// In text, a rule with more than kFoldAbove findings in a file shows its
// first kFoldShown in full and then one line with the count and the next
// kFoldPlaces places; --verbose (and JSON, SARIF) list every one.
constexpr std::size_t kFoldAbove = 3, kFoldShown = 2, kFoldPlaces = 3;

std::string counts_text(const FileReport& r, Profile profile) {
  std::size_t errors = 0, warnings = 0;
  for (const Finding& f : r.findings) (f.severity == Severity::Error ? errors : warnings) += 1;
  const std::string ignored = r.ignored == 0 ? "" : fmt::format(", {} ignored", r.ignored);
  return fmt::format("{} ({} error{}, {} warning{}{}, profile {})", r.ok() ? "OK" : "FAIL", errors,
                     errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s", ignored, profile_name(profile));
}

}  // namespace

std::string render_check_text(const std::vector<FileReport>& reports, Profile profile, bool verbose) {
  std::string out;
  for (const FileReport& r : reports) {
    if (r.io_error) {
      out += fmt::format("{}: cannot check: {}\n", r.path, *r.io_error);
      continue;
    }
    out += r.path + ": " + counts_text(r, profile) + "\n";
    if (!r.hint.empty()) out += "  hint: " + r.hint + "\n";
    // Errors first; within each severity, the report's order.
    std::vector<const Finding*> shown;
    for (const Severity s : {Severity::Error, Severity::Warning})
      for (const Finding& f : r.findings)
        if (f.severity == s) shown.push_back(&f);
    // A count line ("found N more ... beyond the 1000 listed") is never folded.
    const auto folds = [](const Finding& f) { return !unlisted_in(f).has_value(); };
    std::map<std::pair<RuleId, Severity>, std::size_t> total, printed;
    for (const Finding* f : shown)
      if (folds(*f)) ++total[{f->rule, f->severity}];
    std::vector<RuleId> hinted;  // a rule's fix once per file, under its first finding
    for (const Finding* f : shown) {
      const std::pair key{f->rule, f->severity};
      const std::size_t n = folds(*f) ? total[key] : 0, i = folds(*f) ? printed[key]++ : 0;
      // A rule that repeats: its first findings in full, then one line with
      // the count and the next few places.
      if (!verbose && n > kFoldAbove && i >= kFoldShown) {
        if (i > kFoldShown) continue;
        std::string places;
        std::size_t listed = 0;
        for (const Finding* g : shown) {
          if (g->rule != f->rule || g->severity != f->severity || !folds(*g)) continue;
          if (listed++ < kFoldShown) continue;
          if (listed > kFoldShown + kFoldPlaces) break;
          places += (places.empty() ? "" : ", ") + g->where.text();
        }
        out += fmt::format("          and {} more {} {}{} at {}{} (--verbose lists each)\n", n - kFoldShown,
                           rule_name(f->rule), severity_name(f->severity), n - kFoldShown == 1 ? "" : "s", places,
                           n - kFoldShown > kFoldPlaces ? ", ..." : "");
        continue;
      }
      out += fmt::format("  {:<7} {} at {}: {}{}{}\n", severity_name(f->severity), rule_name(f->rule), f->where.text(),
                         f->message, reference_text(*f), effects_text(*f, r.chosen));
      if (std::find(hinted.begin(), hinted.end(), f->rule) != hinted.end()) continue;
      hinted.push_back(f->rule);
      out += fmt::format("          fix: {}\n", rule_info(f->rule).fix);
    }
    for (const Unchecked& u : r.unchecked) out += fmt::format("  not checked: {} ({})\n", u.what, u.why);
    if (!r.judged) continue;
    out += verdict_lines(r) + strict_note(r, profile);
  }
  return out;
}

std::string render_check_summary(const std::vector<FileReport>& reports, Profile profile) {
  std::string out;
  for (const FileReport& r : reports) {
    if (r.io_error) {
      out += fmt::format("{}: cannot check: {}\n", r.path, *r.io_error);
      continue;
    }
    out += r.path + ": " + counts_text(r, profile);
    if (r.judged) {
      out += ":";
      bool first = true;
      for (Consumer c : kConsumers) {
        if (!r.shows(c)) continue;
        out += fmt::format("{} {} {}", first ? "" : ",", consumer_label(r, c), summary_word(r.consumers[c]));
        first = false;
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace safespec
