// What a check could not look at, and why: a read bound reached, a tensor over
// a size bound, bytes that are not in the file. Every report lists these
// (`"complete"`, `"unchecked"`), so a limit is never silent, and no consumer's
// "loads" is asserted on a check that did not run.
#pragma once

#include <string>
#include <vector>

#include "spec/finding.hpp"

namespace safespec {

struct Unchecked {
  std::string what;  // "data rules of tensor 'P.weight_scale'", "marker tensor 'P.comfy_quant'"
  std::string why;   // "13 bytes at data_offsets [0, 13], which lie outside the file"
  // The consumers whose verdict could depend on it: one that loads the file
  // gets it as a note in its outcome instead of an unqualified "loads".
  std::vector<Consumer> consumers;

  friend bool operator==(const Unchecked&, const Unchecked&) = default;
};

}  // namespace safespec
