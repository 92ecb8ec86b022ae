// The command-line contract (cli/): exit status 0 / 1 / 2,
// the --json document, profiles, inspect, rules and --help.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gen/file_bytes.hpp"
#include "props/catch.hpp"
#include "props/json_support.hpp"
#include "props/unit_support.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/io/writer.hpp"

using namespace safespec;
using test::Json;
using test::parse_json;
using test::Run;
namespace fs = std::filesystem;

namespace {

struct Scratch : test::TempDir {
  Scratch() : TempDir("safespec_unit_cli") {}
  std::string file(const std::string& name, const std::vector<std::uint8_t>& bytes) const {
    std::ofstream(dir / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return (dir / name).string();
  }
  std::string text(const std::string& name, std::string_view t) const {
    std::ofstream(dir / name, std::ios::binary) << t;
    return (dir / name).string();
  }
  Run run(const std::string& args) const { return test::run_cli(dir.string(), args); }
};

std::string quoted(const std::string& p) { return "'" + p + "'"; }

const std::string kCliTest = R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}})";
std::vector<std::uint8_t> canonical() { return gen::file_with_header(kCliTest + "    ", 16); }                     // N = 64
// N = 56, so the strict profile adds no ST-HEADER-UNALIGNED warning.
// A W4A8 layer as ComfyUI's writer leaves it: no "convrot" key (G1). sglang
// refuses it; ComfyUI and comfy-kitchen load it (K = 256, C = 256, G = 16).
// `scale` is the first byte of every weight_s_channel value (0x7f: NaN).
std::vector<std::uint8_t> w4a8(std::string_view marker, std::uint8_t scale = 0x3f) {
  const std::string m(marker);
  std::vector<std::uint8_t> q(m.begin(), m.end()), w(2 * 128, 0x11), srel(2 * 16, 0x38), sch(2 * 4, 0);
  sch[3] = sch[7] = scale;
  sch[2] = sch[6] = scale == 0x7f ? 0xc0 : 0x80;
  auto bytes = serialize({{"blk.comfy_quant", Dtype::U8, {q.size()}, q},
                          {"blk.weight", Dtype::I8, {2, 128}, w},
                          {"blk.weight_s_rel", Dtype::F8_E4M3, {2, 16}, srel},
                          {"blk.weight_s_channel", Dtype::F32, {2}, sch}},
                         std::nullopt);
  REQUIRE(bytes.ok());
  return bytes.value();
}
constexpr std::string_view kComfyW4a8 = R"({"format": "asym_w4a8_int8", "group_size": 16, "convrot_groupsize": 256})";

std::vector<std::uint8_t> gap() { return gen::file_with_header(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}   )", 2); }

}  // namespace

TEST_CASE("CLI (F1-F13): a valid file exits 0 with an exact text report") {
  Scratch s;
  const auto p = s.file("ok.safetensors", canonical());
  const Run r = s.run("check " + quoted(p));
  CHECK(r.code == 0);
  CHECK(r.out == p + ": OK (0 errors, 0 warnings, profile strict)\n  verdict safetensors: loads\n"
                     "  verdict sglang: loads (config None)\n  verdict comfyui: loads\n  verdict kitchen: loads\n");
  CHECK(r.err.empty());
}

