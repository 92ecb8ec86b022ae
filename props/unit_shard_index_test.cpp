// Sharded checkpoints: model.safetensors.index.json against its shards
// (spec/index_rules.hpp, src/parse/shard_index.hpp), each ST-INDEX-* rule exactly.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "gen/layout.hpp"
#include "props/catch.hpp"
#include "spec/index_rules.hpp"
#include "spec/limits.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/commands/check.hpp"
#include "src/commands/inspect.hpp"
#include "src/parse/plain_index.hpp"
#include "src/parse/shard_index.hpp"
#include "src/io/writer.hpp"

using namespace safespec;
namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<std::uint8_t>;

std::vector<std::string> shard_lines(const Findings& fs) {
  std::vector<std::string> out;
  for (const Finding& f : fs) out.push_back(std::string(rule_name(f.rule)) + " | " + f.where.text() + " | " + f.message);
  return out;
}

// A scratch directory holding shards and an index; removed at scope exit.
struct Checkpoint {
  fs::path dir;
  explicit Checkpoint(const std::string& tag) {
    static int counter = 0;
    dir = fs::temp_directory_path() /
          ("safespec_unit_index_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(++counter));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Checkpoint() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  // A shard of U8 tensors, each `size` bytes.
  void shard(const std::string& name, const std::vector<std::pair<std::string, std::size_t>>& tensors) {
    std::vector<Bytes> data;
    data.reserve(tensors.size());
    std::vector<TensorView> views;
    for (const auto& [t, size] : tensors) {
      data.emplace_back(size, 0);
      views.push_back(TensorView{t, Dtype::U8, {size}, data.back()});
    }
    auto bytes = serialize(views, std::nullopt);
    REQUIRE(bytes.ok());
    REQUIRE(write_file((dir / name).string(), bytes.value()).ok());
  }
  void raw(const std::string& name, std::string_view text) { std::ofstream(dir / name, std::ios::binary) << text; }
  std::string index(std::string_view json) {
    raw("model.safetensors.index.json", json);
    return (dir / "model.safetensors.index.json").string();
  }
  std::vector<FileReport> check(std::string_view json, Profile p = Profile::Strict) {
    HeaderParser parser;
    return check_shard_index(index(json), p, parser);
  }
};

std::vector<std::string> index_findings(Checkpoint& c, std::string_view json) {
  const auto reports = c.check(json);
  REQUIRE_FALSE(reports.empty());
  CHECK_FALSE(reports[0].io_error.has_value());
  return shard_lines(reports[0].findings);
}

// parse_shard_index's error, the same whichever reader decided (the plain
// reader or simdjson's DOM, src/parse/plain_index.hpp).
void require_index_json(std::string_view text, std::string_view where, std::string_view message) {
  INFO(text);
  const auto r = parse_shard_index(text);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().rule == RuleId::IndexJson);
  CHECK(r.error().where.text() == where);
  CHECK(r.error().message == message);
  const auto dom = parse_shard_index_dom(text);
  REQUIRE_FALSE(dom.ok());
  CHECK(dom.error() == r.error());
}

}  // namespace

TEST_CASE("ST-INDEX-* (index): a consistent index and shards give no finding") {
  Checkpoint c("valid");
  c.shard("s1.safetensors", {{"a", 1}});
  c.shard("s2.safetensors", {{"b", 2}, {"c", 0}});
  const auto reports = c.check(
      R"({"metadata":{"total_size":3},"weight_map":{"a":"s1.safetensors","b":"s2.safetensors","c":"s2.safetensors"}})");
  REQUIRE(reports.size() == 3);
  CHECK(reports[0].findings.empty());
  CHECK(reports[0].ok());
  CHECK(reports[1].path == (c.dir / "s1.safetensors").string());
  CHECK(reports[2].path == (c.dir / "s2.safetensors").string());
  CHECK(reports[1].ok());
  CHECK(reports[2].ok());
  HeaderParser parser;
  CHECK(is_index_path(c.index("{}")));
  CHECK_FALSE(is_index_path("model.safetensors"));
  CHECK_FALSE(is_index_path("index.json"));
}

