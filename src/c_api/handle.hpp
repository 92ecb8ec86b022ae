// What a safespec_report (include/safespec/safespec.h) is: the reports of
// one check, and every string the accessors hand out, made once when the
// report is made so that the accessors only read (and may run
// concurrently) and the pointers they give stay put until it is freed.
#pragma once

#include <cstdint>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "safespec/safespec.h"
#include "spec/report.hpp"
#include "spec/rule_catalogue.hpp"

struct safespec_report {
  struct CachedFinding {
    std::string rule;       // rule_name, NUL-terminated where the catalogue's view need not be
    std::string reference;  // the reference's variant, or "accepts"
    std::string where;      // Place::text()
  };
  struct CachedFile {
    std::vector<CachedFinding> findings;
    std::vector<std::pair<std::string, std::uint64_t>> counts;  // JSON "counts", in catalogue order
  };

  safespec_report(std::vector<safespec::FileReport> reports, safespec::Profile p);

  std::vector<safespec::FileReport> files;
  std::vector<CachedFile> cached;
  safespec::Profile profile;
  // The JSON is made on first request only: a fuzzer that checks millions of
  // inputs reads the accessors and never pays for it.
  mutable std::once_flag json_once;
  mutable std::string json;
};

namespace safespec::c_api {

// The one exception boundary: whatever the body throws becomes a status.
template <class Body>
safespec_status guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return SAFESPEC_OUT_OF_MEMORY;
  } catch (...) {
    return SAFESPEC_INTERNAL_ERROR;
  }
}

inline safespec_string view(const std::string& s) { return safespec_string{s.c_str(), s.size()}; }
inline constexpr safespec_string kNull{nullptr, 0};

}  // namespace safespec::c_api