TEST_CASE("CLI (ST-OFFSET-GAP, F8): error findings exit 1", "[ST-OFFSET-GAP]") {
  Scratch s;
  const auto p = s.file("gap.safetensors", gap());
  const Run r = s.run("check --profile safetensors " + quoted(p));
  CHECK(r.code == 1);
  const std::string msg = "expected data_offsets begin 0 (where the byte buffer starts), found 1: a gap of 1 byte";
  // sglang, ComfyUI and comfy-kitchen open the file with the reference
  // reader, so its error is theirs, wrapped by the Python binding (§5).
  const std::string wrapped = "SafetensorError: Error while deserializing header: invalid offset for tensor `a`";
  // Every consumer rejects it the same way: one verdict line, not four.
  CHECK(r.out == p + ": FAIL (1 error, 0 warnings, profile safetensors)\n  error   ST-OFFSET-GAP at tensor 'a': " + msg +
                     " [reference: InvalidOffset] [sglang: rejects, comfyui: rejects, kitchen: rejects]\n"
                     "          fix: pack the tensors' data back to back (rewrite the file with a safetensors writer)\n"
                     "  verdict all consumers: reject (safetensors: InvalidOffset: invalid offset for tensor `a`; sglang, "
                     "comfyui, kitchen: " + wrapped + ")\n"
                     // ComfyUI's own parser walks data_offsets and never looks at the gap.
                     "  verdict comfyui (dynamic-vram): loads\n"
                     "  verdict comfyui (dynamic-vram-6db4fa2): loads\n");
  // The mode picked with --consumer decides the verdict line, the profile and the exit status.
  const Run dv = s.run("check --profile comfyui --consumer comfyui=dynamic-vram " + quoted(p));
  CHECK(dv.code == 0);
  CHECK(dv.out.find("  verdict comfyui (dynamic-vram): loads\n  verdict kitchen: rejects") != std::string::npos);
  CHECK(dv.out.find("  verdict comfyui (safe-open): rejects (SafetensorError: Error while deserializing header: "
                    "invalid offset for tensor `a`)\n") != std::string::npos);
  const Run bad = s.run("check --consumer comfyui=nightly " + quoted(p));
  CHECK(bad.code == 2);
  CHECK(bad.err.find("expected a version of comfyui, one of safe-open, dynamic-vram, dynamic-vram-6db4fa2, found "
                     "'nightly'") != std::string::npos);
}

TEST_CASE("CLI (W5): warnings alone exit 0", "[ST-HEADER-UNALIGNED]") {
  Scratch s;
  const auto p = s.file("n60.safetensors", gen::file_with_header(kCliTest, 16));
  const Run r = s.run("check " + quoted(p));
  CHECK(r.code == 0);
  CHECK(r.out.find("ST-HEADER-UNALIGNED") != std::string::npos);
}

TEST_CASE("CLI (F1): missing path, directory, device and FIFO exit 2") {
  Scratch s;
  const std::string fifo = (s.dir / "pipe").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  struct Case { std::string path; std::string why; };
  const std::vector<Case> cases{{(s.dir / "missing.safetensors").string(), "cannot open: No such file or directory"},
                                {s.dir.string(), "expected a regular file, found a directory"},
                                {"/dev/null", "expected a regular file, found a device"},
                                {fifo, "expected a regular file, found a FIFO"}};
  for (const Case& c : cases) {
    INFO(c.path);
    const Run r = s.run("check " + quoted(c.path));
    CHECK(r.code == 2);
    CHECK(r.out == c.path + ": cannot check: " + c.why + "\n");
    CHECK(r.err.empty());  // each I/O error is printed once, in the report
    const Run j = s.run("check --json " + quoted(c.path));
    CHECK(j.code == 2);
    CHECK(j.out.find(",\"error\":") != std::string::npos);
    CHECK(j.err.empty());
  }
  // An I/O error outranks findings in other files.
  const auto bad = s.file("gap.safetensors", gap());
  CHECK(s.run("check " + quoted(bad) + " " + quoted(cases[0].path)).code == 2);
  CHECK(s.run("inspect " + quoted(cases[0].path)).code == 2);
  CHECK(s.run("inspect " + quoted(fifo)).code == 2);
}

TEST_CASE("CLI (F1-F13): usage errors exit 2") {
  Scratch s;
  const auto p = s.file("ok.safetensors", canonical());
  for (const std::string& args : {std::string(""), std::string("check"), std::string("frobnicate"),
                                  "check --profile bogus " + quoted(p), "check --bogus " + quoted(p),
                                  std::string("inspect"), "inspect " + quoted(p) + " " + quoted(p)}) {
    INFO(args);
    const Run r = s.run(args);
    CHECK(r.code == 2);
    CHECK_FALSE(r.err.empty());
  }
}

TEST_CASE("CLI (F1-F13): --help exits 0 on every subcommand") {
  Scratch s;
  for (const std::string args : {"--help", "check --help", "inspect --help", "rules --help", "-h", "check -h"}) {
    INFO(args);
    const Run r = s.run(args);
    CHECK(r.code == 0);
    CHECK(r.out.find("Usage") != std::string::npos);
  }
}

