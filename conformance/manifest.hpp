// The conformance suite's manifest (corpus/conformance/manifest.jsonl): one
// JSON object per line, one line per file of the suite, in file-name order.
//
//   {"file": "reject_ST-F1_prefix_short.safetensors",
//    "description": "a 7-byte file: the 8-byte header length is cut short",
//    "rules": ["ST-F1"],
//    "expect": {"safetensors": "reject", "sglang": "reject", "comfyui": "reject",
//               "kitchen": "reject", "strict": "reject"},
//    "sglang_message": "...",      // only where sglang rejects: its exact message
//    "data": false,                // true: the strict verdict needs tensor values (`check --data`)
//    "versions": {"comfyui=dynamic-vram": "accept"},  // only where a version differs
//    "named_for": "reference"}     // whose verdict the name's prefix is (below)
//
// `file` is relative to the suite directory. The name's prefix tells the
// expectation at a glance, as JSONTestSuite does, and says whose verdict it
// is; the manifest's "named_for" says the same in words (name_prefix):
//   accept_         "everyone": the reference, every loader and strict accept
//   reject_         "reference": the reference reader (huggingface/safetensors) rejects; or
//                   "index" for a shard index no loader can use (the reference never reads
//                   an index: the index rules, which every profile keeps, reject it)
//   loader-reject_  "loaders": the reference reads it; sglang, ComfyUI or comfy-kitchen rejects
//   strict-reject_  "strict": every consumer loads it; only safespec's strict profile rejects
//   impldef_        "impldef": the written format spec leaves it open; the expectations are
//                   the reference implementation's behaviour and safespec's documented position

#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/result.hpp"
#include "spec/rule_catalogue.hpp"

namespace safespec::conformance {

enum class Expect : unsigned char { Accept, Reject };

// "accept" or "reject": the manifest's spelling, and the reports'.
std::string_view expect_word(Expect e);

// Profiles in the manifest's key order; `expect` is indexed by position here.
inline constexpr std::array<Profile, 5> kManifestProfiles{Profile::Safetensors, Profile::Sglang, Profile::Comfyui,
                                                          Profile::Kitchen, Profile::Strict};

struct Case {
  std::string file;
  std::string description;
  std::vector<std::string> rules;  // rule ids ("ST-F1", "CQ-W4A8-DTYPES"); empty when it breaks none
  std::array<Expect, 5> expect{};  // kManifestProfiles order
  std::string sglang_message;      // set exactly when sglang rejects
  bool data = false;
  // "comfyui=dynamic-vram" -> that version's expectation under its
  // consumer's profile, listed where it differs from the default version's
  // (spec/consumers.hpp); the manifest's "versions" object, in table order.
  std::vector<std::pair<std::string, Expect>> versions;

  Expect expected(Profile p) const;
  // The same with each consumer in the version `chosen` names.
  Expect expected(Profile p, const VersionChoice& chosen) const;
  friend bool operator==(const Case&, const Case&) = default;
};

// The prefix a suite file's name carries, and whose verdict it states. An
// `impldef_` name is the suite author's mark and is kept; every other prefix
// follows from the expectations alone, so a name cannot claim a verdict the
// reference did not give.
struct NamePrefix {
  std::string_view prefix;     // "loader-reject_"
  std::string_view named_for;  // "loaders"
  friend bool operator==(const NamePrefix&, const NamePrefix&) = default;
};
NamePrefix name_prefix(const Case& c);
// The file name without its prefix ("ST-F1_prefix_short.safetensors").
std::string_view name_stem(std::string_view file);

// One manifest line, without the newline.
std::string render_case(const Case& c);
// One manifest line back; the error says what was expected and what was found.
Result<Case, std::string> parse_case(std::string_view line);
// DIR/manifest.jsonl, every line.
Result<std::vector<Case>, std::string> read_manifest(const std::filesystem::path& suite_dir);

}  // namespace safespec::conformance
