#include "src/commands/diff.hpp"

#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "spec/dtype.hpp"
#include "spec/format_rules.hpp"
#include "spec/quote.hpp"
#include "src/commands/check.hpp"
#include "src/commands/inspect_summary.hpp"
#include "src/report/json_escape.hpp"

namespace safespec {

namespace {

// One checkpoint as `safespec check PATH` reads it: its reports (which own
// the parsed headers) and the summary inspect prints.
struct Side {
  std::string path;
  std::vector<FileReport> reports;
  std::vector<SummaryFile> files;
  InspectSummary summary;
};

Result<std::unique_ptr<Side>, std::string> load_side(const std::string& path) {
  auto s = std::make_unique<Side>();
  s->path = path;
  HeaderParser parser;
  s->reports = check_paths({path}, CheckOptions{}, parser);
  for (const FileReport& r : s->reports) {
    if (r.io_error) return r.path + ": " + *r.io_error;
    if (r.model) {
      s->files.push_back(SummaryFile{r.path, &*r.model});
      continue;
    }
    if (is_index_path(r.path)) continue;  // the index's own report: its shards follow
    // A .safetensors file whose header does not parse: its first error says why.
    const std::string why = r.findings.empty() ? std::string("its header does not parse")
                                               : std::string(rule_name(r.findings[0].rule)) + " at " +
                                                     r.findings[0].where.text() + ": " + r.findings[0].message;
    return r.path + ": " + why;
  }
  s->summary = summarize(s->files, s->reports);
  return s;
}

// One difference, as a text line and a JSON object.
struct Change {
  std::string text;
  std::string json;
};

struct Diff {
  std::vector<Change> tensors, layers, metadata, consumers;
  bool equal() const { return tensors.empty() && layers.empty() && metadata.empty() && consumers.empty(); }
};

// Added, removed and changed keys of two maps, in key order.
template <class V, class F>
void compare_maps(const std::map<std::string, V>& a, const std::map<std::string, V>& b, F&& report) {
  for (const auto& [k, va] : a) {
    auto it = b.find(k);
    if (it == b.end()) report(k, &va, nullptr);
    else if (!(va == it->second)) report(k, &va, &it->second);
  }
  for (const auto& [k, vb] : b)
    if (!a.count(k)) report(k, nullptr, &vb);
}

struct TensorKey {
  Dtype dtype;
  Shape shape;
  bool operator==(const TensorKey&) const = default;
  std::string text() const { return std::string(dtype_name(dtype)) + " " + shape_json(shape); }
  std::string json() const { return fmt::format("{{\"dtype\":\"{}\",\"shape\":{}}}", dtype_name(dtype), shape_json(shape)); }
};

void diff_tensors(const Side& a, const Side& b, Diff& d) {
  const auto table = [](const Side& s) {
    std::map<std::string, TensorKey> m;
    for (const SummaryFile& f : s.files)
      for (const TensorEntry& t : f.model->header.tensors) m.emplace(t.name, TensorKey{t.dtype, t.shape});
    return m;
  };
  compare_maps(table(a), table(b), [&](const std::string& name, const TensorKey* x, const TensorKey* y) {
    const std::string what = x && y ? "changed" : x ? "removed" : "added";
    const std::string text = x && y ? x->text() + " -> " + y->text() : (x ? x : y)->text();
    d.tensors.push_back(Change{fmt::format("tensor {}: {} {}", what, quote_name(name), text),
                               fmt::format("{{\"change\":\"{}\",\"name\":{},\"a\":{},\"b\":{}}}", what, json_string(name),
                                           x ? x->json() : "null", y ? y->json() : "null")});
  });
}

struct LayerKey {
  std::string format, site;
  std::vector<std::pair<std::string, std::string>> group_sizes;
  std::string marker;  // the whole marker (convrot, full_precision_matrix_mult, ...), as Python's repr
  bool operator==(const LayerKey&) const = default;
  std::string text() const {
    std::string t = format + " (" + site + " marker";
    for (const auto& [k, v] : group_sizes) t += ", " + k + " " + v;
    return t + ")";
  }
  std::string json() const {
    std::string g;
    for (const auto& [k, v] : group_sizes) g += (g.empty() ? "" : ",") + json_string(k) + ":" + json_string(v);
    return fmt::format("{{\"format\":{},\"site\":\"{}\",\"group_sizes\":{{{}}},\"marker\":{}}}", json_string(format), site,
                       g, json_string(marker));
  }
};

void diff_layers(const Side& a, const Side& b, Diff& d) {
  const auto table = [](const Side& s) {
    std::map<std::string, LayerKey> m;
    for (const QuantLayerSummary& l : s.summary.layers)
      m.emplace(l.prefix, LayerKey{l.format, l.site, l.group_sizes, l.marker_value});
    return m;
  };
  compare_maps(table(a), table(b), [&](const std::string& prefix, const LayerKey* x, const LayerKey* y) {
    const std::string what = x && y ? "changed" : x ? "removed" : "added";
    std::string text = x && y ? x->text() + " -> " + y->text() : (x ? x : y)->text();
    if (x && y && x->marker != y->marker) text += "; marker " + x->marker + " -> " + y->marker;
    d.layers.push_back(Change{fmt::format("quantized layer {}: {} {}", what, quote_name(prefix), text),
                              fmt::format("{{\"change\":\"{}\",\"prefix\":{},\"a\":{},\"b\":{}}}", what,
                                          json_string(prefix), x ? x->json() : "null", y ? y->json() : "null")});
  });
}

// A metadata value for a text line: quoted, or its size when it is long
// (the JSON carries it whole).
std::string value_text(const std::string& v) {
  constexpr std::size_t kShown = 120;  // a line stays readable; _quantization_metadata is often kilobytes
  return v.size() <= kShown ? quote_name(v) : fmt::format("({} bytes)", v.size());
}

void diff_metadata(const Side& a, const Side& b, Diff& d) {
  const auto table = [](const Side& s) {
    std::map<std::string, std::string> m;
    for (const SummaryFile& f : s.files)
      for (const auto& [k, v] : f.model->header.metadata) m.emplace(k, v);
    return m;
  };
  compare_maps(table(a), table(b), [&](const std::string& key, const std::string* x, const std::string* y) {
    const std::string what = x && y ? "changed" : x ? "removed" : "added";
    const std::string text = x && y ? value_text(*x) + " -> " + value_text(*y) : value_text(x ? *x : *y);
    d.metadata.push_back(Change{fmt::format("metadata {}: {} = {}", what, quote_name(key), text),
                                fmt::format("{{\"change\":\"{}\",\"key\":{},\"a\":{},\"b\":{}}}", what, json_string(key),
                                            x ? json_string(*x) : "null", y ? json_string(*y) : "null")});
  });
}

std::string verdict_brief(const CheckpointVerdict& v) {
  std::string t = v.loads ? "loads" : "rejects (" + v.error + ": " + v.message + ")";
  if (!v.config.empty()) t += " (" + v.config + ")";
  if (!v.mis_loads.empty()) {
    std::string rules;
    for (const std::string& r : v.mis_loads) rules += (rules.empty() ? "" : ", ") + r;
    t += ", mis-loads (" + rules + ")";
  }
  return t;
}

std::string verdict_json(const CheckpointVerdict& v) {
  std::string m;
  for (const std::string& r : v.mis_loads) m += (m.empty() ? "" : ",") + json_string(r);
  return fmt::format("{{\"loads\":{},\"error\":{},\"message\":{},\"config\":{},\"mis_loads\":[{}]}}",
                     v.loads ? "true" : "false", v.loads ? "null" : json_string(v.error),
                     v.loads ? "null" : json_string(v.message), v.config.empty() ? "null" : json_string(v.config), m);
}

// What a verdict change is about: loads or not, the exception and its exact
// message, sglang's config and the mis-loads (not the rule that explains it).
bool same_verdict(const CheckpointVerdict& x, const CheckpointVerdict& y) {
  return x.loads == y.loads && x.error == y.error && x.message == y.message && x.config == y.config &&
         x.mis_loads == y.mis_loads;
}

void diff_consumers(const Side& a, const Side& b, Diff& d) {
  for (std::size_t i = 0; i < a.summary.verdicts.size() && i < b.summary.verdicts.size(); ++i) {
    const CheckpointVerdict& x = a.summary.verdicts[i];
    const CheckpointVerdict& y = b.summary.verdicts[i];
    const Consumer c = x.consumer;
    if (same_verdict(x, y)) continue;
    // The rule behind the side that rejects (B's when both do).
    const CheckpointVerdict& why = !y.loads ? y : x;
    const std::string because = why.loads || why.rule.empty() ? "" : fmt::format(", because {} at {}", why.rule, why.where);
    d.consumers.push_back(Change{
        fmt::format("verdict {}: {} -> {}{}", consumer_name(c), verdict_brief(x), verdict_brief(y), because),
        fmt::format("{{\"consumer\":\"{}\",\"a\":{},\"b\":{},\"because\":{}}}", consumer_name(c), verdict_json(x), verdict_json(y),
                    why.loads || why.rule.empty()
                        ? std::string("null")
                        : fmt::format("{{\"rule\":{},\"where\":{}}}", json_string(why.rule), json_string(why.where)))});
  }
}

std::string changes_json(const std::vector<Change>& changes) {
  std::string out = "[";
  for (std::size_t i = 0; i < changes.size(); ++i) out += (i ? "," : "") + changes[i].json;
  return out + "]";
}

}  // namespace

CommandOutcome run_diff(const DiffOptions& o) {
  auto a = load_side(o.a);
  auto b = a ? load_side(o.b) : Result<std::unique_ptr<Side>, std::string>(std::string());
  if (!a || !b) {
    const std::string error = !a ? a.error() : b.error();
    CommandOutcome out{kExitUsage, "", "safespec: diff: cannot compare: " + error + "\n"};
    if (o.json)
      out.out = fmt::format("{{\"schema\":{},\"a\":{},\"b\":{},\"error\":{}}}\n", kJsonSchema, json_string(o.a),
                            json_string(o.b), json_string(error));
    return out;
  }
  Diff d;
  diff_tensors(*a.value(), *b.value(), d);
  diff_layers(*a.value(), *b.value(), d);
  diff_metadata(*a.value(), *b.value(), d);
  diff_consumers(*a.value(), *b.value(), d);
  CommandOutcome out{d.equal() ? kExitOk : kExitFindings, "", ""};
  if (o.json) {
    out.out = fmt::format("{{\"schema\":{},\"a\":{},\"b\":{},\"equal\":{},\"tensors\":{},\"quantized_layers\":{},"
                          "\"metadata\":{},\"consumers\":{}}}\n",
                          kJsonSchema, json_string(o.a), json_string(o.b), d.equal() ? "true" : "false",
                          changes_json(d.tensors), changes_json(d.layers), changes_json(d.metadata),
                          changes_json(d.consumers));
    return out;
  }
  const std::size_t n = d.tensors.size() + d.layers.size() + d.metadata.size() + d.consumers.size();
  out.out = d.equal() ? fmt::format("{} and {}: equal headers (tensors, quantized layers, metadata, verdicts)\n", o.a, o.b)
                      : fmt::format("{} and {}: {} difference{}\n", o.a, o.b, n, n == 1 ? "" : "s");
  for (const auto* group : {&d.tensors, &d.layers, &d.metadata, &d.consumers})
    for (const Change& c : *group) out.out += "  " + c.text + "\n";
  return out;
}

}  // namespace safespec
