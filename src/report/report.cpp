#include "src/report/report.hpp"

#include "spec/quant/consumer_messages.hpp"

#include <fmt/format.h>

#include "spec/format_rules.hpp"
#include "spec/quant/render.hpp"
#include "spec/quote.hpp"
#include "src/report/json_escape.hpp"
#include "src/report/place_json.hpp"

namespace safespec {

std::string_view finding_reference(const Finding& f, const FileReport& r) {
  if (const Verdict* v = f.verdict(Consumer::Safetensors)) return v->error;
  // The reference read this very file and accepted it: whatever the rule
  // says a reader of its kind raises, this one did not.
  if (r.reference && !r.reference->failure) return "accepts";
  const auto ref = rule_info(f.rule).reference;
  return ref.empty() ? std::string_view("accepts") : ref;
}

std::string effects_json(const Finding& f, const VersionChoice& chosen) {
  std::string out = "{";
  for (Consumer c : kConsumers)
    if (const Verdict* v = f.verdict(c, chosen[c]))
      out += fmt::format("{}{}:\"{}\"", out.size() > 1 ? "," : "", json_string(consumer_name(c)),
                         effect_name(v->effect));
  return out + "}";
}

namespace {

std::string rule_array(const std::vector<RuleId>& rules) {
  std::string out = "[";
  for (std::size_t i = 0; i < rules.size(); ++i) out += (i ? "," : "") + json_string(rule_name(rules[i]));
  return out + "]";
}

std::string nullable(bool present, const std::string& text) { return present ? json_string(text) : "null"; }

}  // namespace

std::string unchecked_json(const std::vector<Unchecked>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i)
    out += fmt::format("{}{{\"what\":{},\"why\":{}}}", i ? "," : "", json_string(items[i].what),
                       json_string(items[i].why));
  return out + "]";
}

std::string outcome_json(const Outcome& o, Consumer c, std::string_view version) {
  // Every consumer object has the same keys, so a reader can rely on the
  // schema: null or [] when empty. "loads" is null when safespec cannot
  // tell, and "unknown" says why.
  const bool known = o.unknown.empty();
  std::string out = "{";
  if (!version.empty()) out += "\"version\":" + json_string(version) + ",";
  out += fmt::format("\"loads\":{},\"error\":{},\"message\":{},\"unknown\":{}",
                     !known ? "null" : o.loads ? "true" : "false", nullable(known && !o.loads, o.error),
                     nullable(known && !o.loads, o.message), nullable(!known, o.unknown));
  // sglang's resolution returns None for a checkpoint without markers: null.
  const bool config = c == Consumer::Sglang && o.loads && o.config != "None" && !o.config.empty();
  out += ",\"config\":" + nullable(config, o.config);
  out += ",\"mis_loads\":" + rule_array(o.mis_loads) + ",\"warns\":" + rule_array(o.warns);
  // The other answers the consumer gives in other processes (X13, S7), and
  // for sglang the layer kinds its verdict assumes.
  out += ",\"alternatives\":[";
  for (std::size_t i = 0; i < o.alternatives.size(); ++i)
    out += fmt::format("{}{{\"error\":{},\"message\":{}}}", i ? "," : "", json_string(o.alternatives[i].first),
                       json_string(o.alternatives[i].second));
  out += "],\"assumes\":[";
  for (std::size_t i = 0; i < o.assumes.size(); ++i) {
    const quant::Assumption& a = o.assumes[i];
    // A layer-kind assumption names the layer and kind; a machine one says
    // what it takes of the machine. An otherwise safespec cannot settle has
    // a null error and says why in "unknown".
    const bool unknown = a.otherwise.error.empty();
    out += fmt::format("{}{{\"layer\":{},\"kind\":{},\"machine\":{},\"otherwise\":{{\"error\":{},\"message\":{},"
                       "\"unknown\":{}}}}}",
                       i ? "," : "", json_string(a.layer),
                       a.about_kind() ? "\"" + std::string(quant::layer_kind_name(a.kind)) + "\"" : std::string("null"),
                       nullable(!a.about_kind(), a.machine), nullable(!unknown, a.otherwise.error),
                       nullable(!unknown, a.otherwise.message), nullable(unknown, a.otherwise.message));
  }
  out += "],\"unchecked\":[";
  for (std::size_t i = 0; i < o.unchecked.size(); ++i) out += (i ? "," : "") + json_string(o.unchecked[i]);
  // On a checkpoint's report, for a consumer that judges each file alone: the file the verdict is about.
  return out + "],\"file\":" + nullable(!o.file.empty(), o.file) + "}";
}

std::string consumers_json(const FileReport& r) {
  std::string out = "{";
  for (Consumer c : kConsumers)
    if (r.shows(c))
      out += fmt::format("{}{}:{}", out.size() > 1 ? "," : "", json_string(consumer_name(c)),
                       outcome_json(r.consumers[c], c));
  return out + '}';
}