TEST_CASE("CLI (ST-*, §5): --json has the documented keys: files path ok findings rule severity where message reference") {
  Scratch s;
  const auto good = s.file("ok.safetensors", canonical());
  const auto bad = s.file("gap.safetensors", gap());
  const Run r = s.run("check --json " + quoted(good) + " " + quoted(bad));
  CHECK(r.code == 1);
  const Json doc = parse_json(r.out);
  CHECK(std::string_view(doc["profile"]) == "strict");
  Json files = doc["files"];
  REQUIRE(files.size() == 2);
  Json f0 = files.at(0), f1 = files.at(1);
  CHECK(std::string_view(f0["path"]) == good);
  CHECK(bool(f0["ok"]) == true);
  CHECK(f0["findings"].size() == 0);
  CHECK(std::string_view(f1["path"]) == bad);
  CHECK(bool(f1["ok"]) == false);
  Json findings = f1["findings"];
  REQUIRE(findings.size() == 1);
  Json g = findings.at(0);
  CHECK(std::string_view(g["rule"]) == "ST-OFFSET-GAP");
  CHECK(std::string_view(g["severity"]) == "error");
  CHECK(std::string_view(g["where"]) == "tensor 'a'");
  CHECK(std::string_view(g["message"]).starts_with("expected data_offsets begin 0"));
  CHECK(std::string_view(g["reference"]) == "InvalidOffset");
  CHECK(bool(f1["consumers"]["safetensors"]["loads"]) == false);
  CHECK(std::string_view(f1["consumers"]["safetensors"]["error"]) == "InvalidOffset");
}

TEST_CASE("CLI (ST-*): --json reports an unreadable file with an error and ok false") {
  Scratch s;
  const std::string missing = (s.dir / "missing.safetensors").string();
  const Run r = s.run("check --json " + quoted(missing));
  CHECK(r.code == 2);
  const Json doc = parse_json(r.out);
  Json f = doc["files"].at(0);
  CHECK(bool(f["ok"]) == false);
  CHECK(std::string_view(f["error"]) == "cannot open: No such file or directory");
}

TEST_CASE("CLI (ST-*): --json stays JSON for a path that is not UTF-8") {
  Scratch s;
  const std::string odd = (s.dir / "bad\xff.safetensors").string();
  const Run r = s.run("check --json " + quoted(odd));
  CHECK(r.code == 2);
  const Json doc = parse_json(r.out);
  const Json file = doc["files"].at(0);
  const std::string_view path = std::string_view(file["path"]);
  CHECK(path.ends_with("bad\xef\xbf\xbd.safetensors"));  // U+FFFD
}

TEST_CASE("CLI (X3, W5): --profile safetensors drops strict-only findings") {
  Scratch s;
  const std::string a = R"({"dtype":"U8","shape":[1],"data_offsets":[0,1]})";
  const auto p = s.file("dup.safetensors", gen::file_with_header(R"({"a":)" + a + R"(,"a":)" + a + "}", 1));
  const Run strict = s.run("check " + quoted(p));
  CHECK(strict.code == 1);
  CHECK(strict.out.find("ST-DUPLICATE-TENSOR") != std::string::npos);
  CHECK(strict.out.find("verdict safetensors: loads") != std::string::npos);
  const Run ref = s.run("check --profile safetensors " + quoted(p));
  CHECK(ref.code == 0);
  CHECK(ref.out.starts_with(p + ": OK (0 errors, 0 warnings, profile safetensors)\n  verdict safetensors: loads\n"));
}

TEST_CASE("CLI (F1-F13): inspect lists tensors, --json too, parse errors exit 1") {
  Scratch s;
  const auto p = s.file("ok.safetensors", canonical());
  const Run r = s.run("inspect " + quoted(p));
  CHECK(r.code == 0);
  // The listing, then the summary of the checkpoint.
  CHECK(r.out == "header length 64 bytes, data 16 bytes, 1 tensors\n  'test' I32 [2,2] bytes=16 offsets=[0, 16]\n"
                 "summary: 1 tensor, 4 parameters, 16 bytes\n  I32: 1 tensor, 4 parameters, 16 bytes\n"
                 "layers by prefix: 1\n  (no prefix): 1 tensor (test), 4 parameters, 16 bytes\n"
                 "verdicts (header rules only; `safespec check --data` adds the value rules):\n"
                 "  safetensors: loads\n  sglang: loads\n  comfyui: loads\n  kitchen: loads\nmetadata keys: none\n");
  const Run j = s.run("inspect --json " + quoted(p));
  CHECK(j.code == 0);
  const Json doc = parse_json(j.out);
  CHECK(std::string_view(doc["path"]) == p);
  CHECK(std::uint64_t(doc["file_size"]) == 88);
  CHECK(std::uint64_t(doc["header_length"]) == 64);
  Json t = doc["tensors"].at(0);
  CHECK(std::string_view(t["name"]) == "test");
  CHECK(std::string_view(t["dtype"]) == "I32");
  CHECK(std::uint64_t(t["bytes"]) == 16);
  CHECK(doc["metadata"].is_null());

  const auto bad = s.file("bad.safetensors", gen::file_with_header("\xFF"));
  const Run b = s.run("inspect " + quoted(bad));
  CHECK(b.code == 1);
  CHECK(b.err == "safespec: " + bad +
                     ": ST-HEADER-UTF8 at byte 8: expected UTF-8 header text, found an invalid sequence starting with byte 0xff\n");
}

