// Properties of the quantized-layer spec over generated checkpoints
// (gen/quant_layers.hpp) and their single-defect mutants
// (gen/quant_mutations.hpp), through the whole `safespec check`
// pipeline (check_memory):
// (1) a valid checkpoint has no error findings in strict and in every
//     consumer profile that takes its formats;
// (2) each mutation makes exactly its rule fire, and sglang's first message is
//     the verbatim template (comfy-quant-markers.md §3) filled with the values
//     the mutation chose;
// (3) with defects in several layers, sglang's message is the one its phase
//     order (§3.1-§3.10) reaches first.
// That the catalogue covers every header-level CQ / NUM rule is checked with
// every other rule's coverage (props/unit_rule_coverage_test.cpp).
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "gen/models.hpp"
#include "gen/quant_layers.hpp"
#include "gen/quant_mutations.hpp"
#include "props/catch.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/commands/check.hpp"

namespace q = safespec::gen::quant;
using namespace safespec;

namespace {

std::vector<FileReport> check(const q::QCheckpoint& c, Profile p) {
  const auto bytes = q::serialize_checkpoint(c);
  std::vector<MemoryFile> files;
  for (std::size_t i = 0; i < bytes.size(); ++i) files.push_back(MemoryFile{c.files[i].name, bytes[i]});
  HeaderParser parser;
  return check_memory(files, p, parser);
}

std::string text(const std::vector<FileReport>& rs) {
  std::string s;
  for (const FileReport& r : rs)
    for (const Finding& f : r.findings)
      s += std::string(f.severity == Severity::Error ? "E " : "W ") + std::string(rule_name(f.rule)) + " at " +
           gen::escaped_text(f.where.text()) + ": " + gen::escaped_text(f.message) + "\n";
  return s;
}

std::set<RuleId> errors(const std::vector<FileReport>& rs) {
  std::set<RuleId> out;
  for (const FileReport& r : rs)
    for (const Finding& f : r.findings)
      if (f.severity == Severity::Error) out.insert(f.rule);
  return out;
}

bool has_warning(const std::vector<FileReport>& rs, RuleId rule) {
  for (const FileReport& r : rs)
    for (const Finding& f : r.findings)
      if (f.rule == rule && f.severity == Severity::Warning) return true;
  return false;
}

const Outcome& sglang_outcome(const std::vector<FileReport>& rs) {
  return rs.front().consumers[Consumer::Sglang];
}

std::string names(const std::set<RuleId>& rules) {
  std::string s;
  for (RuleId r : rules) s += std::string(rule_name(r)) + " ";
  return s;
}

bool rejects_for(const Finding& f, Consumer c) {
  const Verdict* v = f.verdict(c);
  return v && v->effect == Effect::Rejects;
}

}  // namespace

TEST_CASE("quant (1): a generated valid checkpoint has no error findings", "[prop][quant]") {
  test::capped_prop("valid for every consumer: strict and every profile", 60, [] {
    const q::QCheckpoint c = *q::valid_checkpoint();
    for (Profile p : {Profile::Strict, Profile::Safetensors, Profile::Sglang, Profile::Comfyui, Profile::Kitchen}) {
      const auto rs = check(c, p);
      if (!errors(rs).empty()) RC_FAIL(std::string(profile_name(p)) + " errors:\n" + text(rs));
      const Outcome& sg = sglang_outcome(rs);
      RC_ASSERT(sg.loads);
      RC_ASSERT(sg.config == q::expected_config(c));
      for (Consumer k : {Consumer::Comfyui, Consumer::Kitchen})
        RC_ASSERT(rs.front().consumers[k].loads);
    }
  });
  test::capped_prop("valid for ComfyUI only: only sglang objects", 60, [] {
    const q::QCheckpoint c = *q::comfy_checkpoint();
    for (Profile p : {Profile::Safetensors, Profile::Comfyui, Profile::Kitchen}) {
      const auto rs = check(c, p);
      if (!errors(rs).empty()) RC_FAIL(std::string(profile_name(p)) + " errors:\n" + text(rs));
    }
    // Every strict error is sglang's (a verdict of sglang, or a strict rule
    // that speaks for sglang's config where another raise came first, e.g.
    // CQ-W4A8-CONVROT beside CQ-SGLANG-FORMATS); ComfyUI and kitchen reject
    // nothing.
    const auto rs = check(c, Profile::Strict);
    for (const FileReport& r : rs)
      for (const Finding& f : r.findings)
        if (f.severity == Severity::Error && (rejects_for(f, Consumer::Comfyui) || rejects_for(f, Consumer::Kitchen)))
          RC_FAIL("ComfyUI or kitchen rejects: " + std::string(rule_name(f.rule)) + "\n" + text(rs));
  });
}

