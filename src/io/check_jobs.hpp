// The thread count of `check`, as one value decided in one place.
#pragma once

#include <algorithm>

#include "spec/limits.hpp"

namespace safespec {

// How many threads read and parse files (--jobs): 1 to kMaxCheckJobs
// (spec/limits.hpp: headers in flight), decided here and nowhere else. Any
// count converts (0 reads as 1, more than the bound as the bound), so every
// function below takes a CheckJobs and none bounds it again. The CLI refuses
// a --jobs outside the bound before it gets here.
class CheckJobs {
 public:
  constexpr CheckJobs(unsigned asked = 1) : n_(std::clamp(asked, 1u, kMaxCheckJobs)) {}
  constexpr unsigned count() const { return n_; }
  friend constexpr bool operator==(CheckJobs, CheckJobs) = default;

 private:
  unsigned n_;
};

}  // namespace safespec
