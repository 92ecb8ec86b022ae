// The rule catalogue: one row per rule, the single table that says what each
// rule id means, which reference rule it implements and what the reference
// reader (huggingface/safetensors) does with a file that breaks it.
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "spec/finding.hpp"
#include "spec/rule_id.hpp"

namespace safespec {

// What a rule is about. Container: the reference reader rejects a file that
// breaks it (F1-F13). Strict: the reference accepts, safespec's strict profile
// flags it (X*, W5, W8). Writer: only the canonical writer refuses it. Index:
// a shard index and its shards. Quant: a quantized layer (spec/quant/).
enum class RuleScope : unsigned char { Container, Strict, Writer, Index, Quant };
// What a check must read: the header only, or tensor values (--data).
enum class RuleTier : unsigned char { Header, Data };
std::string_view scope_name(RuleScope s);
std::string_view tier_name(RuleTier t);

struct RuleInfo {
  RuleId id;
  std::string_view name;         // stable id, e.g. "ST-OFFSET-GAP"
  Severity severity;
  RuleScope scope;
  RuleTier tier;
  std::string_view rule_number;  // anchors in docs/spec/ (the upstream numbering)
  // The reference reader's error variant for a file that breaks this rule, or
  // empty when the reference accepts such a file (strict-only rules).
  std::string_view reference;
  std::string_view description;
  // One line on how a checkpoint's writer makes the finding go away, shown
  // with the finding (text), in --json and by `safespec rules`.
  std::string_view fix;
};

std::span<const RuleInfo> rule_catalogue();
const RuleInfo& rule_info(RuleId id);
std::string_view rule_name(RuleId id);

// Profiles (spec/consumers.hpp): which findings a report shows and which
// decide its exit status. strict: every rule. safetensors: exactly the
// reference reader (safetensors-format.md §2). A Python consumer's: what that
// consumer does (comfy-quant-markers.md §3-§5): the container rules it
// inherits from the reference reader, then every finding carrying a Verdict
// of it.
// Static part of the decision, made here only: may a rule of this family
// show under the profile at all? The rules of a family the profile never
// shows do not run (check_model), and a report keeps only what it may show
// (apply_profile). For the consumer profiles a finding then shows only when
// it carries that consumer's Verdict (spec/verdicts.hpp).
bool profile_applies(Profile p, RuleScope s);
bool profile_applies(Profile p, RuleId id);  // its rule's family
// True for the comfy_quant rules (CQ-*, NUM-*), decided by spec/quant/.
bool is_quant_rule(RuleId id);

}  // namespace safespec