TEST_CASE("CLI (ST-*): rules lists the catalogue, as text and as JSON") {
  Scratch s;
  const Run r = s.run("rules");
  CHECK(r.code == 0);
  for (const RuleInfo& info : rule_catalogue()) {
    INFO(info.name);
    CHECK(r.out.find(std::string(info.name) + " ") != std::string::npos);
  }
  const Run j = s.run("rules --json");
  CHECK(j.code == 0);
  const Json doc = parse_json(j.out);
  Json rules = doc["rules"];
  REQUIRE(rules.size() == rule_catalogue().size());
  std::size_t i = 0;
  for (Json e : rules) {
    const RuleInfo& info = rule_catalogue()[i++];
    CHECK(std::string_view(e["id"]) == info.name);
    CHECK(std::string_view(e["rule_number"]) == info.rule_number);
    CHECK(std::string_view(e["reference"]) == (info.reference.empty() ? "accepts" : info.reference));
    CHECK(std::string_view(e["severity"]) == (info.severity == Severity::Error ? "error" : "warning"));
    CHECK(std::string_view(e["description"]) == info.description);
  }
}

TEST_CASE("CLI (ST-INDEX-*): a shard index path checks the shards, exit 1 on an index finding") {
  Scratch s;
  s.file("s1.safetensors", canonical());
  const auto good = s.text("good.index.json", R"({"metadata":{"total_size":16},"weight_map":{"test":"s1.safetensors"}})");
  const Run ok = s.run("check " + quoted(good));
  CHECK(ok.code == 0);
  CHECK(ok.out.starts_with(good + ": OK (0 errors, 0 warnings, profile strict)\n"));
  CHECK(ok.out.find((s.dir / "s1.safetensors").string() + ": OK") != std::string::npos);
  const auto bad = s.text("bad.index.json", R"({"weight_map":{"test":"s1.safetensors","x":"s1.safetensors"}})");
  const Run r = s.run("check --profile safetensors " + quoted(bad));
  CHECK(r.code == 1);
  CHECK(r.out.find("ST-INDEX-TENSOR-MISSING at tensor 'x'") != std::string::npos);
}

TEST_CASE("CLI (CQ-W4A8-CONVROT, S12.3, G1): --profile sglang gives sglang's verdict and exact message",
          "[CQ-W4A8-CONVROT]") {
  Scratch s;
  const auto p = s.file("w4a8.safetensors", w4a8(kComfyW4a8));
  const std::string msg = "Serialized W4A8 layer 'blk' must set convrot=true";
  const Run sg = s.run("check --profile sglang " + quoted(p));
  CHECK(sg.code == 1);
  CHECK(sg.out.find("error   CQ-W4A8-CONVROT at layer 'blk': " + msg) != std::string::npos);
  CHECK(sg.out.find("  verdict sglang: rejects (ValueError: " + msg + ")\n") != std::string::npos);
  CHECK(s.run("check --profile comfyui " + quoted(p)).code == 0);
  CHECK(s.run("check --profile kitchen " + quoted(p)).code == 0);
  CHECK(s.run("check --profile safetensors " + quoted(p)).code == 0);
  CHECK(s.run("check " + quoted(p)).code == 1);  // strict: the union
  const auto fixed = s.file("fixed.safetensors", w4a8(R"({"format": "asym_w4a8_int8", "convrot": true})"));
  const Run ok = s.run("check --profile sglang " + quoted(fixed));
  CHECK(ok.code == 0);
  CHECK(ok.out.find("  verdict sglang: loads (config KitchenW4A8Config)\n") != std::string::npos);
}

