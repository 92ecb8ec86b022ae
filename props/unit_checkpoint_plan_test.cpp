// plan_checkpoints (src/commands/checkpoint_plan.hpp): which files `check` reads as
// one checkpoint, from the paths alone.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "src/commands/check.hpp"
#include "src/commands/checkpoint_plan.hpp"
#include "spec/quote.hpp"

using namespace safespec;

namespace {

PathEntry files_of(std::string path, std::vector<std::string> files) { return PathEntry{std::move(path), {}, std::move(files)}; }
PathEntry file_entry(const std::string& path) { return PathEntry{path, {}, {path}}; }
PathEntry index_entry(const std::string& path, const std::string& index) { return PathEntry{path, index, {}}; }

// Each checkpoint as "KIND name: file file ...", in plan order.
std::vector<std::string> shown(const std::vector<PathEntry>& entries, bool separate = false, bool together = false) {
  const CheckpointPlan plan = plan_checkpoints(entries, separate, together);
  std::vector<std::string> out;
  for (const PlannedCheckpoint& c : plan.checkpoints) {
    const char* kind = c.kind == CheckpointKind::Index    ? "index"
                       : c.kind == CheckpointKind::Series ? "series"
                       : c.kind == CheckpointKind::Single ? "single"
                                                          : "together";
    out.push_back(std::string(kind) + (c.name.empty() ? "" : " " + quote_name(c.name)) + ":");
  }
  std::size_t file = 0;
  for (std::size_t e = 0; e < entries.size(); ++e) {
    if (!entries[e].index.empty()) {
      out[plan.of_entry[e]] += " (index)";
      continue;
    }
    for (const std::string& f : entries[e].files) out[plan.of_file[file++]] += " " + f;
  }
  REQUIRE(file == plan.of_file.size());
  return out;
}

}  // namespace

TEST_CASE("plan_checkpoints: a folder of unrelated files is one checkpoint per file", "[check]") {
  CHECK(shown({files_of("d", {"d/a.safetensors", "d/b.safetensors"})}) ==
        std::vector<std::string>{"single 'd/a.safetensors': d/a.safetensors", "single 'd/b.safetensors': d/b.safetensors"});
}

TEST_CASE("plan_checkpoints: a shard series is one checkpoint, in a folder or listed", "[check]") {
  const std::vector<std::string> expected{
      "series 'd/model-*-of-00002.safetensors': d/model-00001-of-00002.safetensors d/model-00002-of-00002.safetensors",
      "single 'd/vae.safetensors': d/vae.safetensors"};
  CHECK(shown({files_of("d", {"d/model-00001-of-00002.safetensors", "d/model-00002-of-00002.safetensors",
                              "d/vae.safetensors"})}) == expected);
  CHECK(shown({file_entry("d/model-00001-of-00002.safetensors"), file_entry("d/model-00002-of-00002.safetensors"),
               file_entry("d/vae.safetensors")}) == expected);
  // Another folder's series of the same name is another checkpoint.
  CHECK(shown({file_entry("d/model-00001-of-00002.safetensors"), file_entry("e/model-00002-of-00002.safetensors")})
            .size() == 2);
  // --separate: every file alone.
  CHECK(shown({files_of("d", {"d/model-00001-of-00002.safetensors", "d/model-00002-of-00002.safetensors"})}, true)
            .size() == 2);
}

TEST_CASE("plan_checkpoints: an index is one checkpoint where its path was, and --checkpoint joins every file",
          "[check]") {
  CHECK(shown({file_entry("a.safetensors"), index_entry("d", "d/model.safetensors.index.json"),
               file_entry("b.safetensors")}) ==
        std::vector<std::string>{"single 'a.safetensors': a.safetensors", "index 'd/model.safetensors.index.json': (index)",
                                 "single 'b.safetensors': b.safetensors"});
  CHECK(shown({file_entry("a.safetensors"), files_of("d", {"d/x.safetensors"}), file_entry("b.safetensors")}, false,
              true) ==
        std::vector<std::string>{
            "together: a.safetensors d/x.safetensors b.safetensors"});
}

namespace {

void write_file(const std::filesystem::path& p, const std::string& header, std::size_t data) {
  std::string h = header;
  while (h.size() % 8 != 0) h += ' ';
  std::string bytes(8, '\0');
  for (std::size_t i = 0; i < 8; ++i) bytes[i] = static_cast<char>((h.size() >> (8 * i)) & 0xff);
  bytes += h + std::string(data, '\0');
  std::ofstream(p, std::ios::binary) << bytes;
}

}  // namespace

TEST_CASE("check DIR: unrelated files side by side are judged each alone", "[check]") {
  const test::TempDir t("checkpoint-plan-folder");
  const std::filesystem::path dir = t.dir / "mixed";
  std::filesystem::create_directories(dir);
  // Both name tensor "a"; the second has a gap, which the reference rejects.
  write_file(dir / "good.safetensors", R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})", 2);
  write_file(dir / "bad.safetensors", R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})", 2);
  HeaderParser parser;
  const std::vector<FileReport> reports = check_paths({dir.string()}, CheckOptions{}, parser);
  REQUIRE(reports.size() == 2);
  const FileReport& bad = reports[0];
  const FileReport& good = reports[1];
  CHECK(good.path.ends_with("good.safetensors"));
  CHECK(good.findings.empty());
  for (Consumer c : kConsumers) CHECK(good.consumers[c].loads);
  CHECK(!bad.consumers[Consumer::Safetensors].loads);
  for (const FileReport& r : reports)
    for (const Finding& f : r.findings) CHECK(f.rule != RuleId::IndexTensorInTwoShards);
}
