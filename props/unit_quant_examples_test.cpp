// corpus/examples/quant: each committed checkpoint is what make_corpus
// writes, small, and gets exactly the findings and consumer outcomes its
// name promises from `safespec check --data` (comfy-quant-markers.md §2-§7).
// Built and run by tools/CMakeLists.txt (quant_examples_test), not listed in
// props/unit_tests.cmake.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "props/catch.hpp"
#include "src/commands/check.hpp"
#include "src/oracles/oracles.hpp"
#include "tools/quant_examples.hpp"

namespace {

using namespace safespec;
namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(SAFESPEC_SOURCE_DIR) / "corpus";

std::vector<std::uint8_t> read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> rule_names(const FileReport& r) {
  std::set<std::string> names;
  for (const Finding& f : r.findings) names.insert(std::string(rule_name(f.rule)));
  return {names.begin(), names.end()};
}

}  // namespace

TEST_CASE("corpus/examples/quant holds exactly the generated examples, each under 64 KiB", "[quant][corpus]") {
  std::set<std::string> listed;
  for (const auto& e : tools::quant_examples()) {
    INFO(e.name);
    listed.insert(e.name);
    CHECK(e.bytes.size() < 64 * 1024);
    CHECK(read_all(kCorpus / "examples" / "quant" / e.name) == e.bytes);
  }
  std::set<std::string> on_disk;
  for (const auto& entry : fs::directory_iterator(kCorpus / "examples" / "quant"))
    on_disk.insert(entry.path().filename().string());
  CHECK(on_disk == listed);
}

TEST_CASE("Quant examples (L10-L17, G1-G25): strict findings and each consumer's verdict", "[quant][corpus]") {
  HeaderParser parser;
  for (const auto& e : tools::quant_examples()) {
    const std::string path = (kCorpus / "examples" / "quant" / e.name).string();
    const auto reports = check_paths({path}, CheckOptions{.data = true}, parser);
    REQUIRE(reports.size() == 1);
    const FileReport& r = reports.front();
    INFO(describe_report(r));
    CHECK(rule_names(r) == e.rules);
    for (std::size_t i = 0; i < kConsumers.size(); ++i) {
      INFO(consumer_name(kConsumers[i]));
      CHECK(r.consumers[kConsumers[i]].loads == e.loads[i]);
    }
    // A valid example may carry a warning only older consumer versions act on.
    const bool errors = std::any_of(r.findings.begin(), r.findings.end(),
                                    [](const Finding& f) { return f.severity == Severity::Error; });
    CHECK(r.ok() == !errors);
    if (e.rules.empty()) CHECK(!errors);
  }
}

TEST_CASE("Quant examples keep the checkpoint fuzzer's laws under every profile", "[quant][corpus]") {
  HeaderParser parser;
  for (const auto& e : tools::quant_examples()) {
    INFO(e.name);
    CHECK(profiles_disagree(e.bytes, parser) == std::nullopt);
  }
}

TEST_CASE("The plain examples are clean under strict (tiny-llm's lm_head is BF16, not unmarked F8_E4M3: S8)",
          "[quant][corpus]") {
  HeaderParser parser;
  for (const char* name : {"tiny-llm.safetensors", "scalars-and-subbyte.safetensors"}) {
    const auto reports = check_paths({(kCorpus / "examples" / name).string()}, CheckOptions{}, parser);
    REQUIRE(reports.size() == 1);
    INFO(describe_report(reports.front()));
    CHECK(reports.front().ok());
  }
}
