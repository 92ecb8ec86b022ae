// The C API's accessors (include/safespec/safespec.h): a report's files,
// findings, places and verdicts read in place, without JSON. Each accessor
// checks its pointers and indexes and only reads the report.
#include <cstdint>
#include <string>
#include <variant>

#include "safespec/safespec.h"
#include "spec/finding.hpp"
#include "spec/place.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/c_api/handle.hpp"
#include "src/report/place_json.hpp"

namespace {

using namespace safespec;
using safespec::c_api::guarded;
using safespec::c_api::kNull;
using safespec::c_api::view;

// The C enums are the C++ ones by value, so a kind or consumer converts
// with a cast; these keep the two in step.
static_assert(SAFESPEC_CONSUMER_SAFETENSORS == static_cast<int>(Consumer::Safetensors));
static_assert(SAFESPEC_CONSUMER_SGLANG == static_cast<int>(Consumer::Sglang));
static_assert(SAFESPEC_CONSUMER_COMFYUI == static_cast<int>(Consumer::Comfyui));
static_assert(SAFESPEC_CONSUMER_KITCHEN == static_cast<int>(Consumer::Kitchen));
static_assert(SAFESPEC_CONSUMER_COUNT <= kConsumers.size());
static_assert(SAFESPEC_PLACE_NONE == static_cast<int>(PlaceKind::None));
static_assert(SAFESPEC_PLACE_BYTE == static_cast<int>(PlaceKind::Byte));
static_assert(SAFESPEC_PLACE_TENSOR_FIELD == static_cast<int>(PlaceKind::TensorField));
static_assert(SAFESPEC_PLACE_METADATA_KEY == static_cast<int>(PlaceKind::MetadataKey));
static_assert(SAFESPEC_PLACE_CHECKPOINT == static_cast<int>(PlaceKind::Checkpoint));
static_assert(SAFESPEC_PLACE_INDEX_TOTAL_SIZE == static_cast<int>(PlaceKind::IndexTotalSize));
static_assert(SAFESPEC_PLACE_ARGUMENT == static_cast<int>(PlaceKind::Argument));

// The file `file` of the report, or null when either is out of reach.
const FileReport* file_at(const safespec_report* r, size_t file) {
  return r && file < r->files.size() ? &r->files[file] : nullptr;
}

// SAFESPEC_INVALID_ARGUMENT for a null report or out pointer, OUT_OF_RANGE
// for an index past the end, else OK.
safespec_status reach(const safespec_report* r, size_t file, const void* out) {
  if (!r || !out) return SAFESPEC_INVALID_ARGUMENT;
  return file < r->files.size() ? SAFESPEC_OK : SAFESPEC_OUT_OF_RANGE;
}

safespec_status reach(const safespec_report* r, size_t file, size_t finding, const void* out) {
  if (const safespec_status s = reach(r, file, out); s != SAFESPEC_OK) return s;
  return finding < r->files[file].findings.size() ? SAFESPEC_OK : SAFESPEC_OUT_OF_RANGE;
}

bool valid(safespec_consumer c) { return static_cast<unsigned>(c) < kConsumers.size(); }

safespec_effect effect_of(Effect e) {
  switch (e) {
    case Effect::Rejects: return SAFESPEC_EFFECT_REJECTS;
    case Effect::MisLoads: return SAFESPEC_EFFECT_MISLOADS;
    case Effect::Warns: return SAFESPEC_EFFECT_WARNS;
  }
  return SAFESPEC_EFFECT_NONE;
}

}  // namespace