TEST_CASE("CLI (issue 3): every JSON file object has the four consumers, whatever the profile") {
  Scratch s;
  const auto p = s.file("w4a8.safetensors", w4a8(kComfyW4a8));
  for (const char* profile : {"strict", "safetensors", "sglang", "comfyui", "kitchen"}) {
    INFO(profile);
    const Run r = s.run(std::string("check --json --profile ") + profile + " " + quoted(p));
    const Json doc = parse_json(r.out);
    const Json c = doc["files"].at(0)["consumers"];
    CHECK(bool(c["safetensors"]["loads"]));
    CHECK_FALSE(bool(c["sglang"]["loads"]));
    CHECK(std::string_view(c["sglang"]["error"]) == "ValueError");
    CHECK(std::string_view(c["sglang"]["message"]) == "Serialized W4A8 layer 'blk' must set convrot=true");
    CHECK(bool(c["comfyui"]["loads"]));
    CHECK(bool(c["kitchen"]["loads"]));
  }
  const Run strict = s.run("check --json " + quoted(p));
  const Json doc = parse_json(strict.out);
  bool found = false;
  for (Json f : doc["files"].at(0)["findings"])
    if (std::string_view(f["rule"]) == "CQ-W4A8-CONVROT") {
      found = true;
      CHECK(std::string_view(f["consumers"]["sglang"]) == "rejects");
    }
  CHECK(found);
}

TEST_CASE("CLI (CQ-DATA-SCALE): --data reads tensor values, without it they are not checked", "[CQ-DATA-SCALE]") {
  Scratch s;
  const auto p = s.file("nan.safetensors", w4a8(R"({"format": "asym_w4a8_int8", "convrot": true})", 0x7f));
  CHECK(s.run("check " + quoted(p)).code == 0);
  const Run r = s.run("check --data " + quoted(p));
  CHECK(r.code == 1);
  CHECK(r.out.find("CQ-DATA-SCALE at tensor 'blk.weight_s_channel'") != std::string::npos);
  CHECK(r.out.find("verdict sglang: loads (config KitchenW4A8Config); mis-loads: CQ-DATA-SCALE") != std::string::npos);
}

TEST_CASE("CLI (S6.3, G27): --checkpoint reads loose paths as one checkpoint, alone they are separate") {
  Scratch s;
  const std::string q(R"({"format": "int8_tensorwise", "convrot": true, "convrot_groupsize": 16})");
  std::vector<std::uint8_t> qb(q.begin(), q.end()), w(4 * 16, 1), sc(4, 0);
  sc[3] = 0x3f;
  sc[2] = 0x80;
  const auto m = serialize({{"blk.comfy_quant", Dtype::U8, {qb.size()}, qb}}, std::nullopt);
  const auto t = serialize({{"blk.weight", Dtype::I8, {4, 16}, w}, {"blk.weight_scale", Dtype::F32, {}, sc}}, std::nullopt);
  REQUIRE((m.ok() && t.ok()));
  const auto pm = s.file("markers.safetensors", m.value());
  const auto pt = s.file("weights.safetensors", t.value());
  const Run together = s.run("check --checkpoint --profile sglang " + quoted(pm) + " " + quoted(pt));
  CHECK(together.code == 0);
  CHECK(together.out.find("verdict sglang: loads (config KitchenInt8Config)") != std::string::npos);
  const Run apart = s.run("check --profile sglang " + quoted(pm) + " " + quoted(pt));
  CHECK(apart.code == 1);
  CHECK(apart.out.find("Quantized weights are missing comfy_quant metadata: ['blk']") != std::string::npos);
  CHECK(s.run("check --separate --profile sglang " + quoted(pm) + " " + quoted(pt)).out == apart.out);
  // A shard series is one checkpoint, and so is a directory given as the path.
  const auto s1 = s.file("model-00001-of-00002.safetensors", m.value());
  const auto s2 = s.file("model-00002-of-00002.safetensors", t.value());
  const Run series = s.run("check --profile sglang " + quoted(s1) + " " + quoted(s2));
  CHECK(series.code == 0);
  CHECK(series.out.find("verdict sglang: loads (config KitchenInt8Config)") != std::string::npos);
  CHECK(s.run("check --separate --profile sglang " + quoted(s1) + " " + quoted(s2)).code == 1);
  // A shard index is one checkpoint too.
  const auto index = s.text("model.safetensors.index.json",
                            R"({"weight_map":{"blk.comfy_quant":"markers.safetensors","blk.weight":"weights.safetensors",)"
                            R"("blk.weight_scale":"weights.safetensors"}})");
  const Run sharded = s.run("check --profile sglang " + quoted(index));
  CHECK(sharded.code == 0);
  CHECK(sharded.out.find("verdict sglang: loads (config KitchenInt8Config)") != std::string::npos);
}