TEST_CASE("ST-INDEX-JSON (index): malformed indexes, exact where and message", "[ST-INDEX-JSON]") {
  require_index_json("[]", "index", "expected a JSON object at the top level");
  require_index_json("{}", "weight_map", "expected a weight_map object mapping tensor names to shard files");
  require_index_json(R"({"weight_map":[]})", "weight_map", "expected a weight_map object mapping tensor names to shard files");
  require_index_json(R"({"weight_map":{"a":1}})", "weight_map['a']", "expected a shard file name string");
  require_index_json(R"({"weight_map":{"a":"s","a":"s"}})", "weight_map['a']", "expected each tensor once, found it twice");
  require_index_json(R"({"metadata":{"total_size":"3"},"weight_map":{}})", "metadata.total_size",
                     "expected an integer byte count");
  require_index_json(R"({"metadata":{"total_size":-1},"weight_map":{}})", "metadata.total_size",
                     "expected an integer byte count");
  // Text that is no JSON document is refused as such, also when an entry
  // before the fault would be refused (the document is parsed whole first).
  for (const char* broken : {"{", R"({"weight_map":{"a":"../x"},})", R"({"weight_map":{"a":"s","a":"s"}} x)",
                             R"({"weight_map":{"a":"s","b":1,"c":"s\x"}})"}) {
    INFO(broken);
    const auto bad = parse_shard_index(broken);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().rule == RuleId::IndexJson);
    CHECK(bad.error().where.text() == "index");
    CHECK(bad.error().message.starts_with("expected a JSON document, found: "));
    CHECK(bad.error() == parse_shard_index_dom(broken).error());
  }
}

// Which texts the plain reader decides (src/parse/plain_index.hpp): an index as
// exporters write it, compact or indented, refused entries included; any
// other shape is left to simdjson's DOM (nullopt), which decides it as it
// always did.
TEST_CASE("ST-INDEX-JSON (index): the plain reader decides exporters' texts and leaves the rest to the DOM",
          "[ST-INDEX-JSON]") {
  const std::string indented = "{\n  \"metadata\": {\n    \"total_size\": 16,\n    \"total_parameters\": 8\n  },\n"
                               "  \"weight_map\": {\n    \"a\": \"model-00001-of-00002.safetensors\",\n"
                               "    \"b\": \"model-00002-of-00002.safetensors\"\n  }\n}\n";
  const auto plain = read_plain_index(indented);
  REQUIRE(plain.has_value());
  REQUIRE(plain->ok());
  CHECK(plain->value() == ShardIndex({{"a", "model-00001-of-00002.safetensors"}, {"b", "model-00002-of-00002.safetensors"}}, 16));
  for (const char* decided : {R"({"weight_map":{}})", R"({"weight_map":{"a":"s","a":"s"}})",
                              R"({"weight_map":{"a":"../x"}})", R"({"weight_map":{"a":""}})",
                              R"({"weight_map":{"é":"s"},"metadata":{"k":"v\n\ud83d\ude00"}})",
                              R"({"metadata":{"total_size":0},"weight_map":{}})",
                              R"({"metadata":{"total_size":18446744073709551615},"weight_map":{}})"}) {
    INFO(decided);
    const auto plain = read_plain_index(decided);
    REQUIRE(plain.has_value());
    CHECK(*plain == parse_shard_index_dom(decided));  // the same index, or the same error
  }
  for (const char* left : {"", "{}", "[]", R"({"weight_map":[]})", R"({"weight_map":{"a":1}})",
                           R"({"weight_map":{"\u0061":"s"}})", R"({"weight_map":{"a":"s\/"}})",
                           R"({"weight_map":{},"weight_map":{}})", R"({"weight_map":{},"format":"pt"})",
                           R"({"metadata":{"total_size":"3"},"weight_map":{}})", R"({"metadata":{"total_size":1.0},"weight_map":{}})",
                           R"({"metadata":{"total_size":1,"total_size":2},"weight_map":{}})",
                           R"({"metadata":null,"weight_map":{}})", R"({"metadata":{"k":[1]},"weight_map":{}})",
                           "{\"weight_map\":{}} x", "\xef\xbb\xbf{\"weight_map\":{}}", "{\"weight_map\":{\"a\x01\":\"s\"}}"}) {
    INFO(left);
    CHECK_FALSE(read_plain_index(left).has_value());
  }
}