extern "C" {

safespec_status safespec_report_file_count(const safespec_report* report, size_t* count) {
  if (!report || !count) return SAFESPEC_INVALID_ARGUMENT;
  *count = report->files.size();
  return SAFESPEC_OK;
}

safespec_status safespec_file_path(const safespec_report* report, size_t file, safespec_string* path) {
  if (const safespec_status s = reach(report, file, path); s != SAFESPEC_OK) return s;
  *path = view(file_at(report, file)->path);
  return SAFESPEC_OK;
}

safespec_status safespec_file_ok(const safespec_report* report, size_t file, int* ok) {
  if (const safespec_status s = reach(report, file, ok); s != SAFESPEC_OK) return s;
  return guarded([&] {
    *ok = file_at(report, file)->ok() ? 1 : 0;
    return SAFESPEC_OK;
  });
}

safespec_status safespec_file_error(const safespec_report* report, size_t file, safespec_string* error) {
  if (const safespec_status s = reach(report, file, error); s != SAFESPEC_OK) return s;
  const FileReport& r = *file_at(report, file);
  *error = r.io_error ? view(*r.io_error) : kNull;
  return SAFESPEC_OK;
}

safespec_status safespec_file_hint(const safespec_report* report, size_t file, safespec_string* hint) {
  if (const safespec_status s = reach(report, file, hint); s != SAFESPEC_OK) return s;
  const FileReport& r = *file_at(report, file);
  *hint = r.hint.empty() ? kNull : view(r.hint);
  return SAFESPEC_OK;
}

safespec_status safespec_file_complete(const safespec_report* report, size_t file, int* complete) {
  if (const safespec_status s = reach(report, file, complete); s != SAFESPEC_OK) return s;
  *complete = file_at(report, file)->complete() ? 1 : 0;
  return SAFESPEC_OK;
}

safespec_status safespec_file_unchecked_count(const safespec_report* report, size_t file, size_t* count) {
  if (const safespec_status s = reach(report, file, count); s != SAFESPEC_OK) return s;
  *count = file_at(report, file)->unchecked.size();
  return SAFESPEC_OK;
}

safespec_status safespec_file_unchecked(const safespec_report* report, size_t file, size_t item,
                                        safespec_string* what, safespec_string* why) {
  if (const safespec_status s = reach(report, file, what); s != SAFESPEC_OK) return s;
  if (!why) return SAFESPEC_INVALID_ARGUMENT;
  const FileReport& r = *file_at(report, file);
  if (item >= r.unchecked.size()) return SAFESPEC_OUT_OF_RANGE;
  *what = view(r.unchecked[item].what);
  *why = view(r.unchecked[item].why);
  return SAFESPEC_OK;
}

safespec_status safespec_file_rule_count_size(const safespec_report* report, size_t file, size_t* count) {
  if (const safespec_status s = reach(report, file, count); s != SAFESPEC_OK) return s;
  *count = report->cached[file].counts.size();
  return SAFESPEC_OK;
}

safespec_status safespec_file_rule_count(const safespec_report* report, size_t file, size_t entry,
                                         safespec_string* rule, uint64_t* findings) {
  if (const safespec_status s = reach(report, file, rule); s != SAFESPEC_OK) return s;
  if (!findings) return SAFESPEC_INVALID_ARGUMENT;
  const auto& counts = report->cached[file].counts;
  if (entry >= counts.size()) return SAFESPEC_OUT_OF_RANGE;
  *rule = view(counts[entry].first);
  *findings = counts[entry].second;
  return SAFESPEC_OK;
}

namespace {

void fill_outcome(const Outcome& o, Consumer c, safespec_outcome* outcome) {
  *outcome = safespec_outcome{o.unknown.empty() ? 1 : 0, 0, kNull, kNull, kNull};
  if (!o.unknown.empty()) return;
  outcome->loads = o.loads ? 1 : 0;
  if (!o.loads) {
    outcome->error = view(o.error);
    outcome->message = view(o.message);
  }
  // As outcome_json: sglang's resolution of an unquantized checkpoint ("None") is null.
  if (c == Consumer::Sglang && o.loads && o.config != "None" && !o.config.empty()) outcome->config = view(o.config);
}

}  // namespace

safespec_status safespec_file_consumer(const safespec_report* report, size_t file, safespec_consumer consumer,
                                       safespec_outcome* outcome) {
  if (const safespec_status s = reach(report, file, outcome); s != SAFESPEC_OK) return s;
  if (!valid(consumer)) return SAFESPEC_INVALID_ARGUMENT;
  const FileReport& r = *file_at(report, file);
  const Consumer c = static_cast<Consumer>(consumer);
  *outcome = safespec_outcome{0, 0, kNull, kNull, kNull};
  if (!r.judged || !r.shows(c)) return SAFESPEC_OK;
  fill_outcome(r.consumers[c], c, outcome);
  return SAFESPEC_OK;
}

safespec_status safespec_file_consumer_version(const safespec_report* report, size_t file, safespec_consumer consumer,
                                               size_t version, safespec_outcome* outcome, safespec_string* unknown) {
  if (const safespec_status s = reach(report, file, outcome); s != SAFESPEC_OK) return s;
  if (!valid(consumer) || !unknown) return SAFESPEC_INVALID_ARGUMENT;
  const Consumer c = static_cast<Consumer>(consumer);
  if (version >= consumer_info(c).versions.size()) return SAFESPEC_INVALID_ARGUMENT;
  const FileReport& r = *file_at(report, file);
  *outcome = safespec_outcome{0, 0, kNull, kNull, kNull};
  *unknown = kNull;
  if (!r.judged || !r.shows(c) || version >= r.versions[c].size()) return SAFESPEC_OK;
  const Outcome& o = r.versions[c][version];
  fill_outcome(o, c, outcome);
  if (!o.unknown.empty()) *unknown = view(o.unknown);
  return SAFESPEC_OK;
}

safespec_status safespec_file_finding_count(const safespec_report* report, size_t file, size_t* count) {
  if (const safespec_status s = reach(report, file, count); s != SAFESPEC_OK) return s;
  *count = file_at(report, file)->findings.size();
  return SAFESPEC_OK;
}

safespec_status safespec_finding_get(const safespec_report* report, size_t file, size_t finding,
                                     safespec_finding* out) {
  if (const safespec_status s = reach(report, file, finding, out); s != SAFESPEC_OK) return s;
  const Finding& f = report->files[file].findings[finding];
  const safespec_report::CachedFinding& c = report->cached[file].findings[finding];
  *out = safespec_finding{view(c.rule),
                          f.severity == Severity::Error ? SAFESPEC_SEVERITY_ERROR : SAFESPEC_SEVERITY_WARNING,
                          view(f.message), view(c.where), view(c.reference)};
  return SAFESPEC_OK;
}

safespec_status safespec_finding_fix(const safespec_report* report, size_t file, size_t finding, safespec_string* out) {
  if (const safespec_status s = reach(report, file, finding, out); s != SAFESPEC_OK) return s;
  const std::string_view fix = rule_info(report->files[file].findings[finding].rule).fix;  // a catalogue literal
  *out = safespec_string{fix.data(), fix.size()};
  return SAFESPEC_OK;
}

safespec_status safespec_finding_place(const safespec_report* report, size_t file, size_t finding,
                                       safespec_place* out) {
  if (const safespec_status s = reach(report, file, finding, out); s != SAFESPEC_OK) return s;
  const Place& p = report->files[file].findings[finding].where;
  const std::string_view kind = place_kind_name(p.kind);  // a literal of spec/place.cpp's table
  *out = safespec_place{static_cast<safespec_place_kind>(p.kind),
                        safespec_string{kind.data(), kind.size()},
                        place_has_name(p) ? view(p.name) : kNull,
                        p.kind == PlaceKind::TensorField ? view(p.field) : kNull,
                        p.kind == PlaceKind::Byte ? 1 : 0,
                        p.kind == PlaceKind::Byte ? p.byte : 0,
                        p.path.size()};
  return SAFESPEC_OK;
}

safespec_status safespec_place_step(const safespec_report* report, size_t file, size_t finding, size_t step,
                                    int* is_index, safespec_string* key, uint64_t* index) {
  if (const safespec_status s = reach(report, file, finding, is_index); s != SAFESPEC_OK) return s;
  if (!key || !index) return SAFESPEC_INVALID_ARGUMENT;
  const Place& p = report->files[file].findings[finding].where;
  if (step >= p.path.size()) return SAFESPEC_OUT_OF_RANGE;
  if (const auto* k = std::get_if<std::string>(&p.path[step])) {
    *is_index = 0;
    *key = view(*k);
    *index = 0;
  } else {
    *is_index = 1;
    *key = kNull;
    *index = std::get<std::uint64_t>(p.path[step]);
  }
  return SAFESPEC_OK;
}

safespec_status safespec_finding_verdict(const safespec_report* report, size_t file, size_t finding,
                                         safespec_consumer consumer, safespec_verdict* out) {
  if (const safespec_status s = reach(report, file, finding, out); s != SAFESPEC_OK) return s;
  if (!valid(consumer)) return SAFESPEC_INVALID_ARGUMENT;
  const Verdict* v = report->files[file].findings[finding].verdict(static_cast<Consumer>(consumer));
  *out = v ? safespec_verdict{effect_of(v->effect), view(v->error), view(v->message)}
           : safespec_verdict{SAFESPEC_EFFECT_NONE, kNull, kNull};
  return SAFESPEC_OK;
}

const char* safespec_consumer_name(safespec_consumer consumer) {
  if (!valid(consumer)) return nullptr;  // a caller's out-of-range value
  return consumer_name(static_cast<Consumer>(consumer)).data();  // the table's literals end in NUL
}

size_t safespec_consumer_count(void) { return kConsumers.size(); }

safespec_status safespec_consumer_by_name(const char* name, safespec_consumer* out) {
  if (!name || !out) return SAFESPEC_INVALID_ARGUMENT;
  const std::optional<Consumer> c = consumer_by_name(name);
  if (!c) return SAFESPEC_INVALID_ARGUMENT;
  *out = static_cast<safespec_consumer>(*c);
  return SAFESPEC_OK;
}

safespec_status safespec_consumer_version_count(safespec_consumer consumer, size_t* count) {
  if (!valid(consumer) || !count) return SAFESPEC_INVALID_ARGUMENT;
  *count = consumer_info(static_cast<Consumer>(consumer)).versions.size();
  return SAFESPEC_OK;
}

const char* safespec_consumer_version_id(safespec_consumer consumer, size_t version) {
  if (!valid(consumer)) return nullptr;
  const auto versions = consumer_info(static_cast<Consumer>(consumer)).versions;
  return version < versions.size() ? versions[version].id.data() : nullptr;
}

}  // extern "C"
