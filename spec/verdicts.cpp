#include "spec/verdicts.hpp"

#include <algorithm>

#include "spec/quant/order.hpp"

namespace safespec {

namespace {

bool is_container_error(const Finding& f) {
  const RuleInfo& info = rule_info(f.rule);
  return f.severity == Severity::Error && info.scope == RuleScope::Container;
}

void set_container_verdicts(Finding& f, std::size_t file, const std::string& variant, const std::string& display,
                            const std::string& python_message) {
  f.verdicts = {
      Verdict{Consumer::Safetensors, Effect::Rejects, variant, display, {0, 0, 0, 0}},
      Verdict{Consumer::Sglang, Effect::Rejects, "SafetensorError", python_message, quant::order::sg_container(file)},
      Verdict{Consumer::Comfyui, Effect::Rejects, "SafetensorError", python_message, quant::order::cu_container(file)},
      Verdict{Consumer::Kitchen, Effect::Rejects, "SafetensorError", python_message, quant::order::kt_container(file)},
  };
}

// The first catalogue rule the reference raises with this variant: the rule
// of a finding made for a failure no finding of safespec's names (for
// InvalidHeaderDeserialization, ST-JSON-SYNTAX: serde_json's own number
// ranges and limits).
RuleId rule_for_variant(std::string_view variant) {
  for (const RuleInfo& info : rule_catalogue())
    if (info.reference == variant && info.scope == RuleScope::Container) return info.id;
  return RuleId::JsonSyntax;
}

}  // namespace

void attach_container_verdicts(Findings& findings, std::size_t file, const reference::Answer* reference) {
  if (!reference) return;
  if (!reference->failure) return;  // the reference reads the file: nothing here stops a consumer
  const reference::Failure& failure = *reference->failure;
  const std::string variant(reference::variant_name(failure.variant));
  for (Finding& f : findings) {
    if (!is_container_error(f) || rule_info(f.rule).reference != variant) continue;
    set_container_verdicts(f, file, variant, failure.display, failure.python_message());
    return;
  }
  const RuleId rule = rule_for_variant(variant);
  Finding made{rule, Severity::Error, Place::header(), "the reference reader rejects the file: " + failure.display, {}};
  set_container_verdicts(made, file, variant, failure.display, failure.python_message());
  findings.insert(findings.begin(), std::move(made));
}

void judge(std::vector<FileReport*> checkpoint, const std::string& sglang_config,
           const std::vector<quant::Assumption>& assumptions, const std::vector<Verdict>& stoppers) {
  ByConsumer<Outcome> shared;
  ByConsumer<const Verdict*> first;
  ByConsumer<const Finding*> first_finding;
  ByConsumer<const FileReport*> first_report;
  for (const FileReport* r : checkpoint)
    for (const Finding& f : r->findings)
      for (const Verdict& v : f.verdicts) {
        const Consumer c = v.consumer;
        // Each rule id once, in the order first seen.
        std::vector<RuleId>* ids = v.effect == Effect::MisLoads ? &shared[c].mis_loads
                                   : v.effect == Effect::Warns  ? &shared[c].warns
                                                                : nullptr;
        if (ids && std::find(ids->begin(), ids->end(), f.rule) == ids->end()) ids->push_back(f.rule);
        if (v.effect == Effect::Rejects && (!first[c] || v.order < first[c]->order)) {
          first[c] = &v;
          first_finding[c] = &f;
          first_report[c] = r;
        }
      }
  for (const Verdict& v : stoppers) {
    const Consumer c = v.consumer;
    if (v.effect == Effect::Rejects && (!first[c] || v.order < first[c]->order)) {
      first[c] = &v;
      first_finding[c] = nullptr;
      first_report[c] = nullptr;
    }
  }
  for (Consumer c : kConsumers) {
    if (c == Consumer::Safetensors || !first[c]) continue;  // the reference judges each file alone, below
    // A consumer that rejects the checkpoint loads nothing, wrongly or not.
    shared[c] = Outcome{false, first[c]->error, first[c]->message, "", {}, shared[c].warns, {}, {}, {}};
    // A container error: the reference's ties are this consumer's too.
    const FileReport* r = first_report[c];
    if (!r) continue;
    if (first_finding[c]->verdict(Consumer::Safetensors) && r->reference)
      for (const reference::Failure& alt : r->reference->alternatives)
        shared[c].alternatives.emplace_back("SafetensorError", alt.python_message());
    // S7 iterates a set: any failing layer can be the one raised.
    if (first_finding[c]->rule == RuleId::QuantMxfp8Global)
      for (const FileReport* other : checkpoint)
        for (const Finding& f : other->findings)
          if (const Verdict* v = f.verdict(c);
              v && &f != first_finding[c] && f.rule == RuleId::QuantMxfp8Global && v->effect == Effect::Rejects)
            shared[c].alternatives.emplace_back(v->error, v->message);
  }
  for (const quant::Assumption& a : assumptions)
    if (!first[Consumer::Sglang] || a.otherwise.order < first[Consumer::Sglang]->order)
      shared[Consumer::Sglang].assumes.push_back(a);
  if (shared[Consumer::Sglang].loads) shared[Consumer::Sglang].config = sglang_config;
  for (FileReport* r : checkpoint) {
    r->consumers = shared;
    // The reference reader judges each file alone.
    Outcome& st = r->consumers[Consumer::Safetensors];
    st = Outcome{};
    if (r->reference && r->reference->failure) {
      st.loads = false;
      st.error = std::string(reference::variant_name(r->reference->failure->variant));
      st.message = r->reference->failure->display;
      for (const reference::Failure& alt : r->reference->alternatives)
        st.alternatives.emplace_back(std::string(reference::variant_name(alt.variant)), alt.display);
    }
    r->judged = true;
  }
}

void apply_profile(FileReport& r, Profile p) {
  Consumer c{};
  if (p == Profile::Safetensors) {  // check_model filtered the container rules; the reference never reads a layer
    std::erase_if(r.findings, [](const Finding& f) { return is_quant_rule(f.rule); });
    // When the reference reads the file, a container error is safespec's
    // observation, not the reference's verdict.
    if (r.reference && !r.reference->failure)
      for (Finding& f : r.findings)
        if (is_container_error(f) && !f.verdict(Consumer::Safetensors)) f.severity = Severity::Warning;
    return;
  }
  if (!profile_consumer(p, c)) return;  // strict: everything
  Findings kept;
  for (Finding& f : r.findings) {
    const Verdict* v = f.verdict(c);
    if (!v) continue;
    Finding g = f;
    if (!v->message.empty()) g.message = v->message;
    g.severity = v->effect == Effect::Rejects ? Severity::Error : Severity::Warning;
    kept.push_back(std::move(g));
  }
  std::stable_sort(kept.begin(), kept.end(), [c](const Finding& a, const Finding& b) {
    const Verdict* va = a.verdict(c);
    const Verdict* vb = b.verdict(c);
    const bool ra = va->effect == Effect::Rejects, rb = vb->effect == Effect::Rejects;
    if (ra != rb) return ra;
    return va->order < vb->order;
  });
  r.findings = std::move(kept);
}

}  // namespace safespec
