// `check --jobs N`: the files of a directory, of a
// list of paths and of an index's shards are read and parsed on N threads
// (src/commands/check_files.hpp), and the report is the same, byte for byte and in the
// same order, as the one thread's. The files are many and of every kind a
// report tells apart (clean, breaking a container rule, no safetensors file at
// all, missing, quantized, colliding), so a report put in the wrong slot, or
// a thread that shares a parser, shows as a difference.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "props/catch.hpp"
#include "gen/file_bytes.hpp"
#include "props/unit_support.hpp"
#include "spec/quote.hpp"
#include "src/io/byte_file.hpp"
#include "src/commands/check.hpp"
#include "src/commands/check_files.hpp"
#include "src/io/parallel.hpp"
#include "src/parse/plain_index.hpp"
#include "src/report/report.hpp"
#include "src/parse/shard_index.hpp"
#include "src/io/writer.hpp"

using namespace safespec;
namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<std::uint8_t>;

const fs::path kQuant = fs::path("corpus") / "examples" / "quant";  // ctest runs in the source tree

void write_bytes(const fs::path& p, const Bytes& b) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

void write_text(const fs::path& p, const std::string& t) { std::ofstream(p, std::ios::binary) << t; }

// A clean file of `n` U8 tensors named after `stem`.
Bytes clean_file(const std::string& stem, std::size_t n) {
  std::vector<Bytes> data;
  data.reserve(n);
  std::vector<TensorView> views;
  for (std::size_t t = 0; t < n; ++t) {
    data.emplace_back(t + 1, static_cast<std::uint8_t>(t));
    views.push_back(TensorView{stem + ".t" + std::to_string(t), Dtype::U8, {t + 1}, data.back()});
  }
  auto bytes = serialize(views, std::nullopt);
  REQUIRE(bytes.ok());
  return bytes.value();
}

// A file whose one tensor starts one byte into the buffer (a gap, an error).
Bytes gap_file(const std::string& name) {
  const std::string h = test::pad8(R"({")" + name + R"(":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})");
  Bytes b(8, 0);
  for (std::size_t i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(h.size() >> (8 * i));
  b.insert(b.end(), h.begin(), h.end());
  b.insert(b.end(), {0, 0});
  return b;
}

// The i-th file of a generated set: mostly clean, every few one of the other kinds.
void write_kind(const fs::path& p, const std::string& stem, std::size_t i) {
  switch (i % 11) {
    case 3: write_bytes(p, gap_file(stem + ".gap")); break;
    case 5: write_text(p, "version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 1\n"); break;  // a hint
    case 7: write_bytes(p, Bytes{1, 2, 3}); break;  // shorter than the 8-byte prefix
    case 9: fs::copy_file(kQuant / (i % 2 ? "w4a8_valid.safetensors" : "nvfp4_valid.safetensors"), p); break;
    case 10: write_bytes(p, clean_file("shared", 2)); break;  // the same names in several files
    default: write_bytes(p, clean_file(stem, 1 + i % 4)); break;
  }
}

std::string name_of(std::size_t i, std::size_t n) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "model-%05zu-of-%05zu.safetensors", i + 1, n);
  return buf;
}

// A directory of `n` files as `from_pretrained(dir)` finds them (one checkpoint).
void make_directory(const fs::path& dir, std::size_t n) {
  fs::create_directories(dir);
  for (std::size_t i = 0; i < n; ++i) write_kind(dir / ("f" + std::to_string(i) + ".safetensors"), "f" + std::to_string(i), i);
}

// An index of `n` shards; every 37th listed shard is not written (missing).
std::string make_index(const fs::path& dir, std::size_t n) {
  fs::create_directories(dir);
  std::string map;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string shard = name_of(i, n);
    map += (map.empty() ? "" : ",") + ("\"s" + std::to_string(i) + ".t0\":\"" + shard + "\"");
    if (i % 37 != 36) write_kind(dir / shard, "s" + std::to_string(i), i);
  }
  const fs::path index = dir / "model.safetensors.index.json";
  write_text(index, R"({"metadata":{"total_size":1},"weight_map":{)" + map + "}}");
  return index.string();
}

// together: --checkpoint (a folder's files are otherwise each their own checkpoint).
std::vector<FileReport> check(const std::vector<std::string>& paths, unsigned jobs, bool together = false) {
  HeaderParser parser;
  return check_paths(paths, CheckOptions{.checkpoint = together, .jobs = jobs}, parser);
}

// The threads that opened a .safetensors file, and a rendezvous: the first
// opener waits (up to a minute) until another thread opens one, so a run on
// two threads shows two whatever the scheduler does, and one that never
// starts a second thread fails here instead of passing by luck.
std::mutex seen_mutex;
std::set<std::thread::id> seen;
bool rendezvous = false;