std::string versions_json(const FileReport& r) {
  std::string out = "{";
  for (Consumer c : kConsumers) {
    if (!has_versions(c) || r.versions[c].empty() || !r.shows(c)) continue;
    out += fmt::format("{}{}:[", out.size() > 1 ? "," : "", json_string(consumer_name(c)));
    const auto rows = consumer_info(c).versions;
    for (std::size_t v = 0; v < r.versions[c].size(); ++v)
      out += (v ? "," : "") + outcome_json(r.versions[c][v], c, rows[v].id);
    out += ']';
  }
  return out + '}';
}

std::string chosen_json(const FileReport& r) {
  std::string out = "{";
  for (Consumer c : kConsumers)
    out += fmt::format("{}{}:{}", out.size() > 1 ? "," : "", json_string(consumer_name(c)),
                       json_string(consumer_info(c).versions[r.chosen[c]].id));
  return out + '}';
}

std::string render_check_json(const std::vector<FileReport>& reports, Profile profile) {
  std::string out = fmt::format("{{\"schema\":{},\"profile\":{},\"files\":[", kJsonSchema, json_string(profile_name(profile)));
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const FileReport& r = reports[i];
    if (i) out += ',';
    out += fmt::format("{{\"path\":{},\"ok\":{}", json_string(r.path), r.ok() ? "true" : "false");
    if (r.io_error) out += fmt::format(",\"error\":{}", json_string(*r.io_error));
    out += ",\"hint\":" + (r.hint.empty() ? std::string("null") : json_string(r.hint));
    out += ",\"findings\":[";
    for (std::size_t k = 0; k < r.findings.size(); ++k) {
      const Finding& f = r.findings[k];
      out += fmt::format("{}{{\"rule\":{},\"severity\":\"{}\",\"where\":{},\"place\":{},\"message\":{},\"reference\":\"{}\",\"consumers\":{},\"fix\":{}}}",
                         k ? "," : "", json_string(rule_name(f.rule)), severity_name(f.severity), json_string(f.where.text()),
                         place_json(f.where), json_string(f.message), finding_reference(f, r), effects_json(f, r.chosen),
                         json_string(rule_info(f.rule).fix));
    }
    out += "],\"counts\":{";
    bool first = true;
    for (const auto& [id, n] : r.counts.entries()) {  // in RuleId order, the catalogue's; none is 0
      out += fmt::format("{}{}:{}", first ? "" : ",", json_string(rule_name(id)), n);
      first = false;
    }
    out += fmt::format("}},\"ignored\":{},\"complete\":{},\"unchecked\":{}", r.ignored, r.complete() ? "true" : "false",
                       unchecked_json(r.unchecked));
    if (r.judged) {
      out += ",\"consumers\":" + consumers_json(r) + ",\"consumer_versions\":" + chosen_json(r) +
             ",\"versions\":" + versions_json(r);
    }
    // A file of a checkpoint of several files names the checkpoint's report;
    // that report lists the files.
    out += ",\"checkpoint\":" + nullable(!r.checkpoint.empty(), r.checkpoint) + ",\"files\":[";
    for (std::size_t k = 0; k < r.files.size(); ++k) out += (k ? "," : "") + json_string(r.files[k]);
    out += "]}";
  }
  return out + "]}\n";
}

namespace {

// ST-BUFFER-TRUNCATED when the tensors need more data than the file holds.
std::optional<Finding> truncation(const Model& m) {
  std::uint64_t end = 0;
  for_each_by_offsets(m.header.tensors, [&](const TensorEntry& t) { end = t.end; });  // the reference's cursor (F13)
  auto f = rule_buffer_coverage(m, end);
  if (f && f->rule == RuleId::BufferTruncated) return f;
  return std::nullopt;
}

}  // namespace

std::string render_inspect_text(const Model& m) {
  std::string out = fmt::format("header length {} bytes, data {} bytes, {} tensors\n", m.header_length,
                                m.buffer_size(), m.header.tensors.size());
  for_each_by_offsets(m.header.tensors, [&](const TensorEntry& t) {
    const auto bytes = tensor_byte_size(t.shape, t.dtype);
    out += fmt::format("  {} {} {} bytes={} offsets=[{}, {}]\n", quote_name(t.name), dtype_name(t.dtype),
                       shape_json(t.shape), bytes ? fmt::format("{}", *bytes) : std::string("overflow"), t.begin,
                       t.end);
  });
  if (m.header.metadata_state == MetadataState::Null) out += "metadata: null\n";
  if (m.header.metadata_state == MetadataState::Present) {
    out += fmt::format("metadata: {} keys\n", m.header.metadata.size());
    for (const auto& [k, v] : m.header.metadata) out += fmt::format("  {} = {}\n", quote_name(k), quote_name(v));
  }
  if (const auto t = truncation(m)) out += fmt::format("truncated: {} at {}: {}\n", rule_name(t->rule), t->where.text(), t->message);
  return out;
}

std::string render_inspect_json(const std::string& path, const Model& m, const std::string& extra) {
  return fmt::format("{{\"schema\":{},", kJsonSchema) + inspect_object_json(path, m, extra).substr(1) + "\n";
}

