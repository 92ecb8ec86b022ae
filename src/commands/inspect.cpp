#include "src/commands/inspect.hpp"

#include <fmt/format.h>

#include "spec/format_rules.hpp"
#include "spec/limits.hpp"
#include "src/io/byte_file.hpp"
#include "src/commands/check.hpp"
#include "src/report/json_escape.hpp"
#include "src/parse/load.hpp"
#include "src/report/report.hpp"
#include "src/parse/shard_index.hpp"
#include "src/commands/inspect_summary.hpp"
#include "src/parse/tensor_values.hpp"
#include "spec/quote.hpp"
#include "spec/dtype.hpp"

namespace safespec {

namespace {

std::string hint_suffix(const std::string& path) {
  const std::string hint = hint_for_path(path);
  return hint.empty() ? hint : " (" + hint + ")";
}

struct Listed {
  std::string path;
  Model model;
};

CommandOutcome failure(const std::string& path, const std::string& message, const Error* parse, bool json) {
  CommandOutcome o{parse ? kExitFindings : kExitUsage, "", ""};
  std::string text = message;
  if (parse) text = std::string(rule_name(parse->rule)) + " at " + parse->where.text() + ": " + parse->message;
  if (json) o.out = render_inspect_error_json(path, text, parse);
  o.err = "safespec: " + path + ": " + text + "\n";
  return o;
}

// One file's model, or the outcome that ends the command.
Result<Model, CommandOutcome> load_one(const std::string& path, bool json) {
  HeaderParser parser;
  auto loaded = load_model(path, parser);
  if (!loaded) return failure(path, loaded.error().message + hint_suffix(path), nullptr, json);
  auto& parsed = loaded.value();
  if (!parsed) {
    Error e = parsed.error();
    e.message += hint_suffix(path);
    return failure(path, "", &e, json);
  }
  return std::move(parsed).value();
}

// A shard index's shards, in sorted order, beside the index.
Result<std::vector<Listed>, CommandOutcome> load_index(const std::string& path, bool json) {
  auto read = read_index_file(path);
  if (!read) {
    const IndexFailure& why = read.error();
    if (why.io) return failure(path, why.io->message, nullptr, json);
    return failure(path, "", &*why.finding, json);
  }
  std::vector<Listed> out;
  for (const std::string& shard : read.value().shard_paths) {
    auto m = load_one(shard, json);
    if (!m) return std::move(m).error();
    out.push_back(Listed{shard, std::move(m).value()});
  }
  return out;
}

// "'a', 'b', … and 7 more": the names a usage error offers, bounded.
std::string some_names(const std::vector<Listed>& files) {
  std::string out;
  std::size_t listed = 0, total = 0;
  for (const Listed& f : files)
    for (const TensorEntry& t : f.model.header.tensors) {
      ++total;
      if (listed == kInspectNamesListed) continue;
      out += (listed++ ? ", " : "") + quote_name(t.name);
    }
  if (total == 0) return "none";
  if (total > listed) out += fmt::format(", … and {} more", total - listed);
  return out;
}

struct ValuesOut {
  std::string text;
  std::string json;  // the "values" array
  bool unreadable = false;
};

// Each --values NAME: its first elements, or why they were not read. A name
// no file has is a usage error (nullopt, with `error` set).
std::optional<ValuesOut> values_of(const InspectOptions& o, const std::vector<Listed>& files, std::string& error) {
  ValuesOut v;
  v.json = "[";
  for (std::size_t i = 0; i < o.values.size(); ++i) {
    const std::string& name = o.values[i];
    const Listed* holder = nullptr;
    const TensorEntry* entry = nullptr;
    for (const Listed& f : files)
      for (const TensorEntry& t : f.model.header.tensors)
        if (!entry && t.name == name) holder = &f, entry = &t;
    if (!entry) {
      error = fmt::format("--values {}: no such tensor in {} (tensors: {})", quote_name(name), o.path, some_names(files));
      return std::nullopt;
    }
    const std::string head = fmt::format("values {} {} {}", quote_name(name), dtype_name(entry->dtype), shape_json(entry->shape));
    v.json += fmt::format("{}{{\"name\":{},\"dtype\":\"{}\",\"shape\":{}", i ? "," : "", json_string(name),
                          dtype_name(entry->dtype), shape_json(entry->shape));
    auto file = ByteFile::open(holder->path);
    auto read = file ? read_values(file.value(), holder->model, *entry, o.count)
                     : Result<TensorValues, std::string>(file.error().message);
    if (!read) {
      v.unreadable = true;
      v.text += fmt::format("{}: not read: {}\n", head, read.error());
      v.json += ",\"error\":" + json_string(read.error()) + "}";
      continue;
    }
    const TensorValues& t = read.value();
    std::string list, json_list;
    for (std::size_t k = 0; k < t.text.size(); ++k) {
      list += (k ? ", " : "") + t.text[k];
      json_list += (k ? "," : "") + t.json[k];
    }
    const std::string of = t.elements ? fmt::format("{}", *t.elements) : std::string("2^64 or more");
    if (!list.empty()) list = ": " + list;
    v.text += t.truncated ? fmt::format("{}: first {} of {} elements (truncated; --count K shows up to {}){}\n", head,
                                        t.text.size(), of, kInspectValuesMax, list)
                          : fmt::format("{}: {} of {} elements{}\n", head, t.text.size(), of, list);
    v.json += fmt::format(",\"elements\":{},\"count\":{},\"truncated\":{},\"values\":[{}]}}",
                          t.elements ? fmt::format("{}", *t.elements) : std::string("null"), t.text.size(),
                          t.truncated ? "true" : "false", json_list);
  }
  v.json += "]";
  return v;
}

}  // namespace

CommandOutcome run_inspect(const InspectOptions& options) {
  const std::string& path = options.path;
  const bool json = options.json;
  std::vector<Listed> files;
  if (is_index_path(path)) {
    auto shards = load_index(path, json);
    if (!shards) return std::move(shards).error();
    files = std::move(shards).value();
  } else {
    auto m = load_one(path, json);
    if (!m) return std::move(m).error();
    files.push_back(Listed{path, std::move(m).value()});
  }
  std::string error;
  const auto values = values_of(options, files, error);
  if (!values) {
    CommandOutcome o{kExitUsage, "", "safespec: inspect " + error + "\n"};
    if (json) o.out = render_inspect_error_json(path, error, nullptr);
    return o;
  }
  std::vector<SummaryFile> summary_files;
  for (const Listed& f : files) summary_files.push_back(SummaryFile{f.path, &f.model});
  // The consumers' verdicts come from the same check `safespec check PATH`
  // runs (default options: strict, header rules, layer kinds assumed).
  HeaderParser parser;
  const InspectSummary summary = summarize(summary_files, check_paths({path}, CheckOptions{}, parser));
  // The summary and the values come after what inspect always printed, so a
  // reader of the earlier lines and keys keeps working.
  std::string extra = ",\"summary\":" + render_summary_json(summary);
  if (!options.values.empty()) extra += ",\"values\":" + values->json;
  const std::string tail = render_summary_text(summary, options.verbose) + values->text;
  CommandOutcome o{values->unreadable ? kExitUsage : kExitOk, "", ""};
  if (!is_index_path(path)) {
    o.out = json ? render_inspect_json(path, files[0].model, extra) : render_inspect_text(files[0].model) + tail;
    return o;
  }
  if (json) {
    o.out = fmt::format("{{\"schema\":{},\"path\":{},\"shards\":[", kJsonSchema, json_string(path));
    for (std::size_t i = 0; i < files.size(); ++i) {
      o.out += (i ? "," : "") + inspect_object_json(files[i].path, files[i].model);
    }
    o.out += "]" + extra + "}\n";
    return o;
  }
  o.out = fmt::format("shard index: {} shard{}\n", files.size(), files.size() == 1 ? "" : "s");
  for (const Listed& f : files) o.out += "shard " + f.path + ": " + render_inspect_text(f.model);
  o.out += tail;
  return o;
}

}  // namespace safespec