void record_thread(const std::string& path) {
  if (!path.ends_with(".safetensors")) return;  // the index itself is read on the calling thread
  std::unique_lock lock(seen_mutex);
  seen.insert(std::this_thread::get_id());
  if (!rendezvous || seen.size() > 1) return;
  lock.unlock();
  for (int waited = 0; waited < 60'000; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const std::lock_guard again(seen_mutex);
    if (seen.size() > 1) return;
  }
}

std::size_t threads_seen(const std::vector<std::string>& paths, unsigned jobs) {
  {
    const std::lock_guard lock(seen_mutex);
    seen.clear();
    rendezvous = jobs > 1;
  }
  set_open_observer(record_thread);
  (void)check(paths, jobs);
  set_open_observer(nullptr);
  const std::lock_guard lock(seen_mutex);
  return seen.size();
}

void require_same_reports(const std::vector<std::string>& paths, bool together = false) {
  const std::vector<FileReport> one = check(paths, 1, together);
  const std::string json = render_check_json(one, Profile::Strict);
  const std::string text = render_check_text(one, Profile::Strict);
  for (const unsigned jobs : {2u, 3u, 16u}) {
    INFO("--jobs " << jobs);
    const std::vector<FileReport> many = check(paths, jobs, together);
    REQUIRE(many.size() == one.size());
    for (std::size_t i = 0; i < one.size(); ++i) CHECK(many[i].path == one[i].path);
    CHECK(render_check_json(many, Profile::Strict) == json);
    CHECK(render_check_text(many, Profile::Strict) == text);
  }
}

}  // namespace

TEST_CASE("check --jobs: a directory of many files reports the same on 1, 2, 3 and 16 threads", "[jobs]") {
  test::TempDir t("safespec_unit_check_jobs");
  make_directory(t.dir / "many", 300);
  const std::vector<std::string> paths{(t.dir / "many").string()};
  // The set holds what it should: findings, hints, unreadable files, quantized
  // layers; read as one checkpoint (--checkpoint), tensors in two files.
  const std::string json = render_check_json(check(paths, 1, true), Profile::Strict);
  CHECK(json.find("ST-OFFSET-GAP") != std::string::npos);
  CHECK(json.find("ST-INDEX-TENSOR-IN-TWO-SHARDS") != std::string::npos);
  CHECK(json.find("Git LFS") != std::string::npos);
  CHECK(json.find("CQ-MARKER-CONFLICT") != std::string::npos);  // markers read from two formats
  // Without --checkpoint a folder's files are each their own checkpoint.
  CHECK(render_check_json(check(paths, 1), Profile::Strict).find("ST-INDEX-TENSOR-IN-TWO-SHARDS") == std::string::npos);
  require_same_reports(paths);
  require_same_reports(paths, true);
  CHECK(threads_seen(paths, 1) == 1);
  CHECK(threads_seen(paths, 2) == 2);
}

TEST_CASE("check --jobs: an index of many shards, some missing, reports the same on 1 to 16 threads", "[jobs]") {
  test::TempDir t("safespec_unit_check_jobs");
  const std::string index = make_index(t.dir / "sharded", 300);
  const std::string json = render_check_json(check({index}, 1), Profile::Strict);
  CHECK(json.find("ST-INDEX-SHARD-MISSING") != std::string::npos);
  require_same_reports({index});
  CHECK(threads_seen({index}, 1) == 1);
  CHECK(threads_seen({index}, 2) == 2);
}

namespace {

// Two answers of check_shard_index with the same shard reports (after the
// index's own, which the callers compare as their case needs).
void require_same_shard_reports(const std::vector<FileReport>& a, const std::vector<FileReport>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 1; i < a.size(); ++i) {
    CHECK(a[i].path == b[i].path);
    CHECK(a[i].findings == b[i].findings);
    CHECK(a[i].model == b[i].model);
  }
}

}  // namespace