// The first entry refused, in document order, whatever refuses it; at one
// entry, a repeated tensor before its shard path (the repeats are found all
// at once after the walk, the paths where a shard's run of entries starts).
TEST_CASE("ST-INDEX-JSON (index): the first entry refused is the one reported", "[ST-INDEX-JSON]") {
  const std::string twice = "expected each tensor once, found it twice";
  const std::string path = "expected a file name beside the index, found the path ";
  const std::string number = "expected a shard file name string";
  require_index_json(R"({"weight_map":{"a":"../x","a":"s"}})", "weight_map['a']", path + "'../x'");
  require_index_json(R"({"weight_map":{"a":"s","a":"../x"}})", "weight_map['a']", twice);
  require_index_json(R"({"weight_map":{"a":"s","b":1,"a":"s"}})", "weight_map['b']", number);
  require_index_json(R"({"weight_map":{"a":"s","a":"s","b":1}})", "weight_map['a']", twice);
  require_index_json(R"({"weight_map":{"a":"s","b":"t/","c":"s","c":"s"}})", "weight_map['b']", path + "'t/'");
  require_index_json(R"({"weight_map":{"a":"s","b":"s","c":"t/","d":"t/"}})", "weight_map['c']", path + "'t/'");
  require_index_json(R"({"weight_map":{"a":"s","b":"t","a":"t/"}})", "weight_map['a']", twice);
  require_index_json(R"({"weight_map":{"a":"s","b":"../x","c":1}})", "weight_map['b']", path + "'../x'");
}

TEST_CASE("ST-INDEX-JSON (index): a shard name with '/' or '..' is refused", "[ST-INDEX-JSON]") {
  struct Case { const char* shard; const char* quoted; };
  const auto c = GENERATE(Case{"../s1.safetensors", "'../s1.safetensors'"}, Case{"..", "'..'"}, Case{".", "'.'"},
                          Case{"sub/s1.safetensors", "'sub/s1.safetensors'"}, Case{"/etc/passwd", "'/etc/passwd'"},
                          Case{"", "''"});
  require_index_json(std::string(R"({"weight_map":{"a":")") + c.shard + "\"}}", "weight_map['a']",
                     std::string("expected a file name beside the index, found the path ") + c.quoted);
  CHECK_FALSE(is_plain_shard_name(c.shard));
  CHECK(is_plain_shard_name("model-00001-of-00002.safetensors"));
  CHECK(is_plain_shard_name("..x"));
}

TEST_CASE("ST-INDEX-JSON (index): reported on the index file's report", "[ST-INDEX-JSON]") {
  Checkpoint c("json");
  c.shard("s1.safetensors", {{"a", 1}});
  const auto reports = c.check(R"({"weight_map":{"a":"../s1.safetensors"}})");
  REQUIRE(reports.size() == 1);
  CHECK(shard_lines(reports[0].findings) ==
        std::vector<std::string>{"ST-INDEX-JSON | weight_map['a'] | expected a file name beside the index, found the path "
                                 "'../s1.safetensors'"});
  CHECK_FALSE(reports[0].ok());
}

