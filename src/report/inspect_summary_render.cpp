// The inspect summary as text lines and as the JSON "summary" object: the
// same facts in both, so a script never parses the text.
#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "spec/dtype.hpp"
#include "spec/quote.hpp"
#include "src/commands/inspect_summary.hpp"
#include "src/report/json_escape.hpp"

namespace safespec {

namespace {

std::string total_text(const Total& t) { return t ? fmt::format("{}", *t) : std::string("overflow"); }
std::string total_json(const Total& t) { return t ? fmt::format("{}", *t) : std::string("null"); }

std::string plural(std::uint64_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string strings_json(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + json_string(items[i]);
  return out + "]";
}

// A marker value as JSON: a Python int stays a number, anything else
// (a float, a str, a bool) is its repr as a string.
std::string marker_value_json(const std::string& repr) {
  const std::size_t digits = repr.starts_with('-') ? 1 : 0;
  bool is_int = repr.size() > digits && repr.size() < 19;
  for (std::size_t i = digits; i < repr.size() && is_int; ++i) is_int = repr[i] >= '0' && repr[i] <= '9';
  return is_int ? repr : json_string(repr);
}

std::string consumer_text(const LayerConsumer& c) {
  std::string out = fmt::format("    {}: {}", consumer_name(c.consumer), c.verdict);
  if (c.verdict == "rejects") out += fmt::format(" by {} ({}: {})", c.rule, c.error, c.message);
  else if (c.verdict == "mis-loads") out += fmt::format(" by {}", c.rule);
  else if (c.verdict == "not reached")
    out += fmt::format(": no finding at this layer; the checkpoint is rejected first ({}: {})", c.error, c.message);
  if (!c.config.empty()) out += fmt::format(" ({})", c.config);
  for (const std::string& a : c.assumes) out += "; " + a;
  for (const std::string& u : c.unchecked) out += "; not checked: " + u;
  return out + "\n";
}

// How many layers show the same "not reached" line before the rest are counted.
constexpr std::size_t kNotReachedShown = 2;

std::string nullable(const std::string& s) { return s.empty() ? std::string("null") : json_string(s); }

std::string verdict_text(const CheckpointVerdict& v) {
  std::string out = fmt::format("  {}: {}", consumer_name(v.consumer), v.loads ? "loads" : "rejects");
  if (!v.loads && !v.rule.empty()) out += fmt::format(" by {} at {}", v.rule, v.where);
  if (!v.loads) out += fmt::format(" ({}: {})", v.error, v.message);
  if (!v.config.empty()) out += fmt::format(" ({})", v.config);
  if (!v.mis_loads.empty()) {
    std::string rules;
    for (const std::string& r : v.mis_loads) rules += (rules.empty() ? "" : ", ") + r;
    out += ", mis-loads (" + rules + ")";
  }
  for (const std::string& a : v.assumes) out += "; " + a;
  for (const std::string& u : v.unchecked) out += "; not checked: " + u;
  return out + "\n";
}

std::string logical_shape_json(const QuantLayerSummary& l) {
  return l.logical_shape ? fmt::format("[{},{}]", l.logical_shape->first, l.logical_shape->second) : "null";
}

// One aligned line per quantized layer: name, format, logical shape, N * K
// and stored bytes, under the checkpoint's totals counted both ways.
std::string layer_sizes_text(const InspectSummary& s) {
  struct Row {
    std::string name, format, shape, parameters, bytes, why;
  };
  std::vector<Row> rows;
  std::size_t w[5] = {0, 0, 0, 0, 0};
  for (const QuantLayerSummary& l : s.layers) {
    Row r{quote_name(l.prefix), l.format, l.logical_shape ? logical_shape_json(l) : "unknown",
          l.logical_shape ? total_text(l.logical_parameters) : "-",
          l.packing.empty() ? "-" : total_text(l.stored_bytes),  // a format no consumer knows lists no tensors
          l.logical_shape_error.empty() ? "" : " (" + l.logical_shape_error + ")"};
    w[0] = std::max(w[0], r.name.size());
    w[1] = std::max(w[1], r.format.size());
    w[2] = std::max(w[2], r.shape.size());
    w[3] = std::max(w[3], r.parameters.size());
    w[4] = std::max(w[4], r.bytes.size());
    rows.push_back(std::move(r));
  }
  std::string out = fmt::format("logical sizes: {} parameters ({} as stored), quantized layers {} of {} bytes\n",
                                total_text(s.logical_parameters), total_text(s.parameters),
                                total_text(s.quantized_bytes), total_text(s.bytes));
  for (const Row& r : rows)
    out += fmt::format("  {:<{}}  {:<{}}  {:<{}}  {:>{}} parameters  {:>{}} bytes{}\n", r.name, w[0], r.format, w[1],
                       r.shape, w[2], r.parameters, w[3], r.bytes, w[4], r.why);
  return out;
}

}  // namespace

std::string render_summary_text(const InspectSummary& s, bool verbose) {
  std::string out = fmt::format("summary: {}, {} parameters, {} bytes\n", plural(s.tensors, "tensor"),
                                total_text(s.parameters), total_text(s.bytes));
  for (const DtypeTotal& d : s.dtypes)
    out += fmt::format("  {}: {}, {} parameters, {} bytes\n", dtype_name(d.dtype), plural(d.tensors, "tensor"),
                       total_text(d.parameters), total_text(d.bytes));
  out += fmt::format("layers by prefix: {}\n", s.groups.size());
  for (const TensorGroup& g : s.groups) {
    std::string suffixes;
    for (const std::string& x : g.suffixes) suffixes += (suffixes.empty() ? "" : ", ") + x;
    out += fmt::format("  {}: {} ({}), {} parameters, {} bytes\n", g.prefix.empty() ? "(no prefix)" : quote_name(g.prefix),
                       plural(g.suffixes.size(), "tensor"), suffixes, total_text(g.parameters), total_text(g.bytes));
  }
  if (!s.check_error.empty()) {
    out += "quantized layers: not read (" + s.check_error + ")\n";
  } else if (!s.layers.empty()) {
    out += layer_sizes_text(s);
    out += fmt::format("quantized layers: {} (verdicts from the header rules only)\n", s.layers.size());
    // A checkpoint rejected before its layers are read says so for every
    // layer in the same words: after the first few, one line with the count.
    struct Folded {
      std::string line;  // the consumer's line, the same on every layer it is on
      Consumer consumer;
      std::size_t seen = 0;
    };
    std::vector<Folded> folded;
    for (const QuantLayerSummary& l : s.layers) {
      out += fmt::format("  {}: {}, marker {}", quote_name(l.prefix), l.format, l.marker);
      for (const auto& [key, value] : l.group_sizes) out += fmt::format(", {} {}", key, value);
      out += "\n";
      for (const LayerConsumer& c : l.consumers) {
        const std::string line = consumer_text(c);
        if (verbose || c.verdict != "not reached") {
          out += line;
          continue;
        }
        auto f = std::find_if(folded.begin(), folded.end(), [&](const Folded& x) { return x.line == line; });
        if (f == folded.end()) f = folded.insert(folded.end(), Folded{line, c.consumer, 0});
        if (++f->seen <= kNotReachedShown) out += line;
      }
    }
    // One line per cause and count: "sglang, comfyui, kitchen are not reached".
    for (std::size_t i = 0; i < folded.size(); ++i) {
      if (folded[i].seen <= kNotReachedShown || folded[i].line.empty()) continue;
      const std::string cause = folded[i].line.substr(folded[i].line.find(" (") + 1);  // "(E: M)\n"
      std::vector<std::string> who{std::string(consumer_name(folded[i].consumer))};
      for (std::size_t j = i + 1; j < folded.size(); ++j)
        if (folded[j].seen == folded[i].seen && folded[j].line.substr(folded[j].line.find(" (") + 1) == cause) {
          who.emplace_back(consumer_name(folded[j].consumer));
          folded[j].line.clear();
        }
      std::string names;
      for (std::size_t k = 0; k < who.size(); ++k)
        names += (k == 0 ? "" : k + 1 == who.size() ? " and " : ", ") + who[k];
      const std::size_t more = folded[i].seen - kNotReachedShown;
      out += fmt::format("  and {} more layer{} where {} {} not reached {} (--verbose lists each)\n", more,
                         more == 1 ? "" : "s", names, who.size() == 1 ? "is" : "are",
                         cause.substr(0, cause.size() - 1));
    }
  }
  if (!s.verdicts.empty()) {
    out += "verdicts (header rules only; `safespec check --data` adds the value rules):\n";
    for (const CheckpointVerdict& v : s.verdicts) out += verdict_text(v);
  }
  if (s.metadata_keys.empty()) {
    out += "metadata keys: none\n";
  } else {
    std::string keys;
    for (const std::string& k : s.metadata_keys) keys += (keys.empty() ? "" : ", ") + quote_name(k);
    out += fmt::format("metadata keys: {}\n", keys);
  }
  return out;
}

std::string render_summary_json(const InspectSummary& s) {
  std::string out = fmt::format(
      "{{\"tensors\":{},\"parameters\":{},\"bytes\":{},\"logical_parameters\":{},\"quantized_bytes\":{},\"dtypes\":[",
      s.tensors, total_json(s.parameters), total_json(s.bytes), total_json(s.logical_parameters),
      total_json(s.quantized_bytes));
  for (std::size_t i = 0; i < s.dtypes.size(); ++i)
    out += fmt::format("{}{{\"dtype\":\"{}\",\"tensors\":{},\"parameters\":{},\"bytes\":{}}}", i ? "," : "",
                       dtype_name(s.dtypes[i].dtype), s.dtypes[i].tensors, total_json(s.dtypes[i].parameters),
                       total_json(s.dtypes[i].bytes));
  out += "],\"groups\":[";
  for (std::size_t i = 0; i < s.groups.size(); ++i)
    out += fmt::format("{}{{\"prefix\":{},\"suffixes\":{},\"parameters\":{},\"bytes\":{}}}", i ? "," : "",
                       json_string(s.groups[i].prefix), strings_json(s.groups[i].suffixes),
                       total_json(s.groups[i].parameters), total_json(s.groups[i].bytes));
  out += "],\"quantized_layers\":";
  if (!s.check_error.empty()) {
    out += "null,\"quantized_layers_error\":" + json_string(s.check_error);
  } else {
    out += "[";
    for (std::size_t i = 0; i < s.layers.size(); ++i) {
      const QuantLayerSummary& l = s.layers[i];
      out += fmt::format("{}{{\"prefix\":{},\"format\":{},\"site\":\"{}\",\"marker\":{},\"file\":{},\"packing\":{},"
                         "\"logical_shape\":{},\"logical_shape_error\":{},\"logical_parameters\":{},"
                         "\"stored_bytes\":{},\"group_sizes\":{{",
                         i ? "," : "", json_string(l.prefix), json_string(l.format), l.site, json_string(l.marker),
                         json_string(l.file), nullable(l.packing), logical_shape_json(l),
                         nullable(l.logical_shape_error), total_json(l.logical_parameters), total_json(l.stored_bytes));
      for (std::size_t k = 0; k < l.group_sizes.size(); ++k)
        out += fmt::format("{}{}:{}", k ? "," : "", json_string(l.group_sizes[k].first),
                           marker_value_json(l.group_sizes[k].second));
      out += "},\"consumers\":{";
      for (std::size_t k = 0; k < l.consumers.size(); ++k) {
        const LayerConsumer& c = l.consumers[k];
        out += fmt::format("{}{}:{{\"verdict\":{},\"rule\":{},\"error\":{},\"message\":{},\"config\":{},\"assumes\":{},"
                           "\"unchecked\":{}}}",
                           k ? "," : "", json_string(consumer_name(c.consumer)), json_string(c.verdict),
                           nullable(c.rule), nullable(c.error), nullable(c.error.empty() ? "" : c.message),
                           nullable(c.config), strings_json(c.assumes), strings_json(c.unchecked));
      }
      out += "}}";
    }
    out += "]";
  }
  out += ",\"verdicts\":{";
  for (std::size_t i = 0; i < s.verdicts.size(); ++i) {
    const CheckpointVerdict& v = s.verdicts[i];
    out += fmt::format("{}{}:{{\"loads\":{},\"error\":{},\"message\":{},\"config\":{},\"rule\":{},\"where\":{},"
                       "\"mis_loads\":{},\"assumes\":{},\"unchecked\":{}}}",
                       i ? "," : "", json_string(consumer_name(v.consumer)), v.loads ? "true" : "false",
                       v.loads ? "null" : json_string(v.error), v.loads ? "null" : json_string(v.message),
                       nullable(v.config), nullable(v.rule), nullable(v.where), strings_json(v.mis_loads),
                       strings_json(v.assumes), strings_json(v.unchecked));
  }
  out += "},\"verdicts_from\":\"header rules\",\"metadata_keys\":" + strings_json(s.metadata_keys);
  return out + "}";
}

}  // namespace safespec
