// Reports that claim only what was checked: the --json schema,
// usage errors, hints, inspect on indexes, and what a report may claim.
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gen/file_bytes.hpp"
#include "props/catch.hpp"
#include "props/json_support.hpp"
#include "props/unit_support.hpp"
#include "src/io/writer.hpp"

using namespace safespec;
using test::Json;
using test::parse_json;
using test::Run;

namespace {

struct Scratch : test::CliScratch {
  Scratch() : CliScratch("safespec_unit_reports") {}
};

const std::string kTest = R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}})";
std::vector<std::uint8_t> canonical() { return gen::file_with_header(kTest + "    ", 16); }  // N = 64
std::vector<std::uint8_t> gap() { return gen::file_with_header(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}   )", 2); }

constexpr std::string_view kLoads =
    R"("loads":true,"error":null,"message":null,"unknown":null,"config":null,"mis_loads":[],"warns":[],"alternatives":[],"assumes":[],"unchecked":[],"file":null})";

// "consumers", then the version each verdict is for, then every version of
// the consumers that have several (spec/consumers.hpp).
std::string all_load() {
  const std::string c = "{" + std::string(kLoads);
  const auto v = [](std::string_view id) { return R"({"version":")" + std::string(id) + R"(",)" + std::string(kLoads); };
  return R"({"safetensors":)" + c + R"(,"sglang":)" + c + R"(,"comfyui":)" + c + R"(,"kitchen":)" + c + "}" +
         R"(,"consumer_versions":{"safetensors":"24b0b28","sglang":"1bb249c","comfyui":"safe-open","kitchen":"0.2.27"})" +
         R"(,"versions":{"sglang":[)" + v("1bb249c") + "," + v("4422cbf") + "," + v("pr36037") + "," + v("321f98d") +
         R"(],"comfyui":[)" + v("safe-open") + "," + v("dynamic-vram") + "," + v("dynamic-vram-6db4fa2") +
         R"(],"kitchen":[)" + v("0.2.27") + "," + v("0.2.31") + "," + v("2a6f4ef") + "]}";
}

std::vector<std::string> keys(const Json& o) {
  std::vector<std::string> out;
  for (const auto& kv : o.members()) out.emplace_back(kv.key);
  return out;
}

}  // namespace

TEST_CASE("reports (issue 11): check --json has schema 1 and every consumer object has the same keys", "[reports]") {
  Scratch s;
  const auto good = s.file("ok.safetensors", canonical());
  const Run r = s.run("check --json " + test::shell_word(good));
  CHECK(r.code == 0);
  CHECK(r.out == R"({"schema":1,"profile":"strict","files":[{"path":)" + ("\"" + good + "\"") +
                     R"(,"ok":true,"hint":null,"findings":[],"counts":{},"ignored":0,"complete":true,"unchecked":[],"consumers":)" + all_load() + R"(,"checkpoint":null,"files":[]}]})" + "\n");

  const auto bad = s.file("gap.safetensors", gap());
  for (const char* profile : {"strict", "safetensors", "sglang", "comfyui", "kitchen"}) {
    INFO(profile);
    const Run b = s.run(std::string("check --json --separate --profile ") + profile + " " + test::shell_word(bad));
    const Json doc = parse_json(b.out);
    CHECK(std::int64_t(doc["schema"]) == 1);
    const Json consumers = doc["files"].at(0)["consumers"];
    for (const auto& kv : consumers.members()) {
      INFO(kv.key);
      CHECK(keys(kv.value) == std::vector<std::string>{"loads", "error", "message", "unknown", "config", "mis_loads",
                                                       "warns", "alternatives", "assumes", "unchecked", "file"});
      CHECK(bool(kv.value["loads"]) == false);
      CHECK(std::string_view(kv.value["error"]).size() > 0);
      CHECK(kv.value["config"].is_null());
    }
  }
}

