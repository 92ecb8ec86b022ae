// A finding is one rule violated at one place. A file gets all of them.
#pragma once

#include <string>
#include <vector>

#include "spec/result.hpp"
#include "spec/rule_id.hpp"

namespace safespec {

enum class Severity : unsigned char { Error, Warning };

struct Finding {
  RuleId rule;
  Severity severity;
  std::string where;
  std::string message;

  friend bool operator==(const Finding&, const Finding&) = default;
};

using Findings = std::vector<Finding>;

// A parse error becomes the single finding of a file that could not be parsed.
Finding to_finding(const Error& e);

}  // namespace safespec
