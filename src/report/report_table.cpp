// `safespec table`: one row per file, one column per consumer, so a single
// run answers "where will this checkpoint load?", and below it the
// exact message behind every rejection.
#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "spec/quant/layer_kinds.hpp"
#include "spec/quant/render.hpp"
#include "spec/quote.hpp"
#include "src/report/json_escape.hpp"
#include "src/report/report.hpp"

namespace safespec {

namespace {

std::string cell(const Outcome& o, Consumer c) {
  if (!o.unknown.empty()) return "unknown";
  if (!o.loads) return "rejects (" + (o.error.empty() ? std::string("no message recorded") : o.error) + ")";
  std::string out = "loads";
  if (c == Consumer::Sglang && !o.config.empty() && o.config != "None") out += " (" + o.config + ")";
  if (!o.mis_loads.empty()) out += ", mis-loads";
  if (!o.unchecked.empty()) out += ", not checked";
  if (!o.assumes.empty())
    out += o.assumes[0].about_kind()
               ? ", if " + std::string(quant::layer_kind_name(o.assumes[0].kind)) + (o.assumes.size() > 1 ? "s" : "")
               : ", if " + o.assumes[0].machine.substr(0, o.assumes[0].machine.find(" ("));
  return out;
}

}  // namespace

namespace {

// A column of the table: a consumer in the version the report chose, or, with
// --versions, in one version.
struct Column {
  Consumer consumer;
  std::optional<std::size_t> version;
};

const Outcome& outcome_at(const FileReport& r, const Column& c) {
  if (c.version && *c.version < r.versions[c.consumer].size()) return r.versions[c.consumer][*c.version];
  return r.consumers[c.consumer];
}

std::string column_name(const Column& c) {
  const ConsumerInfo& info = consumer_info(c.consumer);
  return c.version ? fmt::format("{} ({})", info.name, info.versions[*c.version].id) : std::string(info.name);
}

// The versions of c grouped by agreement on every judged file: versions in
// one group give the same cell and the same message everywhere.
std::vector<std::vector<std::size_t>> agreeing(const std::vector<FileReport>& reports, Consumer c) {
  const std::size_t n = consumer_info(c).versions.size();
  const auto same = [&](std::size_t a, std::size_t b) {
    for (const FileReport& r : reports) {
      if (!r.judged || r.versions[c].size() != n) continue;
      const Outcome& x = r.versions[c][a];
      const Outcome& y = r.versions[c][b];
      if (cell(x, c) != cell(y, c) || x.message != y.message || x.unknown != y.unknown) return false;
    }
    return true;
  };
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t v = 0; v < n; ++v) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return same(g[0], v); });
    if (it == groups.end()) groups.push_back({v});
    else it->push_back(v);
  }
  return groups;
}

}  // namespace

std::string render_table(const std::vector<FileReport>& reports, bool versions) {
  std::vector<Column> columns;
  std::string agree;  // the line under the table
  for (Consumer c : kConsumers) {
    if (!versions || !has_versions(c)) {
      columns.push_back({c, std::nullopt});
      continue;
    }
    const auto groups = agreeing(reports, c);
    const auto ids = consumer_info(c).versions;
    for (const auto& g : groups) {
      if (groups.size() > 1) columns.push_back({c, g[0]});
      if (g.size() < 2) continue;
      std::string names;
      for (std::size_t i = 0; i < g.size(); ++i)
        names += fmt::format("{}{}", i == 0 ? "" : i + 1 == g.size() ? " and " : ", ", ids[g[i]].id);
      agree += fmt::format("{}{} {} agree on every file", agree.empty() ? "" : "; ", consumer_name(c), names);
    }
    if (groups.size() == 1) columns.push_back({c, std::nullopt});
  }
  std::vector<std::vector<std::string>> rows;
  rows.emplace_back(1, "file");
  for (const Column& c : columns) rows.back().push_back(column_name(c));
  std::string notes;
  for (const FileReport& r : reports) {
    if (r.io_error) {
      rows.emplace_back(columns.size() + 1, "");
      rows.back()[0] = r.path;
      rows.back()[1] = "cannot read";
      continue;
    }
    if (!r.judged) continue;  // an index no shard of which could be read
    // A file of a checkpoint of several files: the checkpoint's report has
    // the row, its verdict naming the file a consumer refuses.
    if (!r.checkpoint.empty()) {
      for (const Unchecked& u : r.unchecked) notes += fmt::format("{}: not checked: {} ({})\n", r.path, u.what, u.why);
      continue;
    }
    std::vector<std::string> row{r.path};
    // Consumers that raise the same exception share one note.
    std::vector<std::pair<std::string, std::string>> raised;  // (error: message, consumers)
    for (const Column& c : columns) {
      const Outcome& o = outcome_at(r, c);
      row.push_back(cell(o, c.consumer));
      if (o.loads || !o.unknown.empty()) continue;
      const std::string what = (o.file.empty() ? "" : "file " + quote_name(o.file) + ": ") + o.error + ": " + o.message;
      auto it = std::find_if(raised.begin(), raised.end(), [&](const auto& p) { return p.first == what; });
      if (it == raised.end()) raised.emplace_back(what, column_name(c));
      else it->second += ", " + column_name(c);
    }
    for (const auto& [what, who] : raised) notes += fmt::format("{}: {}: {}\n", r.path, who, what);
    for (const Column& c : columns)
      if (const Outcome& o = outcome_at(r, c); !o.unknown.empty())
        notes += fmt::format("{}: {}: unknown: {}\n", r.path, column_name(c), o.unknown);
    for (const Unchecked& u : r.unchecked) notes += fmt::format("{}: not checked: {} ({})\n", r.path, u.what, u.why);
    // A verdict that rests on what the model makes of a layer says so.
    for (Consumer c : kConsumers)
      for (const quant::Assumption& a : r.consumers[c].assumes)
        notes += fmt::format("{}: {}: loads if {}{}\n", r.path, consumer_name(c), quant::assumption_text(a),
                             a.about_kind() ? " (settle it with --layer)" : "");
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> width(columns.size() + 1, 0);
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) line += fmt::format("{:<{}}  ", row[i], width[i]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (!agree.empty()) out += agree + "\n";
  if (!notes.empty()) out += "\n" + notes;
  return out;
}

std::string render_table_json(const std::vector<FileReport>& reports) {
  std::string out = fmt::format("{{\"schema\":{},\"files\":[", kJsonSchema);
  bool first = true;
  for (const FileReport& r : reports) {
    // An index no shard of which could be read, or a file of a checkpoint whose report has the row.
    if (!r.io_error && (!r.judged || !r.checkpoint.empty())) continue;
    out += fmt::format("{}{{\"path\":{}", first ? "" : ",", json_string(r.path));
    first = false;
    out += r.io_error ? ",\"error\":" + json_string(*r.io_error)
                      : ",\"consumers\":" + consumers_json(r) + ",\"consumer_versions\":" + chosen_json(r) +
                            ",\"versions\":" + versions_json(r);
    out += fmt::format(",\"complete\":{},\"unchecked\":{}", r.complete() ? "true" : "false", unchecked_json(r.unchecked));
    out += '}';
  }
  return out + "]}\n";
}

}  // namespace safespec