TEST_CASE("reports (issue 11): table --json, inspect --json and rules --json have schema 1", "[reports]") {
  Scratch s;
  const auto good = s.file("ok.safetensors", canonical());
  const Run t = s.run("table --json " + test::shell_word(good));
  CHECK(t.code == 0);
  CHECK(t.out == R"({"schema":1,"files":[{"path":")" + good + R"(","consumers":)" + all_load() + R"(,"complete":true,"unchecked":[]})" + "]}\n");
  const Run missing = s.run("table --json " + test::shell_word(good + ".missing"));
  CHECK(missing.code == 2);
  CHECK(missing.out.starts_with(R"({"schema":1,"files":[{"path":")" + good + R"(.missing","error":")"));
  CHECK(s.run("inspect --json " + test::shell_word(good)).out.starts_with(R"({"schema":1,"path":")" + good + "\","));
  CHECK(s.run("rules --json").out.starts_with(R"({"schema":1,"rules":[)"));
}

TEST_CASE("reports (issue 11): inspect --json on a bad file prints a JSON error object and exits non-zero", "[reports]") {
  Scratch s;
  const auto broken = s.file("broken.safetensors", gen::file_with_header("{\"a\":", 0));
  const Run r = s.run("inspect --json " + test::shell_word(broken));
  CHECK(r.code == 1);
  Json doc = parse_json(r.out);
  CHECK(std::int64_t(doc["schema"]) == 1);
  CHECK(std::string_view(doc["path"]) == broken);
  CHECK(std::string_view(doc["error"]).starts_with(std::string_view(doc["rule"])));
  CHECK(std::string_view(doc["rule"]).starts_with("ST-"));

  const Run gone = s.run("inspect --json " + test::shell_word(broken + ".missing"));
  CHECK(gone.code == 2);
  doc = parse_json(gone.out);
  CHECK(std::string_view(doc["path"]) == broken + ".missing");
  CHECK(std::string_view(doc["error"]).size() > 0);
  CHECK_FALSE(doc["rule"].exists());
}

TEST_CASE("reports (issue 11): compare --ulps -1 is a usage error", "[reports]") {
  Scratch s;
  const auto good = s.file("ok.safetensors", canonical());
  const Run r = s.run("compare " + test::shell_word(good) + " " + test::shell_word(good) + " --ulps -1");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "--ulps: expected a whole number (0 or more, digits only), found -1\nRun with --help for more information.\n");
  CHECK(s.run("compare " + test::shell_word(good) + " " + test::shell_word(good) + " --ulps 3").code == 0);
}

TEST_CASE("reports (issue 11): inspect accepts a shard index and lists its shards", "[reports]") {
  Scratch s;
  const auto shard = s.file("s1.safetensors", canonical());
  const auto index = s.text("model.safetensors.index.json",
                            R"({"metadata":{"total_size":16},"weight_map":{"test":"s1.safetensors"}})");
  const Run r = s.run("inspect " + test::shell_word(index));
  CHECK(r.code == 0);
  // The listing as before, then the checkpoint's summary.
  CHECK(r.out == "shard index: 1 shard\nshard " + shard +
                     ": header length 64 bytes, data 16 bytes, 1 tensors\n  'test' I32 [2,2] bytes=16 offsets=[0, 16]\n"
                     "summary: 1 tensor, 4 parameters, 16 bytes\n  I32: 1 tensor, 4 parameters, 16 bytes\n"
                     "layers by prefix: 1\n  (no prefix): 1 tensor (test), 4 parameters, 16 bytes\n"
                     "verdicts (header rules only; `safespec check --data` adds the value rules):\n"
                     "  safetensors: loads\n  sglang: loads\n  comfyui: loads\n  kitchen: loads\nmetadata keys: none\n");
  const Run j = s.run("inspect --json " + test::shell_word(index));
  CHECK(j.code == 0);
  CHECK(j.out.starts_with(R"({"schema":1,"path":")" + index + R"(","shards":[{"path":")" + shard + "\","));
}

