#include "spec/report.hpp"

#include <algorithm>

namespace safespec {

bool FileReport::ok() const {
  const std::optional<Consumer> one = profile.consumer();
  const bool one_consumer = one.has_value();
  const Consumer c = one.value_or(Consumer::Safetensors);
  const auto fails = [&](const Finding& f) {
    if (f.severity == Severity::Error || fail_on == FailOn::Warning) return true;
    if (fail_on != FailOn::MisLoad) return false;
    return std::any_of(f.verdicts.begin(), f.verdicts.end(), [&](const Verdict& v) {
      return v.effect == Effect::MisLoads &&
             (one_consumer ? v.consumer == c && v.holds_for(chosen[c]) : v.holds_for(chosen[v.consumer]));
    });
  };
  // A consumer profile fails when its consumer rejects, also for a cause no
  // finding of this file carries (a missing file of the checkpoint).
  // Nor does it pass when safespec cannot tell what the consumer does.
  if (judged && one_consumer && shows(c) && (!consumers[c].loads || !consumers[c].unknown.empty())) return false;
  return !io_error && std::none_of(findings.begin(), findings.end(), fails);
}

const Finding* FileReport::reference_failure() const {
  for (const Finding& f : findings)
    if (f.verdict(Consumer::Safetensors)) return &f;
  if (reference) return nullptr;  // the reference's own answer decided
  for (const Finding& f : findings) {
    const RuleInfo& info = rule_info(f.rule);
    if (f.severity == Severity::Error && info.scope == RuleScope::Container) return &f;
  }
  return nullptr;
}

std::string_view FileReport::reference_verdict() const {
  if (reference) return reference->failure ? reference::variant_name(reference->failure->variant) : std::string_view();
  const Finding* f = reference_failure();
  return f ? rule_info(f->rule).reference : std::string_view();
}

}  // namespace safespec