TEST_CASE("check_shard_index: reports written in place or held until the end are the same", "[jobs]") {
  // Missing shards (every 37th) leave places that are dropped; shards with
  // findings, hints and quantized layers keep theirs, in sorted order.
  test::TempDir t("safespec_unit_check_jobs");
  const std::string index = make_index(t.dir / "sharded", 120);
  for (const unsigned jobs : {1u, 2u, 3u}) {
    INFO("--jobs " << jobs);
    HeaderParser parser;
    std::vector<std::string> missing_in_place, missing_held;
    const std::vector<FileReport> in_place = check_shard_index(index, Profile::Strict, parser, &missing_in_place, jobs);
    const std::vector<FileReport> held = check_shard_index(index, Profile::Strict, parser, &missing_held, jobs, 0);
    CHECK(in_place.size() == 1 + 120 - 3);
    CHECK(held[0].path == in_place[0].path);
    CHECK(held[0].findings == in_place[0].findings);
    CHECK(held[0].model == in_place[0].model);
    require_same_shard_reports(held, in_place);
    CHECK(missing_in_place.size() == 3);
    CHECK(missing_held == missing_in_place);
    CHECK(render_check_json(held, Profile::Strict) == render_check_json(in_place, Profile::Strict));
  }
}

// The shards are read while the index is (src/parse/shard_feed.hpp): the reader
// hands each shard on at its first entry, and what the finished index says
// decides, on any thread count.
namespace {

// make_index's index with `extra` (entries, each after a comma) added at the
// end of its weight_map, written beside it as `name`.
std::string index_plus(const std::string& index, const std::string& name, const std::string& extra) {
  std::ifstream in(index, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(text.size() > 2);
  text.insert(text.size() - 2, extra);
  const std::string path = (fs::path(index).parent_path() / name).string();
  write_text(path, text);
  return path;
}

struct HeardShards final : ShardSink {
  std::vector<std::string> names;
  void shard_found(std::string_view name) override { names.emplace_back(name); }
};

}  // namespace

TEST_CASE("read_plain_index: the sink hears each plain shard once, at its first entry, and no other name", "[jobs]") {
  HeardShards heard;
  const auto read = read_plain_index(
      R"({"weight_map":{"a":"b.safetensors","c":"a.safetensors","d":"b.safetensors","e":"../up.safetensors"}})", &heard);
  REQUIRE(read.has_value());
  CHECK_FALSE(read->ok());  // "../up.safetensors" is no file name beside the index
  CHECK(heard.names == std::vector<std::string>{"b.safetensors", "a.safetensors"});
}

TEST_CASE("check_shard_index: an index the DOM reads after the plain reader gave up late reports as if read plainly", "[jobs]") {
  test::TempDir t("safespec_unit_check_jobs");
  const std::string index = make_index(t.dir / "sharded", 120);
  write_bytes(t.dir / "sharded" / "extra.safetensors", clean_file("za", 2));
  // An escape in the last tensor name: the plain reader has found 120 shards
  // when it gives up, and the DOM finds "extra.safetensors" too.
  const std::string escaped = index_plus(index, "escaped.index.json", R"(,"za":"extra.safetensors")");
  const std::string plain = index_plus(index, "plain.index.json", R"(,"za":"extra.safetensors")");
  for (const unsigned jobs : {1u, 2u, 3u}) {
    INFO("--jobs " << jobs);
    HeaderParser parser;
    std::vector<std::string> missing_dom, missing_plain;
    const std::vector<FileReport> dom = check_shard_index(escaped, Profile::Strict, parser, &missing_dom, jobs);
    const std::vector<FileReport> read = check_shard_index(plain, Profile::Strict, parser, &missing_plain, jobs);
    REQUIRE(dom.size() == 1 + 121 - 3);
    CHECK(dom[0].findings == read[0].findings);
    CHECK(dom.back().path == (t.dir / "sharded" / "model-00120-of-00120.safetensors").string());
    require_same_shard_reports(dom, read);
    CHECK(missing_dom.size() == 3);
    CHECK(missing_dom == missing_plain);
  }
}

TEST_CASE("check_shard_index: a second weight_map, which the DOM decides, reports as the first alone", "[jobs]") {
  // The plain reader hands on the first map's shards, then gives up at the
  // second key; the DOM reads the first map (simdjson's lookup). Both maps
  // name as many shards, so only the names tell the reader's from the DOM's.
  test::TempDir t("safespec_unit_check_jobs");
  const fs::path dir = t.dir / "twice";
  fs::create_directories(dir);
  for (const char* shard : {"a.safetensors", "b.safetensors", "c.safetensors", "d.safetensors"})
    write_bytes(dir / shard, clean_file(std::string(shard, 1), 2));
  const std::string first = R"({"a.t0":"a.safetensors","a.t1":"a.safetensors","b.t0":"b.safetensors"})";
  write_text(dir / "twice.index.json", R"({"weight_map":)" + first +
                                           R"(,"weight_map":{"c.t0":"c.safetensors","d.t0":"d.safetensors"}})");
  write_text(dir / "once.index.json", R"({"weight_map":)" + first + "}");
  for (const unsigned jobs : {1u, 2u, 3u}) {
    INFO("--jobs " << jobs);
    HeaderParser parser;
    const auto twice = check_shard_index((dir / "twice.index.json").string(), Profile::Strict, parser, nullptr, jobs);
    const auto once = check_shard_index((dir / "once.index.json").string(), Profile::Strict, parser, nullptr, jobs);
    REQUIRE(twice.size() == 3);
    CHECK(twice[0].findings == once[0].findings);
    require_same_shard_reports(twice, once);
  }
}

TEST_CASE("check_shard_index: an index refused at its last entry reports no shard, though shards were read", "[jobs]") {
  test::TempDir t("safespec_unit_check_jobs");
  const std::string index = make_index(t.dir / "sharded", 120);
  const std::string repeated = index_plus(index, "repeated.index.json", R"(,"s0.t0":"model-00002-of-00120.safetensors")");
  for (const unsigned jobs : {1u, 2u, 16u}) {
    INFO("--jobs " << jobs);
    HeaderParser parser;
    std::vector<std::string> missing;
    const std::vector<FileReport> reports = check_shard_index(repeated, Profile::Strict, parser, &missing, jobs);
    REQUIRE(reports.size() == 1);
    REQUIRE(reports[0].findings.size() == 1);
    CHECK(reports[0].findings[0].rule == RuleId::IndexJson);
    CHECK(reports[0].findings[0].message == "expected each tensor once, found it twice");
    CHECK(missing.empty());
  }
}

TEST_CASE("check --jobs: loose paths, series, directories and indexes together keep their order", "[jobs]") {
  test::TempDir t("safespec_unit_check_jobs");
  make_directory(t.dir / "dir", 40);
  const std::string index = make_index(t.dir / "idx", 40);
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < 60; ++i) {
    // Two shard series, interleaved, and files that belong to none.
    const fs::path p = t.dir / (i % 3 == 0 ? "loose" + std::to_string(i) + ".safetensors"
                                           : (i % 3 == 1 ? "a-" : "b-") + name_of(i / 3, 20));
    write_kind(p, "l" + std::to_string(i), i);
    paths.push_back(p.string());
    if (i == 20) paths.push_back(index);
    if (i == 40) paths.push_back((t.dir / "dir").string());
  }
  paths.push_back((t.dir / "absent.safetensors").string());
  require_same_reports(paths);
  // And as one checkpoint, and each alone.
  for (const bool together : {true, false}) {
    HeaderParser parser;
    const auto one = check_paths(paths, CheckOptions{.separate = !together, .checkpoint = together, .jobs = 1}, parser);
    const auto two = check_paths(paths, CheckOptions{.separate = !together, .checkpoint = together, .jobs = 2}, parser);
    CHECK(render_check_json(two, Profile::Strict) == render_check_json(one, Profile::Strict));
  }
}