namespace {

void check_mutation(const q::QuantMutation& m) {
  const q::QCheckpoint base = *m.base();
  q::QCheckpoint mutant = base;
  std::set<std::string> used;
  const q::Applied a = m.apply(mutant, used);
  RC_PRE(a.ok);  // e.g. quant_format mxfp8 on a checkpoint that already satisfies S7
  RC_TAG(std::string(m.name));
  const std::set<RuleId> before = errors(check(base, Profile::Strict));
  const auto rs = check(mutant, Profile::Strict);
  const std::set<RuleId> after = errors(rs);
  const bool warning = rule_info(m.rule).severity == Severity::Warning;
  const std::string context = std::string(m.name) + ": " + a.what + "\n" + text(rs);
  if (warning ? !has_warning(rs, m.rule) : !after.count(m.rule))
    RC_FAIL(std::string(rule_name(m.rule)) + " did not fire for " + context);
  // Every other error is the base's (ComfyUI-only bases: sglang's) or a
  // documented companion of the defect.
  std::set<RuleId> extra;
  for (RuleId r : after)
    if (r != m.rule && !before.count(r) && std::find(a.companions.begin(), a.companions.end(), r) == a.companions.end())
      extra.insert(r);
  if (!extra.empty()) RC_FAIL("other errors " + names(extra) + "for " + context);

  if (base.validity != q::Validity::AllConsumers || a.sg == q::SgKind::Unchecked) return;
  const auto sg_rs = check(mutant, Profile::Sglang);
  const Outcome& sg = sglang_outcome(sg_rs);
  const std::string sg_context = context + "sglang profile:\n" + text(sg_rs);
  switch (a.sg) {
    case q::SgKind::Accepts:
      if (!sg.loads) RC_FAIL("sglang rejects (" + sg.error + ": " + sg.message + ") " + sg_context);
      break;
    case q::SgKind::Rejects:
      if (sg.loads) RC_FAIL("sglang loads " + sg_context);
      if (sg.error != a.sg_error || sg.message != q::expected_sglang_message(a))
        RC_FAIL("sglang raises " + sg.error + ": " + sg.message + "\nexpected " + std::string(a.sg_error) + ": " +
                q::expected_sglang_message(a) + "\n" + sg_context);
      break;
    case q::SgKind::ErrorOnly:
      if (sg.loads || sg.error != a.sg_error)
        RC_FAIL("sglang raises '" + sg.error + "', expected " + std::string(a.sg_error) + " " + sg_context);
      break;
    case q::SgKind::Unchecked: break;
  }
}

}  // namespace

TEST_CASE("quant (2): each mutation makes exactly its rule fire, with sglang's verbatim message", "[prop][quant]") {
  for (const q::QuantMutation& m : q::quant_mutation_catalogue())
    test::capped_prop(std::string(m.name) + " -> " + std::string(rule_name(m.rule)), 8, [&m] { check_mutation(m); });
}

TEST_CASE("quant (3): with several defects, sglang reports the one its phase order reaches first", "[prop][quant]") {
  std::vector<const q::QuantMutation*> combinable;
  for (const q::QuantMutation& m : q::quant_mutation_catalogue())
    if (m.combinable) combinable.push_back(&m);
  test::capped_prop("first sglang message over 2-4 defects", 80, [&combinable] {
    q::QCheckpoint c = *q::valid_checkpoint();
    const std::size_t count = *rc::gen::inRange<std::size_t>(2, 5);
    std::vector<std::size_t> picks;
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t k = *rc::gen::inRange<std::size_t>(0, combinable.size());
      if (std::find(picks.begin(), picks.end(), k) == picks.end()) picks.push_back(k);
    }
    std::set<std::string> used;
    std::vector<q::Applied> applied;
    for (std::size_t i : picks) {
      // A mutation finds no undamaged layer of its format: it does not apply.
      q::QCheckpoint trial = c;
      std::set<std::string> trial_used = used;
      q::Applied a = combinable[i]->apply(trial, trial_used);
      if (!a.ok || a.sg != q::SgKind::Rejects) continue;
      c = std::move(trial);
      used = std::move(trial_used);
      applied.push_back(std::move(a));
    }
    RC_PRE(applied.size() >= 2);
    const q::Applied* first = &applied.front();
    for (const q::Applied& a : applied)
      if (q::sglang_position(c, a) < q::sglang_position(c, *first)) first = &a;
    const auto rs = check(c, Profile::Sglang);
    const Outcome& sg = sglang_outcome(rs);
    std::string what;
    for (const q::Applied& a : applied) what += a.what + "; ";
    RC_ASSERT(!sg.loads);
    if (sg.message != q::expected_sglang_message(*first))
      RC_FAIL("sglang raises " + sg.message + "\nexpected " + q::expected_sglang_message(*first) + "\nafter " + what +
              "\n" + text(rs));
  });
}
