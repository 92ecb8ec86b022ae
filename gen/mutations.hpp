// The mutation catalogue: each mutation takes a valid file and breaks exactly
// one rule (or trips exactly one warning), so a property can say
// "check(mutate(valid, r)) == {r}". Mutations edit the Plan or Layout of a
// valid file (gen/layout.hpp).
//
// Mutations draw their random choices with `*gen` (which tensor, how many
// bytes), so apply() may only be called inside a property or rc::gen::exec.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gen/layout.hpp"
#include "spec/rule_id.hpp"

namespace safespec::gen {

struct Mutant {
  std::vector<std::uint8_t> bytes;
  std::string what;  // what was done, for counterexamples
};

// What a checker must say about a mutant.
enum class Expect : unsigned char {
  ParseError,  // both readers fail with exactly this rule (F1-F6)
  Error,       // parses; check_model(Strict) error findings are exactly {rule}
  Warning,     // parses; no error findings, and the warning is among them
};

struct Mutation {
  std::string_view name;
  RuleId rule;
  Expect expect;
  Mutant (*apply)(const Plan& valid);
};

std::span<const Mutation> mutation_catalogue();

// Header-level decorations the reference accepts (leading whitespace, unknown
// fields, null metadata, duplicate keys whose survivor tiles, odd padding):
// the text differs from canonical but the file stays readable.
Layout decorated(const Plan& valid);

}  // namespace safespec::gen
