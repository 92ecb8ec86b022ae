// Quantized checkpoints from the generators (gen/quant_layers.hpp,
// quant_mutations.hpp): every quant mutation (one header-level CQ-/NUM- rule
// each) applied to valid generated checkpoints, valid checkpoints of every
// format set sglang resolves (S11) with markers as tensors and as
// _quantization_metadata, and every format in the checkpoints only ComfyUI
// and comfy-kitchen load. One file each, with valid tensor values.
#include <algorithm>
#include <set>

#include "conformance/suite_quant_support.hpp"
#include "gen/quant_mutations.hpp"
#include "spec/rule_catalogue.hpp"

namespace safespec::conformance::detail {

namespace {

namespace q = gen::quant;
using q::Format;

constexpr std::size_t kSmallQuant = 6144;  // preferred largest file, bytes

std::string stem_for(const std::vector<RuleId>& found, RuleId target) {
  return std::string(has_error(found) ? "reject_" : "accept_") + rule_text(target);
}

// The rule a file is named after: its first error, else its first warning.
RuleId primary(const std::vector<RuleId>& found) {
  for (RuleId r : found)
    if (rule_info(r).severity == Severity::Error) return r;
  return found.front();
}

struct Drawn {
  q::QCheckpoint c;
  q::Applied a;
};

// Samples of one mutation: the first breaks exactly its rule where some
// draw allows it; the rest are other draws in which the rule fires.
void mutation_drafts(const q::QuantMutation& m, std::size_t index, std::size_t samples, std::vector<Draft>& out) {
  std::vector<Bytes> taken;
  for (std::size_t s = 0; s < samples; ++s) {
    std::optional<Draft> best;
    bool best_exact = false;
    for (std::uint64_t attempt = 0; attempt < 50; ++attempt) {
      Drawn d = sample(rc::gen::exec([&m] {
                         q::QCheckpoint c = *m.base();
                         one_file(c);
                         std::set<std::string> used;
                         q::Applied a = m.apply(c, used);
                         return Drawn{std::move(c), std::move(a)};
                       }),
                       key_of("quant", index, s, attempt), 100);
      if (!d.a.ok) continue;
      fill_valid_data(d.c);
      const auto bytes = file_bytes(d.c);
      if (!bytes || std::find(taken.begin(), taken.end(), *bytes) != taken.end()) continue;
      const std::vector<RuleId> found = strict_rules(*bytes);
      if (std::find(found.begin(), found.end(), m.rule) == found.end()) continue;
      // A marker of 1 MiB + 1 NUL bytes is also not JSON (M3): exact with that
      // companion, as it was when safespec did not parse such markers.
      // Findings only older versions act on (listed all the same) do not
      // make a draw inexact.
      const std::vector<RuleId> breaks = default_rules(*bytes);
      const bool exact = breaks == std::vector<RuleId>{m.rule} ||
                         (m.rule == RuleId::QuantMarkerTooLarge && !d.a.companions.empty() &&
                          std::set<RuleId>(breaks.begin(), breaks.end()) ==
                              std::set<RuleId>{RuleId::QuantMarkerTooLarge, RuleId::QuantMarkerJson});
      const bool small = bytes->size() <= kSmallQuant || m.rule == RuleId::QuantMarkerTooLarge || m.rule == RuleId::QuantKInt32;
      const bool better = !best || (exact && !best_exact) ||
                          (exact == best_exact && bytes->size() < best->bytes.size());
      if (better) {
        best = Draft{"", "quant mutation '" + std::string(m.name) + "' (" + rule_text(m.rule) +
                             ") of a generated valid checkpoint: " + d.a.what,
                     *bytes, {}, found, {}};
        best_exact = exact;
      }
      if (best_exact && small) break;
    }
    if (!best) continue;
    best->name = stem_for(default_rules(best->bytes), m.rule) + "_" + std::string(m.name) + "_" + std::to_string(s + 1) + ".safetensors";
    taken.push_back(best->bytes);
    out.push_back(std::move(*best));
  }
}

std::string set_name(const std::vector<Format>& formats) {
  std::string s;
  for (Format f : formats) s += (s.empty() ? "" : "_and_") + std::string(q::format_name(f));
  return s;
}

void valid_drafts(std::vector<Draft>& out) {
  const std::vector<std::vector<Format>> rows{
      {Format::Fp8E4m3}, {Format::Nvfp4}, {Format::Int8, Format::Nvfp4}, {Format::Mxfp8}, {Format::Int8},
      {Format::W4a8},    {Format::W4a8, Format::Int8}, {Format::W4a4}, {Format::W4a4, Format::Int8}};
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (q::Site site : {q::Site::Tensor, q::Site::Metadata}) {
      auto c = small_valid(rows[i], "valid-" + site_name(site), i);
      if (!c) continue;
      set_site(*c, site);
      const auto bytes = file_bytes(*c);
      if (!bytes) continue;
      out.push_back(Draft{"accept_quant_" + set_name(rows[i]) + "_" + site_name(site) + ".safetensors",
                          "a valid checkpoint of " + set_name(rows[i]) + " (a row of sglang's table, S11), markers as " +
                              (site == q::Site::Tensor ? "P.comfy_quant tensors (M1)" : "__metadata__._quantization_metadata (M5)") +
                              "; every consumer loads it",
                          *bytes, {}, strict_rules(*bytes), {}});
    }
  // What ComfyUI and comfy-kitchen load but sglang refuses (G1-G25).
  const Format all[] = {Format::Fp8E4m3, Format::Fp8E5m2, Format::Nvfp4, Format::Mxfp8,
                        Format::Int8,    Format::W4a4,    Format::W4a8,  Format::Awq};
  for (std::size_t i = 0; i < std::size(all); ++i)
    for (q::Site site : {q::Site::Tensor, q::Site::Metadata}) {
      // Prefer a checkpoint of that format alone, then the smallest.
      std::optional<Draft> best;
      std::size_t best_others = 0;
      for (std::uint64_t attempt = 0; attempt < 60; ++attempt) {
        q::QCheckpoint c = sample(q::comfy_checkpoint_with(all[i]), key_of("comfy-" + site_name(site), i, 0, attempt), 100);
        one_file(c);
        set_site(c, site);
        fill_valid_data(c);
        const auto bytes = file_bytes(c);
        if (!bytes || bytes->size() > 4 * kSmallQuant) continue;
        const std::vector<RuleId> found = strict_rules(*bytes);
        const auto others = static_cast<std::size_t>(
            std::count_if(c.layers.begin(), c.layers.end(), [&](const q::QLayer& l) { return l.format != all[i]; }));
        const std::vector<RuleId> breaks = default_rules(*bytes);
        if (breaks.empty() ||
            (best && (others > best_others || (others == best_others && bytes->size() >= best->bytes.size()))))
          continue;
        std::string formats;
        for (const q::QLayer& l : c.layers) formats += (formats.empty() ? "" : ", ") + std::string(q::format_name(l.format));
        best = Draft{stem_for(breaks, primary(breaks)) + "_comfy_only_" + std::string(q::format_name(all[i])) + "_" +
                         site_name(site) + ".safetensors",
                     "a checkpoint ComfyUI and comfy-kitchen load and sglang refuses (layers: " + formats + "), markers as " +
                         (site == q::Site::Tensor ? "tensors" : "_quantization_metadata"),
                     *bytes, {}, found, {}};
        best_others = others;
      }
      if (best) out.push_back(std::move(*best));
    }
}

}  // namespace

std::vector<Draft> quant_drafts() {
  std::vector<Draft> out;
  const auto catalogue = q::quant_mutation_catalogue();
  for (std::size_t i = 0; i < catalogue.size(); ++i) {
    // A marker over 1 MiB and an int8 K past the int32 bound (K > 131,071
    // bytes of I8 per row) cannot be small: once each is enough.
    const RuleId r = catalogue[i].rule;
    const std::size_t samples = r == RuleId::QuantMarkerTooLarge || r == RuleId::QuantKInt32 ? 1 : 3;
    mutation_drafts(catalogue[i], i, samples, out);
  }
  valid_drafts(out);
  return out;
}

}  // namespace safespec::conformance::detail
