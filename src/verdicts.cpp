#include "src/verdicts.hpp"

#include <algorithm>

#include "spec/quant/order.hpp"

namespace safespec {

namespace {

// The two Display strings safetensors-format.md §5 records; the Python
// binding wraps them as "Error while deserializing header: <Display>".
std::string safe_open_message(const Finding& f, std::string_view variant) {
  std::string display;
  if (variant == "MetadataIncompleteBuffer") {
    display = "incomplete metadata, file not fully covered";
  } else if (variant == "InvalidOffset" && f.where.starts_with("tensor '") && f.where.ends_with("'")) {
    // where is "tensor 'name'" with quote_name escaping; the Display prints the raw name.
    display = "invalid offset for tensor `" + f.where.substr(8, f.where.size() - 9) + "`";
  } else {
    // The other Display strings (tensor.rs:65-93) were not recorded: say so
    // rather than invent them.
    display = std::string(variant) + " (Display text not recorded; safespec: " + f.message + ")";
  }
  return "Error while deserializing header: " + display;
}

}  // namespace

void attach_container_verdicts(Findings& findings, std::size_t file) {
  std::uint32_t k = 0;
  for (Finding& f : findings) {
    const RuleInfo& info = rule_info(f.rule);
    if (f.severity != Severity::Error || info.reference.empty() || info.rule_number == "index") continue;
    const std::string variant(info.reference);
    const std::string wrapped = safe_open_message(f, variant);
    f.verdicts = {
        Verdict{Consumer::Safetensors, Effect::Rejects, variant, f.message, {0, 0, k, 0}},
        Verdict{Consumer::Sglang, Effect::Rejects, "SafetensorError", wrapped, quant::order::sg_container(file)},
        Verdict{Consumer::Comfyui, Effect::Rejects, "SafetensorError", wrapped, quant::order::cu_container(file)},
        Verdict{Consumer::Kitchen, Effect::Rejects, "SafetensorError", wrapped, quant::order::kt_container(file)},
    };
    ++k;
  }
}

void judge(std::vector<FileReport*> checkpoint, const std::string& sglang_config) {
  std::array<Outcome, 4> shared{};
  std::array<const Verdict*, 4> first{};
  for (const FileReport* r : checkpoint)
    for (const Finding& f : r->findings)
      for (const Verdict& v : f.verdicts) {
        const auto c = static_cast<std::size_t>(v.consumer);
        if (v.effect == Effect::MisLoads) shared[c].mis_loads.push_back(f.rule);
        if (v.effect == Effect::Warns) shared[c].warns.push_back(f.rule);
        if (v.effect == Effect::Rejects && (!first[c] || v.order < first[c]->order)) first[c] = &v;
      }
  for (std::size_t c = 0; c < 4; ++c)
    if (first[c]) shared[c] = Outcome{false, first[c]->error, first[c]->message, "", shared[c].mis_loads, shared[c].warns};
  if (shared[1].loads) shared[1].config = sglang_config;
  for (FileReport* r : checkpoint) {
    r->consumers = shared;
    // The reference reader judges each file alone.
    Outcome& st = r->consumers[0];
    st = Outcome{};
    if (const Finding* f = r->reference_failure()) {
      st.loads = false;
      st.error = std::string(rule_info(f->rule).reference);
      st.message = f->message;
    }
    r->judged = true;
  }
}

void apply_profile(FileReport& r, Profile p) {
  Consumer c{};
  if (p == Profile::Safetensors) {  // check_model filtered the container rules; the reference never reads a layer
    std::erase_if(r.findings, [](const Finding& f) { return is_quant_rule(f.rule); });
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
