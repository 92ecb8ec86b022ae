// The reference reader's own answers on 3,000 mutated headers
// (corpus/reference_answers/, from huggingface/safetensors at 24b0b28 built
// with serde 1.0.228 and serde_json 1.0.150): verdict, error variant and
// Display text, through the emulation alone and through `safespec check`.
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/json_support.hpp"
#include "spec/reference/reference_reader.hpp"
#include "src/commands/check.hpp"

using namespace safespec;
using test::Json;
using test::parse_json;

namespace {

struct Expected {
  std::string file;
  bool ok = false;
  std::string variant, message;
  bool deterministic = true;
  std::vector<std::string> alternatives;  // variants
};

const std::string kDir = std::string(SAFESPEC_REFERENCE_ANSWERS_DIR) + "/";

std::vector<Expected> load_answers() {
  std::vector<Expected> out;
  std::ifstream in(kDir + "answers.jsonl");
  for (std::string line; std::getline(in, line);) {
    const Json e = parse_json(line);
    Expected x;
    x.file = std::string(std::string_view(e["file"]));
    x.ok = bool(e["ok"]);
    if (!x.ok) {
      x.variant = std::string(std::string_view(e["variant"]));
      x.message = std::string(std::string_view(e["message"]));
    }
    x.deterministic = bool(e["deterministic"]);
    for (Json a : e["alternatives"]) x.alternatives.emplace_back(std::string_view(a));
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<std::uint8_t> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A nondeterministic answer (offset ties, X13) is matched by any variant the
// reference gave; safespec must list the others as alternatives.
bool variant_allowed(const Expected& x, std::string_view variant) {
  if (variant == x.variant) return true;
  for (const std::string& a : x.alternatives)
    if (a == variant) return true;
  return false;
}

}  // namespace

TEST_CASE("reference answers: the emulated reader gives the reference's verdict, variant and Display on 3,000 headers",
          "[reference][F1-F13]") {
  const std::vector<Expected> answers = load_answers();
  REQUIRE(answers.size() == 3000);
  std::size_t agree = 0;
  for (const Expected& x : answers) {
    const std::vector<std::uint8_t> bytes = read_all(kDir + "files/" + x.file);
    const reference::Answer a = reference::read_metadata(bytes, bytes.size());
    INFO(x.file);
    REQUIRE(a.failure.has_value() != x.ok);
    if (x.ok) {
      ++agree;
      continue;
    }
    const std::string variant(reference::variant_name(a.failure->variant));
    if (x.deterministic) {
      CHECK(variant == x.variant);
      CHECK(a.failure->display == x.message);
      CHECK(a.alternatives.empty());
    } else {
      CHECK(variant_allowed(x, variant));
      CHECK_FALSE(a.alternatives.empty());  // safespec says the answer depends on the process
    }
    ++agree;
  }
  CHECK(agree == answers.size());
}

TEST_CASE("reference answers: safespec check --profile safetensors exits and reports as the reference on 3,000 headers",
          "[reference][F1-F13]") {
  const std::vector<Expected> answers = load_answers();
  std::vector<std::string> paths;
  for (const Expected& x : answers) paths.push_back(kDir + "files/" + x.file);
  HeaderParser parser;
  const std::vector<FileReport> reports = check_paths(paths, CheckOptions{.profile = Profile::Safetensors, .separate = true}, parser);
  REQUIRE(reports.size() == answers.size());
  for (std::size_t i = 0; i < answers.size(); ++i) {
    const Expected& x = answers[i];
    const FileReport& r = reports[i];
    INFO(x.file);
    REQUIRE(r.judged);
    CHECK(r.ok() == x.ok);  // the exit status is the reference's verdict
    const Outcome& st = r.consumers[Consumer::Safetensors];
    CHECK(st.loads == x.ok);
    if (x.ok) continue;
    if (x.deterministic) {
      CHECK(st.error == x.variant);
      CHECK(st.message == x.message);
    } else {
      CHECK(variant_allowed(x, st.error));
    }
    // Every Python consumer opens the file with safe_open first.
    for (Consumer c : {Consumer::Sglang, Consumer::Comfyui, Consumer::Kitchen}) {
      CHECK_FALSE(r.consumers[c].loads);
      if (x.deterministic && r.consumers[c].error == "SafetensorError")
        CHECK(r.consumers[c].message == "Error while deserializing header: " + x.message);
    }
  }
}
