#include "src/inspect_command.hpp"

#include <set>

#include <fmt/format.h>

#include "spec/format_rules.hpp"
#include "src/byte_file.hpp"
#include "src/check.hpp"
#include "src/json_escape.hpp"
#include "src/load.hpp"
#include "src/report.hpp"
#include "src/shard_index.hpp"

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
  FastHeaderParser parser;
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
  auto file = ByteFile::open(path);
  if (!file) return failure(path, file.error().message, nullptr, json);
  std::string text(file.value().size(), '\0');
  if (auto r = file.value().read_at(0, std::span(reinterpret_cast<std::uint8_t*>(text.data()), text.size())); !r)
    return failure(path, r.error().message, nullptr, json);
  auto index = parse_shard_index(text);
  if (!index) return failure(path, "", &index.error(), json);
  std::set<std::string> names;
  for (const auto& entry : index.value().weight_map) names.insert(entry.second);
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::vector<Listed> out;
  for (const std::string& name : names) {
    auto m = load_one(dir + name, json);
    if (!m) return std::move(m).error();
    out.push_back(Listed{dir + name, std::move(m).value()});
  }
  return out;
}

}  // namespace

CommandOutcome run_inspect(const std::string& path, bool json) {
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
  CommandOutcome o{kExitOk, "", ""};
  if (!is_index_path(path)) {
    o.out = json ? render_inspect_json(path, files[0].model) : render_inspect_text(files[0].model);
    return o;
  }
  if (json) {
    o.out = fmt::format("{{\"schema\":{},\"path\":{},\"shards\":[", kJsonSchema, json_string(path));
    for (std::size_t i = 0; i < files.size(); ++i) {
      o.out += (i ? "," : "") + inspect_object_json(files[i].path, files[i].model);
    }
    o.out += "]}\n";
    return o;
  }
  o.out = fmt::format("shard index: {} shard{}\n", files.size(), files.size() == 1 ? "" : "s");
  for (const Listed& f : files) o.out += "shard " + f.path + ": " + render_inspect_text(f.model);
  return o;
}

}  // namespace safespec
