// A profile chosen by name, as the command line and the C API take it: the
// one reading of the names profile_name gives, and the --fail-on default
// that goes with each profile, so that every front end reports the same
// "ok" for the same file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "spec/report.hpp"
#include "spec/result.hpp"
#include "spec/rule_catalogue.hpp"

namespace safespec {

// The profile profile_name(p) spells `name`, or nothing for any other text
// (names are exact: no case folding, no prefixes).
std::optional<Profile> profile_by_name(std::string_view name);

// What fails a report when the caller does not say: an error finding for
// strict and safetensors; for a consumer's profile also a finding that
// consumer loads silently wrong, since that is what its users care about.
FailOn default_fail_on(Profile p);

// One consumer version picked by "NAME=VERSION" (--consumer, the C API, the
// conformance runner): the consumer and the version's position in its row,
// or what was wrong, naming what is accepted.
struct VersionPick {
  Consumer consumer;
  std::uint8_t version;
};
Result<VersionPick, std::string> pick_version(std::string_view text);

}  // namespace safespec
