// One property per mutation in the catalogue: a valid file with one defect
// makes exactly that rule fire, in both readers, and the reference verdict is
// that rule's reference variant (or acceptance, for strict-only rules).
#include <algorithm>
#include <string>

#include "gen/models.hpp"
#include "gen/mutations.hpp"
#include "props/catch.hpp"
#include "spec/file_reader.hpp"
#include "spec/format_rules.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/parse/load.hpp"
#include "src/oracles/oracles.hpp"

namespace sg = safespec::gen;
using namespace safespec;

namespace {

std::string findings_text(const Findings& fs) {
  std::string s;
  for (const Finding& f : fs) s += std::string(rule_name(f.rule)) + " at " + f.where.text() + ": " + f.message + "; ";
  return s;
}

std::string error_text(const Error& e) { return std::string(rule_name(e.rule)) + " at " + e.where.text() + ": " + e.message; }

// The reference reader's verdict as the variant name it would report: the
// parse error's, or the first error finding that the reference also has, or
// "" for acceptance.
std::string_view reference_verdict(const Result<Model>& r) {
  if (!r) return rule_info(r.error().rule).reference;
  for (const Finding& f : check_model(r.value(), Profile::Strict))
    if (f.severity == Severity::Error && !rule_info(f.rule).reference.empty()) return rule_info(f.rule).reference;
  return "";
}

void check_mutant(const sg::Mutation& mutation, const sg::Mutant& mutant) {
  const std::string context = std::string(mutation.name) + ": " + mutant.what + "\nbytes: " +
                              sg::escaped_bytes(mutant.bytes);
  HeaderParser parser;
  const Result<Model> reference = read_model_reference(mutant.bytes);
  const Result<Model> fast = read_model_fast(mutant.bytes, parser);
  if (!(fast == reference)) RC_FAIL("parsers disagree on " + context);
  const RuleId expected = mutation.rule;

  // The reference variant: from the catalogue, "" for strict-only rules.
  if (reference_verdict(reference) != rule_info(expected).reference)
    RC_FAIL("reference verdict '" + std::string(reference_verdict(reference)) + "', expected '" +
            std::string(rule_info(expected).reference) + "' for " + context);

  switch (mutation.expect) {
    case sg::Expect::ParseError:
      if (reference.ok()) RC_FAIL("accepted, expected " + std::string(rule_name(expected)) + " for " + context);
      if (reference.error().rule != expected) RC_FAIL("got " + error_text(reference.error()) + " for " + context);
      break;
    case sg::Expect::Error: {
      if (!reference.ok()) RC_FAIL("parse error " + error_text(reference.error()) + " for " + context);
      const Findings fs = check_model(reference.value(), Profile::Strict);
      std::vector<RuleId> errors;
      for (const Finding& f : fs)
        if (f.severity == Severity::Error) errors.push_back(f.rule);
      if (errors != std::vector<RuleId>{expected})
        RC_FAIL("error findings " + findings_text(fs) + "expected exactly " + std::string(rule_name(expected)) +
                " for " + context);
      // The safetensors profile keeps the rule iff the reference rejects.
      const bool ref_rule = !rule_info(expected).reference.empty();
      const Findings compat = check_model(reference.value(), Profile::Safetensors);
      const bool has = std::any_of(compat.begin(), compat.end(), [&](const Finding& f) { return f.rule == expected; });
      if (has != ref_rule) RC_FAIL("safetensors profile disagrees with the catalogue for " + context);
      break;
    }
    case sg::Expect::Warning: {
      if (!reference.ok()) RC_FAIL("parse error " + error_text(reference.error()) + " for " + context);
      const Findings fs = check_model(reference.value(), Profile::Strict);
      const bool any_error =
          std::any_of(fs.begin(), fs.end(), [](const Finding& f) { return f.severity == Severity::Error; });
      const bool warned = std::any_of(fs.begin(), fs.end(), [&](const Finding& f) {
        return f.rule == expected && f.severity == Severity::Warning;
      });
      if (any_error || !warned)
        RC_FAIL("findings " + findings_text(fs) + "expected the warning " + std::string(rule_name(expected)) +
                " and no error for " + context);
      if (!check_model(reference.value(), Profile::Safetensors).empty())
        RC_FAIL("safetensors profile reports findings for " + context);
      break;
    }
  }
  if (auto why = roundtrip_fails(mutant.bytes, parser)) RC_FAIL("round trip: " + *why + " for " + context);
}

}  // namespace

TEST_CASE("the unmutated files are valid", "[prop][mutation]") {
  rc::prop("a rendered plan has no findings", [] {
    const sg::Plan plan = sg::plan_of(*sg::file_spec());
    const auto bytes = sg::bytes_of(plan);
    const Result<Model> m = read_model_reference(bytes);
    RC_ASSERT(m.ok());
    RC_ASSERT(check_model(m.value(), Profile::Strict).empty());
  });
}

TEST_CASE("each mutation makes exactly its rule fire", "[prop][mutation]") {
  for (const sg::Mutation& mutation : sg::mutation_catalogue()) {
    const std::string title = std::string(mutation.name) + " -> " + std::string(rule_name(mutation.rule));
    rc::prop(title, [&mutation] {
      const sg::Plan plan = sg::plan_of(*sg::file_spec());
      const sg::Mutant mutant = mutation.apply(plan);
      check_mutant(mutation, mutant);
    });
  }
}
