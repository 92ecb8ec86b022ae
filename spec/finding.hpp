// A finding is one rule violated at one place. A file gets all of them.
//
// Each finding also says what every consumer does because of it (design.md
// "Consumers are data"): a Verdict per consumer that rejects, mis-loads or
// warns, with that consumer's exception class and its exact message, and the
// finding's position in that consumer's own check order. A consumer's verdict
// on a file is its rejecting Verdict with the smallest order.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spec/consumers.hpp"
#include "spec/place.hpp"
#include "spec/result.hpp"
#include "spec/rule_id.hpp"

namespace safespec {

enum class Severity : unsigned char { Error, Warning };
// "error" or "warning", as every report format prints it.
constexpr std::string_view severity_name(Severity s) { return s == Severity::Error ? "error" : "warning"; }

// Rejects: the consumer raises and does not load. MisLoads: it loads and
// computes something other than what the writer meant, silently. Warns: it
// loads and logs.
enum class Effect : unsigned char { Rejects, MisLoads, Warns };
std::string_view effect_name(Effect e);

// Lexicographic position in a consumer's check order (see spec/quant/order.hpp).
using CheckOrder = std::array<std::uint32_t, 4>;

struct Verdict {
  Consumer consumer;
  Effect effect;
  std::string error;    // exception class ("ValueError") or error variant ("InvalidOffset")
  std::string message;  // what that consumer raises or logs, byte for byte
  CheckOrder order{};
  // The consumer-matrix row it was made from (spec/quant/consumer_messages.hpp),
  // 0 when its text is not one of ours (Python's, the reference reader's, none).
  std::uint16_t row = 0;
  // The versions of the consumer this verdict holds for (spec/consumers.hpp),
  // a bit each; 0: all of them.
  VersionMask versions = 0;

  bool holds_for(std::size_t version) const { return versions == 0 || (versions & version_bit(version)) != 0; }
  friend bool operator==(const Verdict&, const Verdict&) = default;
};

struct Finding {
  RuleId rule;
  Severity severity;
  Place where;
  std::string message;            // safespec's own: what was expected, what was found
  std::vector<Verdict> verdicts;  // at most one per consumer version

  // c's verdict in its default version, or in the version given.
  const Verdict* verdict(Consumer c) const;
  const Verdict* verdict(Consumer c, std::size_t version) const;
  friend bool operator==(const Finding&, const Finding&) = default;
};

using Findings = std::vector<Finding>;

// A parse error becomes the single finding of a file that could not be parsed.
Finding to_finding(const Error& e);

}  // namespace safespec
