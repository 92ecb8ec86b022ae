// A checkpoint of several files reports what is about the whole of it once,
// on its own report (its index's, or one made for a shard series), and each
// file keeps what is about the file alone: in text, JSON and SARIF.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gen/file_bytes.hpp"
#include "props/catch.hpp"
#include "props/json_support.hpp"
#include "props/unit_support.hpp"

using namespace safespec;
using test::Json;
using test::Run;

namespace {

struct CheckpointScratch : test::CliScratch {
  CheckpointScratch() : CliScratch("safespec_unit_checkpoint_report") {}
};

// Shard 1 mixes W4A8 and fp8 layers (sglang rejects the checkpoint for it,
// CQ-SGLANG-FORMATS); shard 2 is one plain tensor, `cut` bytes short.
struct TwoShards {
  std::string first, second, index;
};

TwoShards two_shards(const CheckpointScratch& s, std::size_t cut = 0) {
  const auto mixed = test::vectors_dir().parent_path() / "examples" / "quant" / "mixed_w4a8_fp8.safetensors";
  std::ifstream in(mixed, std::ios::binary);
  const test::Bytes first{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  test::Bytes second = gen::file_with_header(test::pad8(R"({"head.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})"), 8);
  second.resize(second.size() - cut);
  TwoShards t{s.file("model-00001-of-00002.safetensors", first), s.file("model-00002-of-00002.safetensors", second), ""};
  std::string map;
  for (const char* name : {"model.layers.0.mlp.down_proj.weight_codebook", "model.layers.0.mlp.down_proj.weight_s_channel",
                           "model.layers.0.self_attn.o_proj.weight_scale", "model.norm.weight",
                           "model.layers.0.mlp.down_proj.weight_s_rel", "model.layers.0.self_attn.o_proj.weight",
                           "model.layers.0.mlp.down_proj.weight", "model.layers.0.mlp.down_proj.comfy_quant",
                           "model.layers.0.self_attn.o_proj.comfy_quant"})
    map += std::string(map.empty() ? "" : ",") + "\"" + name + "\":\"model-00001-of-00002.safetensors\"";
  map += R"(,"head.weight":"model-00002-of-00002.safetensors")";
  t.index = s.text("model.safetensors.index.json", R"({"metadata":{},"weight_map":{)" + map + "}}");
  return t;
}


}  // namespace

TEST_CASE("checkpoint report: an index speaks for its shards in text", "[check][checkpoint]") {
  CheckpointScratch s;
  const TwoShards t = two_shards(s);
  const Run r = s.run("check " + test::shell_word(t.index));
  CHECK(r.code == 1);
  const std::string at = "checkpoint '" + t.index + "'";
  // The index's report: the checkpoint-wide finding, then every consumer's verdict.
  const std::string index_part = r.out.substr(0, r.out.find(t.first + ":"));
  CHECK(index_part.starts_with(t.index + ": FAIL (1 error, 0 warnings, profile strict)\n"));
  CHECK(index_part.find("  error   CQ-SGLANG-FORMATS at " + at + ": ") != std::string::npos);
  CHECK(index_part.find("  verdict sglang: rejects (NotImplementedError: Unsupported Comfy quantization format(s): "
                        "asym_w4a8_int8, float8_e4m3fn)\n") != std::string::npos);
  CHECK(index_part.find("  verdict safetensors: loads\n") != std::string::npos);
  // Each shard: its own verdict only, and where the others are.
  CHECK(r.out.find(t.second + ": OK (0 errors, 0 warnings, profile strict)\n  verdict safetensors: loads\n"
                   "  verdicts of sglang, comfyui, kitchen: on " + at + "\n") != std::string::npos);
  CHECK(test::occurrences(r.out, "CQ-SGLANG-FORMATS") == 1);
  CHECK(test::occurrences(r.out, "verdict sglang:") == 1);
}

TEST_CASE("checkpoint report: JSON gives the index the consumers and each shard its own", "[check][checkpoint]") {
  CheckpointScratch s;
  const TwoShards t = two_shards(s);
  const Run r = s.run("check --json " + test::shell_word(t.index));
  const Json doc = test::parse_json(r.out);
  const Json files = doc["files"];
  REQUIRE(files.size() == 3);
  const Json index = files.at(0);
  CHECK(std::string_view(index["path"]) == t.index);
  CHECK(index["checkpoint"].is_null());
  const Json listed = index["files"];
  REQUIRE(listed.size() == 2);
  CHECK(std::string_view(listed.at(0)) == t.first);
  CHECK(std::string_view(listed.at(1)) == t.second);
  CHECK(index["consumers"].size() == 4);
  CHECK(bool(index["consumers"]["sglang"]["loads"]) == false);
  CHECK(bool(index["consumers"]["safetensors"]["loads"]) == true);
  const Json finding = index["findings"].at(0);
  CHECK(std::string_view(finding["rule"]) == "CQ-SGLANG-FORMATS");
  // The name as the file system spells it, no quotes inside.
  CHECK(std::string_view(finding["place"]["name"]) == t.index);
  for (std::size_t i = 1; i < 3; ++i) {
    const Json shard = files.at(i);
    CHECK(std::string_view(shard["checkpoint"]) == t.index);
    CHECK(shard["files"].size() == 0);
    CHECK(shard["consumers"].size() == 1);
    CHECK(bool(shard["consumers"]["safetensors"]["loads"]) == true);
    CHECK(shard["findings"].size() == 0);
    CHECK(bool(shard["ok"]) == true);
  }
}

TEST_CASE("checkpoint report: SARIF files a checkpoint finding under the index", "[check][checkpoint]") {
  CheckpointScratch s;
  const TwoShards t = two_shards(s);
  const Run r = s.run("check --format sarif " + test::shell_word(t.index));
  const Json doc = test::parse_json(r.out);
  const Json results = doc["runs"].at(0)["results"];
  REQUIRE(results.size() == 1);
  const Json loc = results.at(0)["locations"].at(0);
  CHECK(std::string_view(loc["physicalLocation"]["artifactLocation"]["uri"]) == t.index);
  CHECK(std::string_view(loc["logicalLocations"].at(0)["fullyQualifiedName"]) ==
        "checkpoint '" + t.index + "'");
}

TEST_CASE("checkpoint report: a shard series given as files gets a report of its own, before its files",
          "[check][checkpoint]") {
  CheckpointScratch s;
  const TwoShards t = two_shards(s);
  const std::string series = (std::filesystem::path(t.first).parent_path() / "model-*-of-00002.safetensors").string();
  const Run r = s.run("check " + test::shell_word(t.first) + " " + test::shell_word(t.second));
  CHECK(r.out.starts_with(series + ": FAIL (1 error, 0 warnings, profile strict)\n  error   CQ-SGLANG-FORMATS at checkpoint '" +
                          series + "': "));
  CHECK(r.out.find(t.first + ": OK (0 errors, 0 warnings, profile strict)\n  verdict safetensors: loads\n"
                   "  verdicts of sglang, comfyui, kitchen: on checkpoint '" + series + "'\n") != std::string::npos);
  // SARIF points at the series' first file, which exists, and names the series.
  const Run sarif = s.run("check --format sarif " + test::shell_word(t.first) + " " + test::shell_word(t.second));
  CHECK(sarif.out.find(R"("artifactLocation":{"uri":")" + t.first + R"("}},"logicalLocations":[{"fullyQualifiedName":"checkpoint ')" +
                       series + "'\"") != std::string::npos);
  // --separate: each file alone, each with every verdict, no series report.
  const Run apart = s.run("check --separate " + test::shell_word(t.first) + " " + test::shell_word(t.second));
  CHECK(apart.out.find(series) == std::string::npos);
  CHECK(test::occurrences(apart.out, "verdict sglang:") == 2);
}

TEST_CASE("checkpoint report: a consumer profile fails the checkpoint, not its clean shard", "[check][checkpoint]") {
  CheckpointScratch s;
  const TwoShards t = two_shards(s);
  const Run r = s.run("check --profile sglang " + test::shell_word(t.index));
  CHECK(r.code == 1);
  CHECK(r.out.starts_with(t.index + ": FAIL (1 error, 0 warnings, profile sglang)\n"));
  CHECK(r.out.find(t.second + ": OK (0 errors, 0 warnings, profile sglang)\n") != std::string::npos);
}

TEST_CASE("checkpoint report: the reference's verdict on the checkpoint names the file it refuses", "[check][checkpoint]") {
  CheckpointScratch s;
  const TwoShards t = two_shards(s, 3);
  const Run r = s.run("check " + test::shell_word(t.index));
  // Every consumer stops at that file: one line, which names it.
  CHECK(r.out.find("  verdict all consumers: reject (safetensors: file '" + t.second +
                   "': MetadataIncompleteBuffer: incomplete metadata, file not fully covered; sglang, comfyui, kitchen: "
                   "SafetensorError: ") != std::string::npos);
  const Run j = s.run("check --json " + test::shell_word(t.index));
  const Json doc = test::parse_json(j.out);
  const Json st = doc["files"].at(0)["consumers"]["safetensors"];
  CHECK(bool(st["loads"]) == false);
  CHECK(std::string_view(st["file"]) == t.second);
  // The table has one row for the checkpoint.
  const Run table = s.run("table " + test::shell_word(t.index));
  CHECK(test::occurrences(table.out, t.second) == 1);  // in the note only
  CHECK(table.out.find(t.index + ": safetensors: file '" + t.second + "': MetadataIncompleteBuffer: ") != std::string::npos);
}
