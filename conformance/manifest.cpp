#include "conformance/manifest.hpp"

#include <simdjson.h>

#include <array>
#include <optional>
#include <fstream>
#include <sstream>

#include "spec/profile_choice.hpp"
#include "src/json_escape.hpp"

namespace safespec::conformance {

std::string_view expect_word(Expect e) { return e == Expect::Accept ? "accept" : "reject"; }

namespace {

Result<Case, std::string> line_error(std::string what) { return std::string("manifest line: ") + std::move(what); }

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
  namespace dom = simdjson::dom;
  dom::parser parser;
  const simdjson::padded_string padded(line);
  dom::object top;
  if (auto err = parser.parse(padded).get_object().get(top); err)
    return line_error(std::string("expected a JSON object, found: ") + simdjson::error_message(err));
  Case c;
  std::string_view text;
  if (top["file"].get_string().get(text) || text.empty())
    return line_error("expected \"file\": a non-empty string");
  c.file = text;
  if (top["description"].get_string().get(text)) return line_error("expected \"description\": a string in " + c.file);
  c.description = text;
  dom::array rules;
  if (top["rules"].get_array().get(rules)) return line_error("expected \"rules\": an array in " + c.file);
  for (dom::element r : rules) {
    if (r.get_string().get(text)) return line_error("expected rule ids as strings in " + c.file);
    c.rules.emplace_back(text);
  }
  dom::object expect;
  if (top["expect"].get_object().get(expect)) return line_error("expected \"expect\": an object in " + c.file);
  for (std::size_t i = 0; i < kManifestProfiles.size(); ++i) {
    const std::string_view name = profile_name(kManifestProfiles[i]);
    if (expect[name].get_string().get(text) || (text != "accept" && text != "reject"))
      return line_error("expected \"expect\".\"" + std::string(name) + "\": \"accept\" or \"reject\" in " + c.file);
    c.expect[i] = text == "accept" ? Expect::Accept : Expect::Reject;
  }
  dom::element message;
  if (!top["sglang_message"].get(message)) {
    if (message.get_string().get(text)) return line_error("expected \"sglang_message\": a string in " + c.file);
    c.sglang_message = text;
  }
  if ((c.expected(Profile::Sglang) == Expect::Reject) != !c.sglang_message.empty())
    return line_error("expected \"sglang_message\" exactly when sglang rejects, in " + c.file);
  bool data = false;
  if (top["data"].get_bool().get(data)) return line_error("expected \"data\": true or false in " + c.file);
  c.data = data;
  dom::object versions;
  if (!top["versions"].get_object().get(versions))
    for (auto kv : versions) {
      if (!pick_version(kv.key) || kv.value.get_string().get(text) || (text != "accept" && text != "reject"))
        return line_error("expected \"versions\": NAME=VERSION keys of the consumer table with \"accept\" or "
                          "\"reject\" in " + c.file);
      c.versions.emplace_back(std::string(kv.key), text == "accept" ? Expect::Accept : Expect::Reject);
    }
  const NamePrefix named = name_prefix(c);
  std::string_view named_for;
  if (top["named_for"].get_string().get(named_for)) return line_error("expected \"named_for\": a string in " + c.file);
  if (named_for != named.named_for || !c.file.starts_with(named.prefix))
    return line_error("expected a name starting \"" + std::string(named.prefix) + "\" and \"named_for\": \"" +
                      std::string(named.named_for) + "\" for these expectations, found " + c.file +
                      " and \"named_for\": \"" + std::string(named_for) + "\"");
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
