// The rule catalogue: one row per rule, the single table that says what each
// rule id means, which reference rule it implements and what the reference
// reader (huggingface/safetensors) does with a file that breaks it.
#pragma once

#include <span>
#include <string_view>

#include "spec/finding.hpp"
#include "spec/rule_id.hpp"

namespace safespec {

struct RuleInfo {
  RuleId id;
  std::string_view name;         // stable id, e.g. "ST-OFFSET-GAP"
  Severity severity;
  std::string_view rule_number;  // from shared/reference/safetensors-format.md
  // The reference reader's error variant for a file that breaks this rule, or
  // empty when the reference accepts such a file (strict-only rules).
  std::string_view reference;
  std::string_view description;
};

std::span<const RuleInfo> rule_catalogue();
const RuleInfo& rule_info(RuleId id);
std::string_view rule_name(RuleId id);

// Profiles: which rules a profile applies (safetensors-format.md §2 for
// `safetensors`; everything for `strict`).
enum class Profile : unsigned char { Strict, Safetensors };
bool profile_applies(Profile p, RuleId id);
std::string_view profile_name(Profile p);

}  // namespace safespec