// kMaxIndexBytes: an index is read whole, so a larger one is refused before
// any allocation, with the same finding by check and by inspect (one reader,
// read_index_file). The file is sparse: nothing of it is written or read.
TEST_CASE("ST-INDEX-JSON (index): an index over 256 MiB is refused unread by check and inspect", "[ST-INDEX-JSON]") {
  Checkpoint c("too_large");
  const std::string path = c.index("{}");
  fs::resize_file(path, kMaxIndexBytes + 1);
  const std::string message = "expected an index of at most 256 MiB, found 268435457 bytes";
  HeaderParser parser;
  const auto reports = check_shard_index(path, Profile::Strict, parser);
  REQUIRE(reports.size() == 1);
  CHECK_FALSE(reports[0].io_error.has_value());
  CHECK(shard_lines(reports[0].findings) == std::vector<std::string>{"ST-INDEX-JSON | index | " + message});
  const CommandOutcome inspect = run_inspect(InspectOptions{path, false, {}, kInspectValuesDefault});
  CHECK(inspect.exit_code == kExitFindings);
  CHECK(inspect.err == "safespec: " + path + ": ST-INDEX-JSON at index: " + message + "\n");
  // A missing index is an I/O error for both, not a finding.
  const std::string gone = (c.dir / "absent.safetensors.index.json").string();
  const auto none = check_shard_index(gone, Profile::Strict, parser);
  REQUIRE(none.size() == 1);
  CHECK(none[0].io_error.has_value());
  CHECK(none[0].findings.empty());
  CHECK(run_inspect(InspectOptions{gone, false, {}, kInspectValuesDefault}).exit_code == kExitUsage);
}

TEST_CASE("ST-INDEX-SHARD-MISSING (index): a shard that does not exist", "[ST-INDEX-SHARD-MISSING]") {
  Checkpoint c("missing");
  c.shard("s1.safetensors", {{"a", 1}});
  const auto reports = c.check(
      R"({"metadata":{"total_size":999},"weight_map":{"a":"s1.safetensors","b":"gone.safetensors"}})");
  CHECK(shard_lines(reports[0].findings) ==
        std::vector<std::string>{"ST-INDEX-SHARD-MISSING | shard 'gone.safetensors' | expected a readable safetensors "
                                 "shard, found: cannot open: No such file or directory"});
  REQUIRE(reports.size() == 2);  // the index and s1; a missing shard has no report of its own
  CHECK_FALSE(reports[0].ok());
  // total_size cannot be judged without the missing shard: unchecked, said so.
  REQUIRE(reports[0].unchecked.size() == 1);
  CHECK(reports[0].unchecked[0].what == "ST-INDEX-TOTAL-SIZE (metadata.total_size 999)");
  CHECK(reports[0].unchecked[0].why ==
        "shard 'gone.safetensors' could not be read, so the sum of the shards' sizes is unknown");
  CHECK_FALSE(reports[0].complete());
  // Without a total_size there is nothing left unchecked.
  CHECK(c.check(R"({"weight_map":{"a":"s1.safetensors","b":"gone.safetensors"}})")[0].unchecked.empty());
}

TEST_CASE("ST-INDEX-SHARD-MISSING (index): a directory, and a shard whose header does not parse",
          "[ST-INDEX-SHARD-MISSING]") {
  Checkpoint c("unreadable");
  fs::create_directory(c.dir / "d.safetensors");
  c.raw("bad.safetensors", std::string("\x01\0\0\0\0\0\0\0\xFF", 9));
  const auto reports = c.check(R"({"weight_map":{"a":"d.safetensors","b":"bad.safetensors"}})");
  CHECK(shard_lines(reports[0].findings) ==
        std::vector<std::string>{
            "ST-INDEX-SHARD-MISSING | shard 'bad.safetensors' | expected a readable safetensors shard, found: its "
            "header does not parse (see its report)",
            "ST-INDEX-SHARD-MISSING | shard 'd.safetensors' | expected a readable safetensors shard, found: expected "
            "a regular file, found a directory"});
  REQUIRE(reports.size() == 2);
  CHECK(reports[1].path == (c.dir / "bad.safetensors").string());
  REQUIRE(reports[1].findings.size() == 1);
  CHECK(reports[1].findings[0].rule == RuleId::HeaderUtf8);
}

