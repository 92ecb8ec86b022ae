// The C API's calls that make and free reports (include/safespec/safespec.h):
// the same pipeline and options as `safespec check`, through src/commands/check.hpp.
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "safespec/safespec.h"
#include "spec/profile_choice.hpp"
#include "src/c_api/handle.hpp"
#include "src/commands/check.hpp"
#include "src/commands/layer_kinds_option.hpp"
#include "src/report/report.hpp"

#ifndef SAFESPEC_VERSION
#error "SAFESPEC_VERSION is defined by the build (CMakeLists.txt), as for the command"
#endif

using safespec::c_api::guarded;

safespec_report::safespec_report(std::vector<safespec::FileReport> reports, safespec::Profile p)
    : files(std::move(reports)), profile(p) {
  using namespace safespec;
  cached.reserve(files.size());
  for (const FileReport& r : files) {
    CachedFile& c = cached.emplace_back();
    c.findings.reserve(r.findings.size());
    for (const Finding& f : r.findings) {
      c.findings.push_back({std::string(rule_name(f.rule)), std::string(finding_reference(f, r)), f.where.text()});
    }
    for (const auto& [id, n] : r.counts.entries()) c.counts.emplace_back(std::string(rule_name(id)), n);
  }
}

namespace {

using namespace safespec;

// The options as check_paths takes them, or the status that refuses them.
safespec_status read_options(const safespec_check_options* in, Profile profile, CheckOptions& out) {
  safespec_check_options defaults;
  if (!in) {
    safespec_check_options_init(&defaults);
    in = &defaults;
  }
  // A struct of another layout would be read wrong; refuse it rather than guess.
  if (in->struct_size != sizeof(safespec_check_options)) return SAFESPEC_INVALID_ARGUMENT;
  if (in->layer_count > 0 && !in->layers) return SAFESPEC_INVALID_ARGUMENT;
  out.profile = profile;
  switch (in->fail_on) {
    case SAFESPEC_FAIL_ON_DEFAULT: out.fail_on = default_fail_on(profile); break;
    case SAFESPEC_FAIL_ON_ERROR: out.fail_on = FailOn::Error; break;
    case SAFESPEC_FAIL_ON_MISLOAD: out.fail_on = FailOn::MisLoad; break;
    case SAFESPEC_FAIL_ON_WARNING: out.fail_on = FailOn::Warning; break;
    default: return SAFESPEC_INVALID_ARGUMENT;
  }
  out.data = in->data != 0;
  out.separate = in->separate != 0;
  out.checkpoint = in->checkpoint != 0;
  std::vector<std::string> words;
  for (std::size_t i = 0; i < in->layer_count; ++i) {
    if (!in->layers[i]) return SAFESPEC_INVALID_ARGUMENT;
    words.emplace_back(in->layers[i]);
  }
  auto kinds = layer_kinds_option(words, in->layers_file ? in->layers_file : "", in->all_linear != 0);
  if (!kinds) return SAFESPEC_INVALID_ARGUMENT;
  out.kinds = std::move(kinds).value();
  if (in->consumer_count > 0 && !in->consumers) return SAFESPEC_INVALID_ARGUMENT;
  for (std::size_t i = 0; i < in->consumer_count; ++i) {
    if (!in->consumers[i]) return SAFESPEC_INVALID_ARGUMENT;
    auto pick = pick_version(in->consumers[i]);
    if (!pick) return SAFESPEC_INVALID_ARGUMENT;
    out.versions[pick.value().consumer] = pick.value().version;
  }
  return SAFESPEC_OK;
}

safespec_status read_profile(const char* name, Profile& out) {
  if (!name) {
    out = Profile::Strict;
    return SAFESPEC_OK;
  }
  const std::optional<Profile> p = profile_by_name(name);
  if (!p) return SAFESPEC_UNKNOWN_PROFILE;
  out = *p;
  return SAFESPEC_OK;
}

}  // namespace

