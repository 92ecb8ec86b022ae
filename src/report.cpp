#include "src/report.hpp"

#include <fmt/format.h>

#include "spec/format_rules.hpp"
#include "spec/quote.hpp"
#include "src/json_escape.hpp"

namespace safespec {

namespace {

std::string_view severity_name(Severity s) { return s == Severity::Error ? "error" : "warning"; }

std::string_view reference_of(const Finding& f) {
  const auto ref = rule_info(f.rule).reference;
  return ref.empty() ? std::string_view("accepts") : ref;
}

std::string shape_json(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += fmt::format("{}{}", i ? "," : "", shape[i]);
  return s + "]";
}

}  // namespace

std::string render_check_text(const std::vector<FileReport>& reports, Profile profile) {
  std::string out;
  for (const FileReport& r : reports) {
    if (r.io_error) {
      out += fmt::format("{}: cannot check: {}\n", r.path, *r.io_error);
      continue;
    }
    std::size_t errors = 0, warnings = 0;
    for (const Finding& f : r.findings) (f.severity == Severity::Error ? errors : warnings) += 1;
    out += fmt::format("{}: {} ({} error{}, {} warning{}, profile {})\n", r.path, r.ok() ? "OK" : "FAIL", errors,
                       errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s", profile_name(profile));
    for (const Finding& f : r.findings)
      out += fmt::format("  {:<7} {} at {}: {} [reference: {}]\n", severity_name(f.severity), rule_name(f.rule),
                         f.where, f.message, reference_of(f));
    if (is_index_path(r.path)) continue;
    const Finding* first = r.reference_failure();
    out += first ? fmt::format("  verdict safetensors: rejects ({}: {})\n", rule_info(first->rule).reference, first->message)
                 : std::string("  verdict safetensors: loads\n");
  }
  return out;
}

std::string render_check_json(const std::vector<FileReport>& reports, Profile profile) {
  std::string out = fmt::format("{{\"profile\":{},\"files\":[", json_string(profile_name(profile)));
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const FileReport& r = reports[i];
    if (i) out += ',';
    out += fmt::format("{{\"path\":{},\"ok\":{}", json_string(r.path), r.ok() ? "true" : "false");
    if (r.io_error) out += fmt::format(",\"error\":{}", json_string(*r.io_error));
    out += ",\"findings\":[";
    for (std::size_t k = 0; k < r.findings.size(); ++k) {
      const Finding& f = r.findings[k];
      out += fmt::format("{}{{\"rule\":{},\"severity\":\"{}\",\"where\":{},\"message\":{},\"reference\":\"{}\"}}",
                         k ? "," : "", json_string(rule_name(f.rule)), severity_name(f.severity), json_string(f.where),
                         json_string(f.message), reference_of(f));
    }
    out += ']';
    if (!r.io_error && !is_index_path(r.path)) {
      const Finding* first = r.reference_failure();
      out += first ? fmt::format(",\"consumers\":{{\"safetensors\":{{\"loads\":false,\"error\":\"{}\",\"message\":{}}}}}",
                                 rule_info(first->rule).reference, json_string(first->message))
                   : std::string(",\"consumers\":{\"safetensors\":{\"loads\":true}}");
    }
    out += '}';
  }
  return out + "]}\n";
}

std::string render_inspect_text(const Model& m) {
  std::string out = fmt::format("header length {} bytes, data {} bytes, {} tensors\n", m.header_length,
                                m.buffer_size(), m.header.tensors.size());
  for (const TensorEntry* t : sorted_by_offsets(m.header.tensors)) {
    const auto bytes = tensor_byte_size(t->shape, t->dtype);
    out += fmt::format("  {} {} {} bytes={} offsets=[{}, {}]\n", quote_name(t->name), dtype_name(t->dtype),
                       shape_json(t->shape), bytes ? fmt::format("{}", *bytes) : std::string("overflow"), t->begin,
                       t->end);
  }
  if (m.header.metadata_state == MetadataState::Null) out += "metadata: null\n";
  if (m.header.metadata_state == MetadataState::Present) {
    out += fmt::format("metadata: {} keys\n", m.header.metadata.size());
    for (const auto& [k, v] : m.header.metadata) out += fmt::format("  {} = {}\n", quote_name(k), quote_name(v));
  }
  return out;
}

std::string render_inspect_json(const std::string& path, const Model& m) {
  std::string out = fmt::format("{{\"path\":{},\"file_size\":{},\"header_length\":{},\"tensors\":[", json_string(path),
                                m.file_size, m.header_length);
  bool first = true;
  for (const TensorEntry* t : sorted_by_offsets(m.header.tensors)) {
    const auto bytes = tensor_byte_size(t->shape, t->dtype);
    out += fmt::format("{}{{\"name\":{},\"dtype\":\"{}\",\"shape\":{},\"bytes\":{},\"data_offsets\":[{},{}]}}",
                       first ? "" : ",", json_string(t->name), dtype_name(t->dtype), shape_json(t->shape),
                       bytes ? fmt::format("{}", *bytes) : std::string("null"), t->begin, t->end);
    first = false;
  }
  out += "],\"metadata\":";
  if (m.header.metadata_state != MetadataState::Present) {
    out += "null";
  } else {
    out += '{';
    for (std::size_t i = 0; i < m.header.metadata.size(); ++i)
      out += fmt::format("{}{}:{}", i ? "," : "", json_string(m.header.metadata[i].first),
                         json_string(m.header.metadata[i].second));
    out += '}';
  }
  return out + "}\n";
}

std::string render_rules_text() {
  std::string out;
  for (const RuleInfo& r : rule_catalogue())
    out += fmt::format("{:<30} {:<7} {:<6} {:<30} {}\n", r.name, severity_name(r.severity), r.rule_number,
                       r.reference.empty() ? "accepts" : r.reference, r.description);
  return out;
}

std::string render_rules_json() {
  std::string out = "{\"rules\":[";
  bool first = true;
  for (const RuleInfo& r : rule_catalogue()) {
    out += fmt::format("{}{{\"id\":{},\"severity\":\"{}\",\"rule_number\":{},\"reference\":{},\"description\":{}}}",
                       first ? "" : ",", json_string(r.name), severity_name(r.severity), json_string(r.rule_number),
                       json_string(r.reference.empty() ? "accepts" : r.reference), json_string(r.description));
    first = false;
  }
  return out + "]}\n";
}

}  // namespace safespec