TEST_CASE("ST-INDEX-TOTAL-SIZE (index): metadata.total_size differs from the tensors' bytes", "[ST-INDEX-TOTAL-SIZE]") {
  Checkpoint c("total");
  c.shard("s1.safetensors", {{"a", 1}});
  c.shard("s2.safetensors", {{"b", 2}});
  CHECK(index_findings(c, R"({"metadata":{"total_size":4},"weight_map":{"a":"s1.safetensors","b":"s2.safetensors"}})") ==
        std::vector<std::string>{"ST-INDEX-TOTAL-SIZE | metadata.total_size | expected the sum of the shards' tensor "
                                 "sizes, 3 bytes, found 4"});
  CHECK(index_findings(c, R"({"metadata":{"total_size":3},"weight_map":{"a":"s1.safetensors","b":"s2.safetensors"}})").empty());
  CHECK(index_findings(c, R"({"metadata":{},"weight_map":{"a":"s1.safetensors","b":"s2.safetensors"}})").empty());
}

TEST_CASE("ST-INDEX-TOTAL-SIZE (index): shards whose sizes sum past 2^64-1, summed on their threads or not",
          "[ST-INDEX-TOTAL-SIZE]") {
  // Models built directly: no file holds 2^63 bytes. Each shard alone fits
  // in 64 bits (s2's two tensors sum to 2^64 - 1), the two together do not;
  // s3 alone overflows (two tensors of 2^63 bytes over the same range).
  ShardIndex index({{"a", "s1"}, {"b", "s2"}, {"c", "s2"}, {"d", "s3"}, {"e", "s3"}}, 7);
  const auto model = [](std::vector<std::pair<std::string, std::uint64_t>> sizes) {
    Model m;
    std::uint64_t at = 0;
    for (const auto& [name, size] : sizes) {
      m.header.tensors.push_back(TensorEntry{name, Dtype::U8, {size}, at, at + size});
      at += size;
    }
    return m;
  };
  const std::uint64_t half = std::uint64_t{1} << 63;
  const std::string overflow =
      "ST-INDEX-TOTAL-SIZE | metadata.total_size | expected the sum of the shards' tensor sizes, found that it "
      "exceeds 2^64-1 bytes";
  for (const bool summed : {false, true}) {
    INFO("bytes summed beforehand: " << summed);
    ShardContents two;
    two["s1"].model = model({{"a", 1}});
    two["s2"].model = model({{"b", half}, {"c", half - 1}});
    ShardContents alone;
    alone["s3"].model = model({{"d", half}});
    alone["s3"].model->header.tensors.push_back(TensorEntry{"e", Dtype::U8, {half}, 0, half});  // overlaps d
    for (ShardContents* shards : {&two, &alone})
      for (auto& [name, state] : *shards)
        if (summed) state.bytes = shard_bytes(*state.model);
    CHECK(shard_bytes(*two["s2"].model) == ShardBytes{~std::uint64_t{0}, false});
    CHECK(shard_bytes(*alone["s3"].model).overflows);
    const auto lines = [&](const ShardContents& shards) {
      std::vector<std::string> out;
      for (const std::string& l : shard_lines(check_index(index, shards)))
        if (l.starts_with("ST-INDEX-TOTAL-SIZE")) out.push_back(l);
      return out;
    };
    CHECK(lines(two) == std::vector<std::string>{overflow});
    CHECK(lines(alone) == std::vector<std::string>{overflow});
  }
}

TEST_CASE("ST-INDEX-TENSOR-IN-TWO-SHARDS (index): one tensor in two shards", "[ST-INDEX-TENSOR-IN-TWO-SHARDS]") {
  Checkpoint c("two");
  c.shard("s1.safetensors", {{"a", 1}});
  c.shard("s2.safetensors", {{"a", 1}, {"b", 2}});
  CHECK(index_findings(c, R"({"weight_map":{"a":"s1.safetensors","b":"s2.safetensors"}})") ==
        std::vector<std::string>{"ST-INDEX-TENSOR-IN-TWO-SHARDS | tensor 'a' | expected the tensor in one shard, found "
                                 "it in 's1.safetensors' and 's2.safetensors'"});
}