TEST_CASE("reports (issue 11): a Git LFS pointer or a JSON file given as a checkpoint says what it is", "[reports]") {
  Scratch s;
  const auto lfs = s.text("model.safetensors",
                          "version https://git-lfs.github.com/spec/v1\noid sha256:00000000\nsize 1234\n");
  const Run c = s.run("check " + test::shell_word(lfs));
  CHECK(c.code == 1);
  CHECK(c.out.find("\n  hint: this is a Git LFS pointer file, not the tensors: fetch them with `git lfs pull`\n") !=
        std::string::npos);
  const Run i = s.run("inspect " + test::shell_word(lfs));
  CHECK(i.code != 0);
  CHECK(i.err.find(" (this is a Git LFS pointer file, not the tensors: fetch them with `git lfs pull`)\n") !=
        std::string::npos);
  const auto json = s.text("config.json", "{\"weight_map\": {}}\n");
  const Run j = s.run("check --json " + test::shell_word(json));
  CHECK(j.out.find(R"x("hint":"this is a JSON file, not a safetensors file (a shard index must be named *.index.json)")x") !=
        std::string::npos);
  const auto good = s.file("ok.safetensors", canonical());
  CHECK(s.run("check " + test::shell_word(good)).out.find("hint") == std::string::npos);
}

namespace {

// `n` marker tensors without their layers' weights: one CQ-MARKER-ORPHAN each.
std::vector<std::uint8_t> orphans(std::size_t n) {
  const std::string marker = R"({"format": "float8_e4m3fn"})";
  const std::vector<std::uint8_t> bytes(marker.begin(), marker.end());
  std::vector<TensorView> tensors;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < n; ++i) names.push_back("l" + std::to_string(i) + ".comfy_quant");
  for (const std::string& name : names) tensors.push_back({name, Dtype::U8, {bytes.size()}, bytes});
  auto file = serialize(tensors, std::nullopt);
  REQUIRE(file.ok());
  return file.value();
}

