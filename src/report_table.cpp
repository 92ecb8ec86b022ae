// `safespec table`: one row per file, one column per consumer, so a single
// run answers "where will this checkpoint load?", and below it the
// exact message behind every rejection.
#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

#include "spec/quant/layer_kinds.hpp"
#include "spec/quant/render.hpp"
#include "src/json_escape.hpp"
#include "src/report.hpp"

namespace safespec {

namespace {

std::string cell(const Outcome& o, Consumer c) {
  if (!o.loads) return "rejects (" + (o.error.empty() ? std::string("no message recorded") : o.error) + ")";
  std::string out = "loads";
  if (c == Consumer::Sglang && !o.config.empty() && o.config != "None") out += " (" + o.config + ")";
  if (!o.mis_loads.empty()) out += ", mis-loads";
  if (!o.unchecked.empty()) out += ", not checked";
  if (!o.assumes.empty()) out += ", if " + std::string(quant::layer_kind_name(o.assumes[0].kind)) + (o.assumes.size() > 1 ? "s" : "");
  return out;
}

}  // namespace

std::string render_table(const std::vector<FileReport>& reports) {
  std::vector<std::array<std::string, 5>> rows;
  rows.push_back({"file", "safetensors", "sglang", "comfyui", "kitchen"});
  std::string notes;
  for (const FileReport& r : reports) {
    if (r.io_error) {
      rows.push_back({r.path, "cannot read", "", "", ""});
      continue;
    }
    if (!r.judged) continue;  // a shard index: its shards have rows
    std::array<std::string, 5> row{r.path};
    // Consumers that raise the same exception share one note.
    std::vector<std::pair<std::string, std::string>> raised;  // (error: message, consumers)
    for (Consumer c : kConsumers) {
      const Outcome& o = r.consumers[c];
      row[1 + static_cast<std::size_t>(c)] = cell(o, c);
      if (o.loads) continue;
      const std::string what = o.error + ": " + o.message;
      auto it = std::find_if(raised.begin(), raised.end(), [&](const auto& p) { return p.first == what; });
      if (it == raised.end()) raised.emplace_back(what, std::string(consumer_name(c)));
      else it->second += ", " + std::string(consumer_name(c));
    }
    for (const auto& [what, who] : raised) notes += fmt::format("{}: {}: {}\n", r.path, who, what);
    for (const Unchecked& u : r.unchecked) notes += fmt::format("{}: not checked: {} ({})\n", r.path, u.what, u.why);
    // A verdict that rests on what the model makes of a layer says so.
    for (Consumer c : kConsumers)
      for (const quant::Assumption& a : r.consumers[c].assumes)
        notes += fmt::format("{}: {}: loads if {} is {} layer; otherwise {}: {} (settle it with --layer)\n", r.path,
                             consumer_name(c), quant::repr(a.layer),
                             a.kind == quant::LayerKind::Embedding ? "an embedding" : "a Linear", a.otherwise.error,
                             a.otherwise.message);
    rows.push_back(std::move(row));
  }
  std::array<std::size_t, 5> width{};
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) line += fmt::format("{:<{}}  ", row[i], width[i]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (!notes.empty()) out += "\n" + notes;
  return out;
}

std::string render_table_json(const std::vector<FileReport>& reports) {
  std::string out = fmt::format("{{\"schema\":{},\"files\":[", kJsonSchema);
  bool first = true;
  for (const FileReport& r : reports) {
    if (!r.io_error && !r.judged) continue;  // a shard index: its shards have rows
    out += fmt::format("{}{{\"path\":{}", first ? "" : ",", json_string(r.path));
    first = false;
    out += r.io_error ? ",\"error\":" + json_string(*r.io_error) : ",\"consumers\":" + consumers_json(r);
    out += fmt::format(",\"complete\":{},\"unchecked\":{}", r.complete() ? "true" : "false", unchecked_json(r.unchecked));
    out += '}';
  }
  return out + "]}\n";
}

}  // namespace safespec
