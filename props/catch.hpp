// The one place tests include Catch2 (v2, Debian) and RapidCheck's Catch glue.
#pragma once

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>

namespace safespec::test {

// rc::prop with at most `cases` successes (RC_PARAMS may lower it further)
// and, when max_size >= 0, generated sizes capped at max_size: keeps each
// property well under 20 s in a Debug+ASan build.
template <class Testable>
void capped_prop(const std::string& description, int cases, Testable&& testable, int max_size = -1) {
  SECTION(description) {
    rc::detail::TestParams params = rc::detail::configuration().testParams;
    params.maxSuccess = std::min(params.maxSuccess, cases);
    if (max_size >= 0) params.maxSize = std::min(params.maxSize, max_size);
    const auto result =
        rc::detail::checkTestable(std::forward<Testable>(testable), rc::detail::TestMetadata{}, params);
    if (!result.template is<rc::detail::SuccessResult>()) {
      std::ostringstream ss;
      rc::detail::printResultMessage(result, ss);
      INFO(ss.str() << "\n");
      FAIL();
    }
  }
}

// A property whose generated sizes stay small (50): the numerics
// properties, whose cost grows with every dimension.
template <class Testable>
void small_prop(const std::string& description, int cases, Testable&& testable) {
  capped_prop(description, cases, std::forward<Testable>(testable), 50);
}

}  // namespace safespec::test
