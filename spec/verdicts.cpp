#include "spec/verdicts.hpp"

#include "spec/quant/sglang_versions.hpp"

#include <algorithm>

#include "spec/limits.hpp"
#include "spec/python/python_json.hpp"
#include "spec/quant/order.hpp"

namespace safespec {

namespace {

bool is_container_error(const Finding& f) {
  const RuleInfo& info = rule_info(f.rule);
  return f.severity == Severity::Error && info.scope == RuleScope::Container;
}

// The versions of c that open files with the reference crate: every one
// but those with a reader of their own.
VersionMask crate_versions(Consumer c) {
  const auto versions = consumer_info(c).versions;
  VersionMask out = 0;
  for (std::size_t v = 0; v < versions.size(); ++v)
    if (!own_parser(versions[v].reader)) out |= version_bit(v);
  return out == version_bit(versions.size()) - 1 ? VersionMask{0} : out;
}

// Every consumer's verdict on a container error: the reference's variant and
// Display text; each Python consumer's SafetensorError, in the versions that
// open files with the crate (through safe_open, or their caller's).
void set_container_verdicts(Finding& f, std::size_t file, const std::string& variant, const std::string& display,
                            const std::string& python_message) {
  f.verdicts.clear();
  for (const ConsumerInfo& c : kConsumerTable) {
    if (c.errors == ErrorStyle::RustVariant) {
      f.verdicts.push_back(Verdict{c.id, Effect::Rejects, variant, display, {0, 0, 0, 0}});
      continue;
    }
    // Every consumer opens the file first: the same position in each order.
    f.verdicts.push_back(Verdict{c.id, Effect::Rejects, "SafetensorError", python_message, quant::order::container(file), 0,
                                 crate_versions(c.id)});
  }
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

namespace {

// One version of one Python consumer over the whole checkpoint: its first
// rejection in its own order, what it loads wrong, what it logs.
Outcome judge_version(const std::vector<FileReport*>& checkpoint, Consumer c, std::size_t version,
                      const std::string& sglang_config, const std::vector<quant::Assumption>& assumptions,
                      const std::vector<Verdict>& stoppers) {
  Outcome out;
  const Verdict* first = nullptr;
  const Finding* first_finding = nullptr;
  const FileReport* first_report = nullptr;
  for (const FileReport* r : checkpoint)
    for (const Finding& f : r->findings) {
      const Verdict* v = f.verdict(c, version);
      if (!v) continue;
      // Each rule id once, in the order first seen.
      std::vector<RuleId>* ids = v->effect == Effect::MisLoads ? &out.mis_loads
                                 : v->effect == Effect::Warns  ? &out.warns
                                                               : nullptr;
      if (ids && std::find(ids->begin(), ids->end(), f.rule) == ids->end()) ids->push_back(f.rule);
      if (v->effect == Effect::Rejects && (!first || v->order < first->order)) {
        first = v;
        first_finding = &f;
        first_report = r;
      }
    }
  for (const Verdict& v : stoppers)
    if (v.consumer == c && v.holds_for(version) && v.effect == Effect::Rejects && (!first || v.order < first->order)) {
      first = &v;
      first_finding = nullptr;
      first_report = nullptr;
    }
  if (first && first->error.empty()) {  // a stopper safespec cannot settle
    out = Outcome{false, "", "", "", {}, out.warns, {}, {}, {}, first->message, {}};
    return out;
  }
  if (first) {
    // A consumer that rejects the checkpoint loads nothing, wrongly or not.
    out = Outcome{false, first->error, first->message, "", {}, out.warns, {}, {}, {}, {}, {}};
    if (first_report) {
      // A container error: the reference's ties are this consumer's too.
      if (first_finding->verdict(Consumer::Safetensors) && first_report->reference)
        for (const reference::Failure& alt : first_report->reference->alternatives)
          out.alternatives.emplace_back("SafetensorError", alt.python_message());
      // S7 iterates a set: any failing layer can be the one raised.
      if (first_finding->rule == RuleId::QuantMxfp8Global)
        for (const FileReport* other : checkpoint)
          for (const Finding& f : other->findings)
            if (const Verdict* v = f.verdict(c, version);
                v && &f != first_finding && f.rule == RuleId::QuantMxfp8Global && v->effect == Effect::Rejects)
              out.alternatives.emplace_back(v->error, v->message);
    }
  }
  if (c == Consumer::Sglang) {
    for (const quant::Assumption& a : assumptions)
      if (a.otherwise.holds_for(version) && (!first || a.otherwise.order < first->order)) out.assumes.push_back(a);
    if (out.loads) out.config = std::string(quant::sglang_config_in(version, sglang_config));
  }
  return out;
}

}  // namespace

void attach_own_reader_verdicts(Findings& findings, std::size_t file, const std::array<comfyui::Answer, 2>& answers,
                                const std::string& path, std::vector<Verdict>& stoppers) {
  const auto versions = consumer_info(Consumer::Comfyui).versions;
  for (std::size_t v = 0; v < versions.size(); ++v) {
    const ContainerReader reader = versions[v].reader;
    if (!own_parser(reader)) continue;
    const comfyui::Answer& a = answers[reader == ContainerReader::ComfyuiOwn ? 0 : 1];
    const CheckOrder at = quant::order::container(file);
    if (!a.unknown.empty()) {
      stoppers.push_back(Verdict{Consumer::Comfyui, Effect::Rejects, "", "ComfyUI's own parser: " + a.unknown, at, 0,
                                 version_bit(v)});
      continue;
    }
    if (!a.failure) continue;
    Verdict made{Consumer::Comfyui, Effect::Rejects, a.failure->error, a.failure->message(path), at, 0, version_bit(v)};
    auto f = std::find_if(findings.begin(), findings.end(), is_container_error);
    if (f == findings.end()) stoppers.push_back(std::move(made));
    else f->verdicts.push_back(std::move(made));
  }
}

void judge(std::vector<FileReport*> checkpoint, const std::string& sglang_config,
           const std::vector<quant::Assumption>& assumptions, const std::vector<Verdict>& stoppers) {
  ByConsumer<std::vector<Outcome>> shared;
  for (Consumer c : kConsumers) {
    if (c == Consumer::Safetensors) continue;  // the reference judges each file alone, below
    for (std::size_t v = 0; v < consumer_info(c).versions.size(); ++v)
      shared[c].push_back(judge_version(checkpoint, c, v, sglang_config, assumptions, stoppers));
  }
  for (FileReport* r : checkpoint) {
    r->versions = shared;
    // The reference reader judges each file alone.
    Outcome st;
    if (r->reference && r->reference->failure) {
      st.loads = false;
      st.error = std::string(reference::variant_name(r->reference->failure->variant));
      st.message = r->reference->failure->display;
      for (const reference::Failure& alt : r->reference->alternatives)
        st.alternatives.emplace_back(std::string(reference::variant_name(alt.variant)), alt.display);
    }
    r->versions[Consumer::Safetensors] = {std::move(st)};
    for (Consumer c : kConsumers) r->consumers[c] = r->versions[c][r->chosen[c]];
    r->judged = true;
  }
}

ByConsumer<std::vector<Outcome>> unusable_index_outcomes(std::optional<std::string_view> text) {
  ByConsumer<std::vector<Outcome>> out;
  for (Consumer c : kConsumers) {
    Outcome o;
    o.loads = false;
    if (c == Consumer::Sglang) {
      // Past 16 MiB a Python value of the text is not built (it is refused for another reason anyway).
      if (text && text->size() > kMaxMarkerReadBytes) text.reset();
      auto parsed = text ? py::loads_str(*text, py::LoadLimits{text->size() + 1, kPythonJsonDepth})
                         : Result<py::Value, py::JsonLoadError>(py::Value());
      if (!parsed && parsed.error().kind == py::JsonErrorKind::JSONDecodeError) {
        o.error = "JSONDecodeError";
        o.message = parsed.error().message;
      } else {
        o.unknown = "sglang's loaders read an index by rules that differ across its versions "
                    "(runtime/loader/utils.py, runtime/weights/source.py); not modelled for this index";
      }
    } else if (c == Consumer::Safetensors) {
      o.unknown = "the reference reader reads single files and never a shard index";
    } else {
      o.unknown = std::string(consumer_info(c).display) + " loads single .safetensors files and never reads a shard index";
    }
    out[c] = std::vector<Outcome>(consumer_info(c).versions.size(), o);
  }
  return out;
}

void apply_profile(FileReport& r, Profile p) {
  std::erase_if(r.findings, [p](const Finding& f) { return !profile_applies(p, f.rule); });
  if (p == Profile::Safetensors) {
    // When the reference reads the file, a container error is safespec's
    // observation, not the reference's verdict.
    if (r.reference && !r.reference->failure)
      for (Finding& f : r.findings)
        if (is_container_error(f) && !f.verdict(Consumer::Safetensors)) f.severity = Severity::Warning;
    return;
  }
  if (p.strict()) return;  // strict: everything
  const Consumer c = *p.consumer();
  const std::size_t version = r.chosen[c];
  Findings kept;
  for (Finding& f : r.findings) {
    const Verdict* v = f.verdict(c, version);
    if (!v) continue;
    Finding g = f;
    if (!v->message.empty()) g.message = v->message;
    g.severity = v->effect == Effect::Rejects ? Severity::Error : Severity::Warning;
    kept.push_back(std::move(g));
  }
  std::stable_sort(kept.begin(), kept.end(), [c, version](const Finding& a, const Finding& b) {
    const Verdict* va = a.verdict(c, version);
    const Verdict* vb = b.verdict(c, version);
    const bool ra = va->effect == Effect::Rejects, rb = vb->effect == Effect::Rejects;
    if (ra != rb) return ra;
    return va->order < vb->order;
  });
  r.findings = std::move(kept);
}

}  // namespace safespec
