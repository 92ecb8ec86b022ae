// Consumer messages as data: each upstream message is one MessageTemplate,
// its text verbatim as the upstream source formats it (comfy-quant-markers.md
// writes {x} for str(x) and {x!r} for repr(x)); fill() substitutes rendered
// values for the placeholders, so a test can compare a finding's message with
// the template filled with the values a mutation chose.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "spec/finding.hpp"

namespace safespec::quant {

struct MessageTemplate {
  Consumer consumer;
  Effect effect;
  std::string_view error;  // exception class as Python prints it: "ValueError", "KeyError"
  std::string_view text;   // verbatim template
  std::string_view cite;   // where upstream raises it: "quantization_utils.py:244-248"
};

// A placeholder's name exactly as it appears between the braces ("prefix!r",
// "sorted(missing)") and its rendered value.
struct Arg {
  std::string_view name;
  std::string value;
};

// Replaces every "{name}" of the template by its Arg's value. Text between
// braces that no Arg names is kept as is (a test catches it).
std::string fill(std::string_view text, std::initializer_list<Arg> args);

Verdict verdict(const MessageTemplate& t, CheckOrder order, std::initializer_list<Arg> args);

}  // namespace safespec::quant