extern "C" {

const char* safespec_status_message(safespec_status status) {
  switch (status) {
    case SAFESPEC_OK: return "ok";
    case SAFESPEC_INVALID_ARGUMENT: return "invalid argument";
    case SAFESPEC_UNKNOWN_PROFILE: return "unknown profile (expected strict, safetensors, sglang, comfyui or kitchen)";
    case SAFESPEC_OUT_OF_RANGE: return "index out of range";
    case SAFESPEC_UNSUPPORTED: return "option not supported by this call";
    case SAFESPEC_OUT_OF_MEMORY: return "out of memory";
    case SAFESPEC_INTERNAL_ERROR: return "internal error in safespec";
    case SAFESPEC_INVALID_INPUT: return "input refused by the specification (see the safespec_error)";
  }
  return "unknown status";
}

safespec_status safespec_version(uint32_t* api_version, const char** release) {
  if (!api_version || !release) return SAFESPEC_INVALID_ARGUMENT;
  *api_version = SAFESPEC_API_VERSION;
  *release = SAFESPEC_VERSION;
  return SAFESPEC_OK;
}

safespec_status safespec_rules_json(const char** json, size_t* len) {
  if (!json || !len) return SAFESPEC_INVALID_ARGUMENT;
  return guarded([&] {
    // The catalogue is fixed for the life of the program, and so is its text.
    static const std::string text = safespec::render_rules_json();
    *json = text.c_str();
    *len = text.size();
    return SAFESPEC_OK;
  });
}

safespec_status safespec_check_options_init(safespec_check_options* options) {
  if (!options) return SAFESPEC_INVALID_ARGUMENT;
  *options = safespec_check_options{};
  options->struct_size = sizeof(safespec_check_options);
  options->fail_on = SAFESPEC_FAIL_ON_DEFAULT;
  return SAFESPEC_OK;
}

safespec_status safespec_check_bytes(const uint8_t* buf, size_t len, const char* profile,
                                     const safespec_check_options* options, safespec_report** out) {
  return guarded([&] {
    if (!out || (!buf && len > 0)) return SAFESPEC_INVALID_ARGUMENT;
    Profile p{};
    if (const safespec_status s = read_profile(profile, p); s != SAFESPEC_OK) return s;
    CheckOptions o;
    if (const safespec_status s = read_options(options, p, o); s != SAFESPEC_OK) return s;
    if (o.data) return SAFESPEC_UNSUPPORTED;
    const MemoryFile file{options && options->name ? options->name : "<memory>",
                          std::span<const std::uint8_t>(buf, len)};
    HeaderParser parser;
    auto handle = std::make_unique<safespec_report>(check_memory(std::span(&file, 1), o, parser), p);
    *out = handle.release();
    return SAFESPEC_OK;
  });
}

safespec_status safespec_check_paths(const char* const* paths, size_t n, const char* profile,
                                     const safespec_check_options* options, safespec_report** out) {
  return guarded([&] {
    if (!out || (!paths && n > 0)) return SAFESPEC_INVALID_ARGUMENT;
    std::vector<std::string> list;
    for (std::size_t i = 0; i < n; ++i) {
      if (!paths[i]) return SAFESPEC_INVALID_ARGUMENT;
      list.emplace_back(paths[i]);
    }
    Profile p{};
    if (const safespec_status s = read_profile(profile, p); s != SAFESPEC_OK) return s;
    CheckOptions o;
    if (const safespec_status s = read_options(options, p, o); s != SAFESPEC_OK) return s;
    HeaderParser parser;
    auto handle = std::make_unique<safespec_report>(check_paths(list, o, parser), p);
    *out = handle.release();
    return SAFESPEC_OK;
  });
}

void safespec_report_free(safespec_report* report) { delete report; }

safespec_status safespec_report_json(const safespec_report* report, const char** json, size_t* len) {
  return guarded([&] {
    if (!report || !json || !len) return SAFESPEC_INVALID_ARGUMENT;
    // The command's own encoder, so the two can never drift apart.
    std::call_once(report->json_once, [&] { report->json = render_check_json(report->files, report->profile); });
    *json = report->json.c_str();
    *len = report->json.size();
    return SAFESPEC_OK;
  });
}

}  // extern "C"