// The collision check across a checkpoint's files (flag_collisions) takes
// each name's hash from its file's parse when the plain reader kept it
// (Header::name_hashes), and hashes the names of a file the reference reader
// read (here: an unknown field) itself. Either way, each repeat is flagged
// once, at its own file, naming the first file that has it; an escaped
// spelling is the name it decodes to (F6.5).
TEST_CASE("ST-INDEX-TENSOR-IN-TWO-SHARDS (directory): each repeat once, with hashes kept or not", "[ST-INDEX-TENSOR-IN-TWO-SHARDS][jobs]") {
  test::TempDir t("safespec_unit_check_jobs");
  const fs::path dir = t.dir / "ckpt";
  fs::create_directories(dir);
  const std::string e = R"("dtype":"U8","shape":[1],"data_offsets":)";
  const std::vector<std::pair<std::string, std::string>> files{
      {"a.safetensors", R"({"x":{)" + e + R"([0,1]},"y":{)" + e + "[1,2]}}"},
      {"b.safetensors", R"({"\u0078":{)" + e + R"([0,1]},"z":{)" + e + "[1,2]}}"},
      {"c.safetensors", R"({"y":{)" + e + R"([0,1],"note":1},"z":{)" + e + R"([1,2]},"w":{)" + e + "[2,3]}}"},
  };
  std::vector<Bytes> bytes;
  std::vector<MemoryFile> memory;
  for (const auto& [name, header] : files) bytes.push_back(gen::file_with_header(header, 3));
  for (std::size_t i = 0; i < files.size(); ++i) {
    write_bytes(dir / files[i].first, bytes[i]);
    memory.push_back(MemoryFile{(dir / files[i].first).string(), bytes[i]});
  }
  const auto at = [&](const char* file) { return quote_name((dir / file).string()); };
  const std::vector<std::string> expected{
      "b.safetensors | x | expected the tensor in one file of the checkpoint, found it in " + at("a.safetensors") + " and " + at("b.safetensors"),
      "c.safetensors | y | expected the tensor in one file of the checkpoint, found it in " + at("a.safetensors") + " and " + at("c.safetensors"),
      "c.safetensors | z | expected the tensor in one file of the checkpoint, found it in " + at("b.safetensors") + " and " + at("c.safetensors"),
  };
  const auto repeats = [](const std::vector<FileReport>& reports) {
    std::vector<std::string> out;
    for (const FileReport& r : reports)
      for (const Finding& f : r.findings)
        if (f.rule == RuleId::IndexTensorInTwoShards)
          out.push_back(fs::path(r.path).filename().string() + " | " + f.where.name + " | " + f.message);
    return out;
  };
  // Kept by the plain reader on every thread (a and b), not by the reference reader (c).
  const auto kept = [](const std::vector<FileReport>& reports) {
    std::vector<bool> out;
    for (const FileReport& r : reports) {
      if (!r.files.empty()) continue;  // the checkpoint's own report, of no file
      const Header& h = r.model.value().header;
      out.push_back(!h.tensors.empty() && h.name_hashes.values.size() == h.tensors.size());
    }
    return out;
  };
  for (const unsigned jobs : {1u, 2u})
    for (const bool was : {false, true}) {
      INFO("--jobs " << jobs << ", the caller's parser keeping hashes: " << was);
      HeaderParser parser;
      parser.keep_name_hashes(was);
      const std::vector<FileReport> on_disk =
          check_paths({dir.string()}, CheckOptions{.checkpoint = true, .jobs = jobs}, parser);
      CHECK(repeats(on_disk) == expected);
      CHECK(kept(on_disk) == std::vector<bool>{true, true, false});
      CHECK(parser.keeps_name_hashes() == was);  // as it came
      const std::vector<FileReport> in_memory = check_memory(memory, CheckOptions{.jobs = jobs}, parser);
      CHECK(repeats(in_memory) == expected);
      CHECK(kept(in_memory) == std::vector<bool>{true, true, false});
      CHECK(parser.keeps_name_hashes() == was);
    }
}