TEST_CASE("CLI (issue 3): table prints one row per file and each rejection's message, exit 0") {
  Scratch s;
  const auto p = s.file("w4a8.safetensors", w4a8(kComfyW4a8));
  const auto g = s.file("gap.safetensors", gap());
  const Run r = s.run("table --separate " + quoted(p) + " " + quoted(g));
  CHECK(r.code == 0);
  CHECK(r.out.starts_with("file"));
  CHECK(r.out.find(p + ": sglang: ValueError: Serialized W4A8 layer 'blk' must set convrot=true\n") != std::string::npos);
  CHECK(r.out.find(g + ": sglang, comfyui, kitchen: SafetensorError: Error while deserializing header: invalid offset for tensor `a`\n") !=
        std::string::npos);
  CHECK(s.run("table " + quoted((s.dir / "missing.safetensors").string())).code == 2);
}

TEST_CASE("CLI (S13.3, S19): table and check say when sglang's verdict rests on a layer kind, and --layer settles it") {
  Scratch s;
  const std::string path = (test::vectors_dir().parent_path() / "examples" / "quant" / "w4a8_int8_embedding_valid.safetensors").string();
  const Run table = s.run("table " + quoted(path));
  CHECK(table.out.find("loads (KitchenW4A8Config), if embedding") != std::string::npos);
  CHECK(table.out.find(path + ": sglang: loads if 'model.embed_tokens' is an embedding layer; otherwise ValueError: "
                              "Unsupported quantized linear marker for 'model.embed_tokens' (settle it with --layer)\n") !=
        std::string::npos);
  const Run linear = s.run("check --profile sglang --layer model.embed_tokens=linear " + quoted(path));
  CHECK(linear.code == 1);
  CHECK(linear.out.find("verdict sglang: rejects (ValueError: Unsupported quantized linear marker for 'model.embed_tokens')") !=
        std::string::npos);
  const Run embedding = s.run("check --profile sglang --layer model.embed_tokens=embedding --json " + quoted(path));
  CHECK(embedding.code == 0);
  CHECK(embedding.out.find("\"assumes\":[]") != std::string::npos);
  const Run assumed = s.run("check --profile sglang --json " + quoted(path));
  CHECK(assumed.out.find("\"assumes\":[{\"layer\":\"model.embed_tokens\",\"kind\":\"embedding\"") != std::string::npos);
}

TEST_CASE("CLI (ST-INDEX-SHARD-MISSING): a shard the index lists but that does not exist stops every Python consumer",
          "[ST-INDEX-SHARD-MISSING]") {
  Scratch s;
  const std::string suite = (test::vectors_dir().parent_path() / "conformance").string();
  const Run r = s.run("check --profile sglang " +
                      quoted(suite + "/reject_ST-INDEX-SHARD-MISSING_third_shard/model.safetensors.index.json"));
  CHECK(r.code == 1);
  const std::string m = "FileNotFoundError: No such file or directory: " + suite +
                        "/reject_ST-INDEX-SHARD-MISSING_third_shard/model-00003-of-00003.safetensors";
  CHECK(r.out.find("verdict sglang: rejects (" + m + ")") != std::string::npos);
  CHECK(r.out.find("verdict comfyui: rejects (" + m + ")") != std::string::npos);
  CHECK(r.out.find("verdict kitchen: rejects (" + m + ")") != std::string::npos);
  CHECK(r.out.find("verdict sglang: loads") == std::string::npos);
}

TEST_CASE("CLI (S11): a finding about the whole checkpoint names the checkpoint, not its first file") {
  Scratch s;
  const std::string quant = (test::vectors_dir().parent_path() / "examples" / "quant").string();
  const std::string mixed = quant + "/mixed_w4a8_fp8.safetensors";
  CHECK(s.run("check " + quoted(mixed)).out.find("CQ-SGLANG-FORMATS at checkpoint '" + mixed + "':") != std::string::npos);
  const std::string other = quant + "/w4a8_valid.safetensors";
  const Run both = s.run("check --checkpoint " + quoted(other) + " " + quoted(mixed));
  CHECK(both.out.find("CQ-SGLANG-FORMATS at checkpoint of '" + other + "', '" + mixed + "':") != std::string::npos);
}