std::string inspect_object_json(const std::string& path, const Model& m, const std::string& extra) {
  std::string out = fmt::format("{{\"path\":{},\"file_size\":{},\"header_length\":{},\"tensors\":[", json_string(path),
                                m.file_size, m.header_length);
  bool first = true;
  for_each_by_offsets(m.header.tensors, [&](const TensorEntry& t) {
    const auto bytes = tensor_byte_size(t.shape, t.dtype);
    out += fmt::format("{}{{\"name\":{},\"dtype\":\"{}\",\"shape\":{},\"bytes\":{},\"data_offsets\":[{},{}]}}",
                       first ? "" : ",", json_string(t.name), dtype_name(t.dtype), shape_json(t.shape),
                       bytes ? fmt::format("{}", *bytes) : std::string("null"), t.begin, t.end);
    first = false;
  });
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
  out += extra;  // the summary and values keys, before "truncated" (which stays last)
  const auto t = truncation(m);
  out += ",\"truncated\":" + (t ? fmt::format("{{\"rule\":{},\"where\":{},\"place\":{},\"message\":{}}}",
                                             json_string(rule_name(t->rule)), json_string(t->where.text()),
                                             place_json(t->where), json_string(t->message))
                               : std::string("null"));
  return out + "}";
}

std::string render_inspect_error_json(const std::string& path, const std::string& message, const Error* parse_error) {
  std::string out = fmt::format("{{\"schema\":{},\"path\":{},\"error\":{}", kJsonSchema, json_string(path),
                                json_string(message));
  if (parse_error)
    out += fmt::format(",\"rule\":{},\"where\":{},\"place\":{}", json_string(rule_name(parse_error->rule)),
                       json_string(parse_error->where.text()), place_json(parse_error->where));
  return out + "}\n";
}

std::string render_rules_text() {
  std::string out;
  for (const RuleInfo& r : rule_catalogue())
    out += fmt::format("{:<30} {:<7} {:<9} {:<6} {:<6} {:<30} {}\n{:<30} fix: {}\n", r.name, severity_name(r.severity),
                       scope_name(r.scope), tier_name(r.tier), r.rule_number, r.reference.empty() ? "accepts" : r.reference,
                       r.description, "", r.fix);
  return out;
}

std::string render_rules_markdown() {
  const auto cell = [](std::string_view text) {
    std::string out;
    for (char c : text) {
      if (c == '|') out += '\\';
      out += c;
    }
    return out;
  };
  std::string out =
      "# Rules\n\n"
      "Generated by `safespec rules --markdown` from the rule catalogue (`spec/rule_catalogue.cpp`); a test\n"
      "fails when this file is not current. Each rule number has its condition, the reference reader's\n"
      "behaviour and each consumer's verdict and message in [`docs/spec/`](spec/README.md). \"Reference\" is\n"
      "the error variant of the reference reader (huggingface/safetensors) for a file that breaks the rule,\n"
      "or \"accepts\" where it loads such a file. Scope: container (the reference rejects), strict (the\n"
      "reference accepts, the strict profile flags), writer (the canonical writer refuses), index (a shard\n"
      "index and its shards), quant (a quantized layer). Tier: header, or data (checked with `--data`).\n\n"
      "| id | severity | scope | tier | rule number | reference | condition | fix |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const RuleInfo& r : rule_catalogue())
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} | {} |\n", r.name, severity_name(r.severity),
                       scope_name(r.scope), tier_name(r.tier), cell(r.rule_number),
                       r.reference.empty() ? "accepts" : cell(r.reference), cell(r.description), cell(r.fix));
  return out;
}

std::string render_rules_json() {
  std::string out = fmt::format("{{\"schema\":{},\"rules\":[", kJsonSchema);
  bool first = true;
  for (const RuleInfo& r : rule_catalogue()) {
    out += fmt::format("{}{{\"id\":{},\"severity\":\"{}\",\"scope\":\"{}\",\"tier\":\"{}\",\"rule_number\":{},"
                       "\"reference\":{},\"description\":{},\"fix\":{}}}",
                       first ? "" : ",", json_string(r.name), severity_name(r.severity), scope_name(r.scope),
                       tier_name(r.tier), json_string(r.rule_number),
                       json_string(r.reference.empty() ? "accepts" : r.reference), json_string(r.description),
                       json_string(r.fix));
    first = false;
  }
  // The consumer matrix: which consumer acts on which rule, where in its order, with which message.
  out += "],\"consumer_matrix\":[";
  first = true;
  for (const quant::MessageRow& m : quant::consumer_matrix()) {
    std::string rules;
    for (RuleId r : m.rules) rules += (rules.empty() ? "" : ",") + json_string(rule_name(r));
    out += fmt::format("{}{{\"id\":{},\"rules\":[{}],\"consumer\":\"{}\",\"effect\":\"{}\",\"error\":{},"
                       "\"message\":{},\"cite\":{},\"site\":\"{}\",\"step\":{}}}",
                       first ? "" : ",", json_string(quant::msg_name(m.id)), rules, consumer_name(m.t.consumer),
                       effect_name(m.t.effect), json_string(m.t.error), json_string(m.t.text), json_string(m.t.cite),
                       quant::site_name(m.site), m.step);
    first = false;
  }
  return out + "]}\n";
}

}  // namespace safespec