// A directory's files as from_pretrained(dir) takes them, listed with
// readdir (src/commands/check.cpp): the law is std::filesystem's listing, the paths
// directory_iterator gives whose extension() is ".safetensors", sorted;
// given with a trailing '/' or without.
TEST_CASE("check: a directory's checkpoint files are directory_iterator's .safetensors paths, sorted", "[jobs]") {
  test::TempDir t("safespec_unit_check_jobs");
  const fs::path dir = t.dir / "listing";
  fs::create_directories(dir / "sub.safetensors");  // not a file: listed, and fails to open
  for (const char* name : {"b.safetensors", "a.safetensors", ".safetensors", "..safetensors", "c.SAFETENSORS",
                           "d.safetensors.bak", "notes.txt", "e f.safetensors"})
    write_bytes(dir / name, clean_file(std::string("n_") + name, 1));
  for (const std::string& given : {dir.string(), dir.string() + "/"}) {
    std::vector<std::string> expected;
    for (const auto& e : fs::directory_iterator(given))
      if (e.path().extension() == ".safetensors") expected.push_back(e.path().string());
    std::sort(expected.begin(), expected.end());
    REQUIRE(expected.size() == 5);  // "..safetensors" has the extension, ".safetensors" has none
    std::vector<std::string> got;
    for (const FileReport& r : check({given}, 2)) got.push_back(r.path);
    CHECK(got == expected);
  }
}

TEST_CASE("check --jobs: the command prints the same bytes and exit status for --jobs 1 and 2", "[jobs][cli]") {
  test::CliScratch s("safespec_unit_check_jobs");
  make_directory(s.dir / "many", 120);
  const std::string index = make_index(s.dir / "sharded", 120);
  const std::string many = test::shell_word((s.dir / "many").string());
  for (const std::string format : {"--json", "--format text", "--format sarif", "--summary"}) {
    const std::string args = format + " " + many + " " + test::shell_word(index);
    const test::Run one = s.run("check --jobs 1 " + args);
    const test::Run two = s.run("check -j 2 " + args);
    const test::Run dflt = s.run("check " + args);
    INFO(args);
    CHECK(one.code != 0);  // the findings, and the missing shards
    CHECK(two.code == one.code);
    CHECK(two.out == one.out);
    CHECK(dflt.out == one.out);
  }
  CHECK(s.run("check --jobs 0 " + many).code == 2);
  CHECK(s.run("check --jobs 65 " + many).code == 2);
}
