#include "conformance/manifest.hpp"

#include <array>
#include <optional>
#include <fstream>
#include <sstream>
#include <variant>

#include "spec/limits.hpp"
#include "spec/profile_choice.hpp"
#include "spec/python/python_json.hpp"
#include "spec/quant/marker_values.hpp"
#include "src/report/json_escape.hpp"

namespace safespec::conformance {

std::string_view expect_word(Expect e) { return e == Expect::Accept ? "accept" : "reject"; }

namespace {

Result<Case, std::string> line_error(std::string what) { return std::string("manifest line: ") + std::move(what); }

// object[key] when it is a string.
const std::string* string_at(const py::Value& object, std::string_view key) {
  const py::Value* v = quant::get(object, key);
  return v ? std::get_if<std::string>(&v->data) : nullptr;
}

// One row per prefix; name_prefix picks the row, nothing else spells them.
constexpr NamePrefix kEveryone{"accept_", "everyone"};
constexpr NamePrefix kReference{"reject_", "reference"};
// A shard index no loader can use: the reference reader never reads an
// index, so the verdict is the index rules' (which the safetensors profile
// keeps), not the reference's.
constexpr NamePrefix kIndex{"reject_", "index"};
constexpr NamePrefix kLoaders{"loader-reject_", "loaders"};
constexpr NamePrefix kStrict{"strict-reject_", "strict"};
constexpr NamePrefix kImpldef{"impldef_", "impldef"};
constexpr std::array<NamePrefix, 5> kPrefixes{kEveryone, kReference, kLoaders, kStrict, kImpldef};

}  // namespace

NamePrefix name_prefix(const Case& c) {
  if (c.file.starts_with(kImpldef.prefix)) return kImpldef;
  if (c.expected(Profile::Safetensors) == Expect::Reject) return c.file.ends_with(".index.json") ? kIndex : kReference;
  for (Profile p : {Profile::Sglang, Profile::Comfyui, Profile::Kitchen})
    if (c.expected(p) == Expect::Reject) return kLoaders;
  return c.expected(Profile::Strict) == Expect::Reject ? kStrict : kEveryone;
}

std::string_view name_stem(std::string_view file) {
  for (const NamePrefix& p : kPrefixes)
    if (file.starts_with(p.prefix)) return file.substr(p.prefix.size());
  return file;
}

Expect Case::expected(Profile p) const {
  for (std::size_t i = 0; i < kManifestProfiles.size(); ++i)
    if (kManifestProfiles[i] == p) return expect[i];
  return Expect::Reject;
}

Expect Case::expected(Profile p, const VersionChoice& chosen) const {
  const std::optional<Consumer> c = p.consumer();
  if (c && chosen[*c] != consumer_info(*c).default_version) {
    const std::string key = std::string(consumer_name(*c)) + "=" + std::string(consumer_info(*c).versions[chosen[*c]].id);
    for (const auto& [name, e] : versions)
      if (name == key) return e;
  }
  return expected(p);
}

std::string render_case(const Case& c) {
  std::string out = "{\"file\": ";
  append_json_string(out, c.file);
  out += ", \"description\": ";
  append_json_string(out, c.description);
  out += ", \"rules\": [";
  for (std::size_t i = 0; i < c.rules.size(); ++i) {
    if (i) out += ", ";
    append_json_string(out, c.rules[i]);
  }
  out += "], \"expect\": {";
  for (std::size_t i = 0; i < kManifestProfiles.size(); ++i) {
    if (i) out += ", ";
    append_json_string(out, profile_name(kManifestProfiles[i]));
    out += ": ";
    append_json_string(out, expect_word(c.expect[i]));
  }
  out += "}";
  if (!c.sglang_message.empty()) {
    out += ", \"sglang_message\": ";
    append_json_string(out, c.sglang_message);
  }
  out += c.data ? ", \"data\": true" : ", \"data\": false";
  if (!c.versions.empty()) {
    out += ", \"versions\": {";
    for (std::size_t i = 0; i < c.versions.size(); ++i) {
      if (i) out += ", ";
      append_json_string(out, c.versions[i].first);
      out += ": ";
      append_json_string(out, expect_word(c.versions[i].second));
    }
    out += "}";
  }
  out += ", \"named_for\": ";
  append_json_string(out, name_prefix(c).named_for);
  out += "}";
  return out;
}

Result<Case, std::string> parse_case(std::string_view line) {
  auto parsed = py::loads(line, py::LoadLimits{line.size(), kPythonJsonDepth});
  if (!parsed) return line_error("expected a JSON object, found: " + parsed.error().what());
  const py::Value& top = parsed.value();
  if (!quant::is_dict(top)) return line_error("expected a JSON object, found: " + std::string(quant::type_name(top)));
  Case c;
  const std::string* text = string_at(top, "file");
  if (!text || text->empty()) return line_error("expected \"file\": a non-empty string");
  c.file = *text;
  if (!(text = string_at(top, "description"))) return line_error("expected \"description\": a string in " + c.file);
  c.description = *text;
  const py::Value* rules = quant::get(top, "rules");
  if (!rules || !std::holds_alternative<py::List>(rules->data))
    return line_error("expected \"rules\": an array in " + c.file);
  for (const py::Value& r : std::get<py::List>(rules->data).items) {
    if (!(text = std::get_if<std::string>(&r.data))) return line_error("expected rule ids as strings in " + c.file);
    c.rules.push_back(*text);
  }
  const py::Value* expect = quant::get(top, "expect");
  if (!expect || !quant::is_dict(*expect)) return line_error("expected \"expect\": an object in " + c.file);
  for (std::size_t i = 0; i < kManifestProfiles.size(); ++i) {
    const std::string_view name = profile_name(kManifestProfiles[i]);
    text = string_at(*expect, name);
    if (!text || (*text != "accept" && *text != "reject"))
      return line_error("expected \"expect\".\"" + std::string(name) + "\": \"accept\" or \"reject\" in " + c.file);
    c.expect[i] = *text == "accept" ? Expect::Accept : Expect::Reject;
  }
  if (const py::Value* message = quant::get(top, "sglang_message")) {
    if (!(text = std::get_if<std::string>(&message->data)))
      return line_error("expected \"sglang_message\": a string in " + c.file);
    c.sglang_message = *text;
  }
  if ((c.expected(Profile::Sglang) == Expect::Reject) != !c.sglang_message.empty())
    return line_error("expected \"sglang_message\" exactly when sglang rejects, in " + c.file);
  const py::Value* data = quant::get(top, "data");
  if (!data || !std::holds_alternative<bool>(data->data))
    return line_error("expected \"data\": true or false in " + c.file);
  c.data = std::get<bool>(data->data);
  const py::Value* versions = quant::get(top, "versions");
  if (versions && quant::is_dict(*versions))
    for (const py::DictEntry& kv : std::get<py::Dict>(versions->data).items) {
      const std::string& key = std::get<std::string>(kv.key.data);
      text = std::get_if<std::string>(&kv.value.data);
      if (!pick_version(key) || !text || (*text != "accept" && *text != "reject"))
        return line_error("expected \"versions\": NAME=VERSION keys of the consumer table with \"accept\" or "
                          "\"reject\" in " + c.file);
      c.versions.emplace_back(key, *text == "accept" ? Expect::Accept : Expect::Reject);
    }
  const NamePrefix named = name_prefix(c);
  const std::string* named_for = string_at(top, "named_for");
  if (!named_for) return line_error("expected \"named_for\": a string in " + c.file);
  if (*named_for != named.named_for || !c.file.starts_with(named.prefix))
    return line_error("expected a name starting \"" + std::string(named.prefix) + "\" and \"named_for\": \"" +
                      std::string(named.named_for) + "\" for these expectations, found " + c.file +
                      " and \"named_for\": \"" + *named_for + "\"");
  return c;
}

Result<std::vector<Case>, std::string> read_manifest(const std::filesystem::path& suite_dir) {
  const std::filesystem::path path = suite_dir / "manifest.jsonl";
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::string("cannot read ") + path.string();
  std::vector<Case> cases;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    auto c = parse_case(line);
    if (!c) return path.string() + ":" + std::to_string(number) + ": " + c.error();
    cases.push_back(std::move(c).value());
  }
  return cases;
}

}  // namespace safespec::conformance