std::size_t count(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("reports (issue 11): quant findings are bounded like every rule, each rule id once per outcome", "[reports]") {
  Scratch s;
  const auto p = s.file("orphans.safetensors", orphans(1003));
  const Run r = s.run("check --verbose " + test::shell_word(p));
  CHECK(count(r.out, " CQ-MARKER-ORPHAN at ") == 1001);
  CHECK(r.out.find("  warning CQ-MARKER-ORPHAN at file: found 3 more findings of this rule beyond the 1000 listed\n") !=
        std::string::npos);
  // Without --verbose the text folds them: two in full, then the count.
  const Run folded = s.run("check " + test::shell_word(p));
  CHECK(count(folded.out, " CQ-MARKER-ORPHAN at ") == 3);  // and the count line, never folded
  CHECK(folded.out.find("          and 998 more CQ-MARKER-ORPHAN warnings at layer ") != std::string::npos);
  CHECK(folded.out.find("  warning CQ-MARKER-ORPHAN at file: found 3 more findings of this rule beyond the 1000 "
                        "listed\n") != std::string::npos);
  const Run j = s.run("check --json " + test::shell_word(p));
  const Json doc = parse_json(j.out);
  std::size_t listed = 0;
  for (const auto& kv : doc["files"].at(0)["consumers"].members())
    for (const char* key : {"mis_loads", "warns"}) {
      std::vector<std::string_view> ids;
      for (Json id : kv.value[key]) ids.push_back(std::string_view(id));
      INFO(kv.key << " " << key);
      CHECK(std::set<std::string_view>(ids.begin(), ids.end()).size() == ids.size());
      listed += ids.size();
    }
  CHECK(listed > 0);
}

TEST_CASE("reports (issue 11): a mis-load fails the consumer's profile, --fail-on chooses", "[reports]") {
  Scratch s;
  // ComfyUI loads it and casts the weight without its scale (README's table: "loads, mis-loads").
  const std::string unmarked = test::shell_word((test::vectors_dir().parent_path() / "examples" / "quant" /
                                       "fp8_unmarked.safetensors").string());
  CHECK(s.run("check --profile comfyui " + unmarked).code == 1);
  CHECK(s.run("check --profile comfyui --fail-on misload " + unmarked).code == 1);
  CHECK(s.run("check --profile comfyui --fail-on error " + unmarked).code == 0);
  CHECK(s.run("check --profile kitchen " + unmarked).code == 0);
  const Run json = s.run("check --json --profile comfyui " + unmarked);
  CHECK(json.out.find(R"("ok":false)") != std::string::npos);
  CHECK(s.run("check --fail-on sometimes " + unmarked).code == 2);
  const auto good = s.file("ok.safetensors", canonical());
  CHECK(s.run("check --fail-on warning " + test::shell_word(good)).code == 0);
  const auto gap_file = s.file("gap.safetensors", gap());
  CHECK(s.run("check --profile sglang --fail-on warning " + test::shell_word(gap_file)).code == 1);
}

TEST_CASE("reports (issue 11): a consumer that rejects the checkpoint has no mis-loads", "[reports]") {
  Scratch s;
  const auto quant = test::vectors_dir().parent_path() / "examples" / "quant";
  // Read together: ComfyUI mis-loads the first and rejects the second's marker.
  const Run r = s.run("check --json --checkpoint " + test::shell_word((quant / "fp8_unmarked.safetensors").string()) + " " +
                      test::shell_word((quant / "marker_not_json.safetensors").string()));
  const Json doc = parse_json(r.out);
  // The checkpoint's own report carries ComfyUI's verdict; its files show only their own.
  std::size_t judged = 0;
  for (Json file : doc["files"]) {
    const Json comfyui = file["consumers"]["comfyui"];
    if (!comfyui.exists()) {
      CHECK(file["files"].size() == 0);
      CHECK(!file["checkpoint"].is_null());
      continue;
    }
    ++judged;
    CHECK(file["files"].size() == 2);
    CHECK(bool(comfyui["loads"]) == false);
    CHECK(std::string_view(comfyui["error"]) == "JSONDecodeError");
    CHECK(comfyui["mis_loads"].size() == 0);
  }
  CHECK(judged == 1);
}

TEST_CASE("reports (issue 11): inspect reports a truncated file", "[reports]") {
  Scratch s;
  const auto p = s.file("short.safetensors", gen::file_with_header(kTest + "    ", 8));
  const Run r = s.run("inspect " + test::shell_word(p));
  CHECK(r.out == "header length 64 bytes, data 8 bytes, 1 tensors\n  'test' I32 [2,2] bytes=16 offsets=[0, 16]\n"
                 "truncated: ST-BUFFER-TRUNCATED at byte 80: expected a byte buffer of 16 bytes (the last tensor's end), "
                 "found 8 bytes: the file is 8 bytes short\n"
                 // The summary: every consumer rejects the file for that one cause.
                 "summary: 1 tensor, 4 parameters, 16 bytes\n  I32: 1 tensor, 4 parameters, 16 bytes\n"
                 "layers by prefix: 1\n  (no prefix): 1 tensor (test), 4 parameters, 16 bytes\n"
                 "verdicts (header rules only; `safespec check --data` adds the value rules):\n"
                 "  safetensors: rejects by ST-BUFFER-TRUNCATED at byte 80 (MetadataIncompleteBuffer: incomplete metadata, file not fully covered)\n"
                 "  sglang: rejects by ST-BUFFER-TRUNCATED at byte 80 (SafetensorError: Error while deserializing header: incomplete metadata, file not fully covered)\n"
                 "  comfyui: rejects by ST-BUFFER-TRUNCATED at byte 80 (SafetensorError: Error while deserializing header: incomplete metadata, file not fully covered)\n"
                 "  kitchen: rejects by ST-BUFFER-TRUNCATED at byte 80 (SafetensorError: Error while deserializing header: incomplete metadata, file not fully covered)\n"
                 "metadata keys: none\n");
  const Run j = s.run("inspect --json " + test::shell_word(p));
  CHECK(j.out.ends_with(R"x(,"truncated":{"rule":"ST-BUFFER-TRUNCATED","where":"byte 80","place":{"kind":"byte","name":null,"field":null,"path":[],"byte":80},"message":"expected a byte buffer of 16 bytes (the last tensor's end), found 8 bytes: the file is 8 bytes short"}})x"
                        "\n"));
  const auto good = s.file("ok.safetensors", canonical());
  CHECK(s.run("inspect --json " + test::shell_word(good)).out.ends_with(",\"truncated\":null}\n"));
}
