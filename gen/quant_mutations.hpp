// The quantized-layer mutation catalogue: one mutation per header-level
// CQ-* / NUM-* rule (RuleId::QuantMarkerJson .. RuleId::QuantKInt32; the
// CQ-DATA-* rules read tensor bytes and are unit-tested instead). Each takes a
// valid structured checkpoint (quant_layers.hpp) and breaks exactly that one
// invariant, recording the values it chose so a property can fill sglang's
// verbatim template (comfy-quant-markers.md §3) with them and know where in
// sglang's phase order the raise happens.
//
// apply() draws with `*gen`, so it may only run inside a property or
// rc::gen::exec.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gen/quant_layers.hpp"
#include "spec/rule_id.hpp"

namespace safespec::gen::quant {

// What sglang does with the mutant (for a base valid for every consumer).
enum class SgKind : unsigned char {
  Accepts,    // loads it
  Rejects,    // raises sg_error with the template filled with args
  ErrorOnly,  // raises sg_error with Python's own text (§6.12: not a contract)
  Unchecked,  // safespec makes no claim (e.g. CQ-MARKER-SIZE: not simulated)
};

// Where in sglang's order the raise happens (§3.1-§3.10), for property 3.
enum class Stage : unsigned char {
  None,
  Qmeta,         // S3.1-S3.3 of `file`, `step` = 0, 1, 2
  QmetaLayer,    // S3.4: the `key` entry of `file`'s layers object
  TensorMarker,  // S6: the marker tensor `key` of `file`
  Mxfp8Global,   // S7
  Missing,       // S8
  Layer,         // S9: phase 3 of the layer `key`
  Resolution,    // S11
  Config,        // S12.3 / S15.5 / S17 / S19: constructor, layer `key`
  Method,        // S13.5: get_quant_method of layer `key`
};

struct Applied {
  bool ok = false;  // false: the checkpoint had no place for this defect
  std::string what;
  // Error rules that may fire beside the target because the target implies
  // them; each mutation justifies its own in quant_mutations.cpp.
  std::vector<RuleId> companions;
  SgKind sg = SgKind::Unchecked;
  std::string_view sg_error;
  std::string_view sg_template;
  std::vector<std::pair<std::string, std::string>> args;  // placeholder (between the braces) -> rendered value
  Stage stage = Stage::None;
  std::size_t file = 0;
  std::string key;
  std::uint32_t step = 0;
};

struct QuantMutation {
  std::string_view name;
  RuleId rule;
  rc::Gen<QCheckpoint> (*base)();  // the valid checkpoints it applies to
  // `used`: prefixes other mutations already damaged (property 3); the
  // mutation adds the prefix it damages.
  Applied (*apply)(QCheckpoint& c, std::set<std::string>& used);
  bool combinable;  // damages one layer (or adds one stray) without changing the format set
};

std::span<const QuantMutation> quant_mutation_catalogue();

// The template filled with the recorded values ("{name}" -> value).
std::string fill_template(std::string_view tmpl, const std::vector<std::pair<std::string, std::string>>& args);
std::string expected_sglang_message(const Applied& a);

// sglang's position for an applied defect in the final checkpoint
// (lexicographic; smaller raises first).
std::array<std::uint64_t, 4> sglang_position(const QCheckpoint& c, const Applied& a);

// The config sglang resolves a valid checkpoint to (S11), "None" when it has
// no markers, "" when it raises.
std::string expected_config(const QCheckpoint& c);

}  // namespace safespec::gen::quant