TEST_CASE("ST-INDEX-TENSOR-UNLISTED (index): a shard tensor weight_map does not list", "[ST-INDEX-TENSOR-UNLISTED]") {
  Checkpoint c("unlisted");
  c.shard("s1.safetensors", {{"a", 1}, {"c", 1}});
  CHECK(index_findings(c, R"({"weight_map":{"a":"s1.safetensors"}})") ==
        std::vector<std::string>{"ST-INDEX-TENSOR-UNLISTED | tensor 'c' | expected weight_map to list the tensor of "
                                 "shard 's1.safetensors', found no entry"});
}

TEST_CASE("ST-INDEX-TENSOR-MISSING (index): weight_map names a tensor its shard lacks", "[ST-INDEX-TENSOR-MISSING]") {
  Checkpoint c("ghost");
  c.shard("s1.safetensors", {{"a", 1}});
  CHECK(index_findings(c, R"({"weight_map":{"a":"s1.safetensors","ghost":"s1.safetensors"}})") ==
        std::vector<std::string>{"ST-INDEX-TENSOR-MISSING | tensor 'ghost' | expected the tensor in shard "
                                 "'s1.safetensors' as weight_map says, found it absent there"});
}

TEST_CASE("ST-INDEX-TENSOR-UNLISTED/-MISSING (index): tensors listed in the wrong shards",
          "[ST-INDEX-TENSOR-UNLISTED][ST-INDEX-TENSOR-MISSING]") {
  Checkpoint c("swapped");
  c.shard("s1.safetensors", {{"a", 1}});
  c.shard("s2.safetensors", {{"b", 1}});
  CHECK(index_findings(c, R"({"weight_map":{"a":"s2.safetensors","b":"s1.safetensors"}})") ==
        std::vector<std::string>{
            "ST-INDEX-TENSOR-UNLISTED | tensor 'a' | expected weight_map to name shard 's1.safetensors' for the "
            "tensor, found 's2.safetensors'",
            "ST-INDEX-TENSOR-UNLISTED | tensor 'b' | expected weight_map to name shard 's2.safetensors' for the "
            "tensor, found 's1.safetensors'",
            "ST-INDEX-TENSOR-MISSING | tensor 'a' | expected the tensor in shard 's2.safetensors' as weight_map says, "
            "found it absent there",
            "ST-INDEX-TENSOR-MISSING | tensor 'b' | expected the tensor in shard 's1.safetensors' as weight_map says, "
            "found it absent there"});
}

TEST_CASE("ST-INDEX-* (index): index rules stay on in the safetensors profile") {
  Checkpoint c("profile");
  c.shard("s1.safetensors", {{"a", 1}, {"c", 1}});
  const auto reports = c.check(R"({"weight_map":{"a":"s1.safetensors"}})", Profile::Safetensors);
  REQUIRE(reports.size() == 2);
  REQUIRE(reports[0].findings.size() == 1);
  CHECK(reports[0].findings[0].rule == RuleId::IndexTensorUnlisted);
  CHECK(reports[0].reference_verdict().empty());  // index rules are not reference variants
  CHECK(profile_applies(Profile::Safetensors, RuleId::IndexTotalSize));
}

TEST_CASE("ST-INDEX-* (index): check_index is a pure function of index and shard contents") {
  Model m;
  m.header.tensors.push_back(gen::tensor_entry("a", Dtype::F32, {2}, 0, 8));
  ShardContents shards;
  shards["s"].model = m;
  ShardIndex idx{{{"a", "s"}}, 8};
  CHECK(check_index(idx, shards).empty());
  idx.total_size = 9;
  CHECK(shard_lines(check_index(idx, shards)) ==
        std::vector<std::string>{"ST-INDEX-TOTAL-SIZE | metadata.total_size | expected the sum of the shards' tensor "
                                 "sizes, 8 bytes, found 9"});
  shards["t"].problem = "cannot open: gone";
  CHECK(shard_lines(check_index(idx, shards)) ==
        std::vector<std::string>{
            "ST-INDEX-SHARD-MISSING | shard 't' | expected a readable safetensors shard, found: cannot open: gone"});
}
