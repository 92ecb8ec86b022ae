// --data at storage speed: the value rules stream each tensor in
// pieces and run the layers on several threads; what they find must not
// depend on either. A checkpoint of many quantized layers of every format
// with --data rules, some with bad values, is analysed with one thread and
// whole-megabyte pieces, and again with more threads and pieces as small as
// 8 bytes: findings, their order, their messages and the unchecked list are
// the same.
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <limits>
#include <filesystem>
#include <string>
#include <vector>

#include "gen/data_checkpoint.hpp"
#include "props/catch.hpp"
#include "props/quant_support.hpp"
#include "props/unit_support.hpp"
#include "spec/file_reader.hpp"
#include "spec/quant/analyze.hpp"
#include "spec/quant/data_scan.hpp"
#include "src/io/byte_file.hpp"
#include "src/parse/load.hpp"
#include "src/parse/marker_reader.hpp"
#include "src/io/tensor_data.hpp"
#include "src/io/writer.hpp"

using namespace safespec;
using namespace safespec::test;
namespace fs = std::filesystem;

namespace {

struct Loaded {
  std::vector<Model> models;
  std::vector<quant::CheckpointFile> files;
};

Loaded load(const std::vector<std::string>& paths) {
  Loaded l;
  l.models.reserve(paths.size());
  HeaderParser parser;
  for (const std::string& p : paths) {
    auto m = load_model(p, parser);
    REQUIRE(m.ok());
    REQUIRE(m.value().ok());
    l.models.push_back(std::move(m.value()).value());
  }
  for (std::size_t i = 0; i < paths.size(); ++i) {
    auto f = ByteFile::open(paths[i]);
    REQUIRE(f.ok());
    auto markers = read_markers(f.value(), l.models[i]);
    REQUIRE(markers.ok());
    l.files.push_back(quant::CheckpointFile{paths[i], &l.models[i], std::move(markers).value()});
  }
  return l;
}

quant::Analysis run(const Loaded& l, DataReadOptions o) {
  FileTensorData data(l.files, o);
  return quant::analyze(l.files, &data);
}

void require_same(const quant::Analysis& a, const quant::Analysis& b) {
  REQUIRE(a.findings.size() == b.findings.size());
  for (std::size_t i = 0; i < a.findings.size(); ++i) {
    INFO("finding " << i << ": " << a.findings[i].finding.message);
    CHECK(a.findings[i].file == b.findings[i].file);
    CHECK(a.findings[i].finding == b.findings[i].finding);
  }
  REQUIRE(a.unchecked.size() == b.unchecked.size());
  for (std::size_t i = 0; i < a.unchecked.size(); ++i) {
    CHECK(a.unchecked[i].file == b.unchecked[i].file);
    CHECK(a.unchecked[i].item == b.unchecked[i].item);
  }
  CHECK(a.sglang_config == b.sglang_config);
}

std::size_t count(const quant::Analysis& a, RuleId rule) {
  std::size_t n = 0;
  for (const auto& lf : a.findings) n += lf.finding.rule == rule ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("data rules: findings are identical single- and multi-threaded, whole and in 8-byte pieces", "[quant]") {
  test::TempDir dir("safespec_unit_data_stream");
  const std::string a = (dir.dir / "a.safetensors").string();
  const std::string b = (dir.dir / "b.safetensors").string();
  // 96 layers, every 5th bad, in two files read as one checkpoint; each
  // tensor is a few KiB, so 8-byte pieces cut every rule's scan many times.
  REQUIRE(gen::write_data_checkpoint(a, {64, 128, 256, 5}).ok());
  REQUIRE(gen::write_data_checkpoint(b, {32, 128, 512, 3}).ok());
  const Loaded l = load({a, b});

  const quant::Analysis one = run(l, {0, 1});
  // The bad layers of every format are found: the checkpoint exercises each rule.
  CHECK(count(one, RuleId::DataInt8Range) >= 3);
  CHECK(count(one, RuleId::DataSRel) >= 2);
  CHECK(count(one, RuleId::DataW4a4Range) >= 1);
  CHECK(count(one, RuleId::DataScale) >= 2);
  CHECK(count(one, RuleId::DataE8m0) >= 1);
  CHECK(one.unchecked.empty());

  for (unsigned threads : {2u, 4u, 8u}) {
    for (std::uint64_t chunk : {std::uint64_t{8}, std::uint64_t{24}, std::uint64_t{4096}, std::uint64_t{0}}) {
      INFO("threads " << threads << ", pieces of " << chunk);
      require_same(one, run(l, {chunk, threads}));
    }
  }
  // Without threads to spare the same, and the same again: no state is kept between runs.
  require_same(one, run(l, {8, 1}));
  require_same(one, run(l, {0, 2}));
}

TEST_CASE("data rules: a file that is cut while the layers are read lists the same tensors unchecked on any thread count",
          "[quant]") {
  test::TempDir dir("safespec_unit_data_stream");
  const std::string a = (dir.dir / "a.safetensors").string();
  REQUIRE(gen::write_data_checkpoint(a, {40, 128, 256, 4}).ok());
  const Loaded l = load({a});
  // The file loses its last half after the header was read: every tensor
  // past the cut is "outside the file", each listed once, in layer order.
  fs::resize_file(a, fs::file_size(a) / 2);
  const quant::Analysis one = run(l, {0, 1});
  CHECK_FALSE(one.unchecked.empty());
  for (unsigned threads : {2u, 8u})
    for (std::uint64_t chunk : {std::uint64_t{8}, std::uint64_t{0}}) require_same(one, run(l, {chunk, threads}));
}

TEST_CASE("data rules: a tensor over the old bounds of 256 MiB a tensor and 1 GiB a run is streamed in bounded pieces", "[quant]") {
  // A sparse int8 weight of 1 GiB + 1 MiB (a hole reads as zeros, valid
  // codes) ending in a -128: once over both old bounds (256 MiB a tensor,
  // 1 GiB a run), it is now read whole, in pieces of 4 MiB per thread, and
  // the value at its very end is found.
  test::TempDir dir("safespec_unit_data_stream");
  const std::uint64_t n = (std::uint64_t{1} << 30) + (std::uint64_t{1} << 20);
  const std::string header = test::pad8(
      R"({"p.comfy_quant":{"dtype":"U8","shape":[29],"data_offsets":[0,29]},)"
      R"("p.weight":{"dtype":"I8","shape":[)" + std::to_string(n / 1024) + R"(,1024],"data_offsets":[29,)" +
      std::to_string(29 + n) + R"(]},"p.weight_scale":{"dtype":"F32","shape":[],"data_offsets":[)" +
      std::to_string(29 + n) + "," + std::to_string(33 + n) + "]}}");
  const std::string path = (dir.dir / "big.safetensors").string();
  {
    std::vector<std::uint8_t> head(8);
    for (int i = 0; i < 8; ++i) head[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(header.size() >> (8 * i));
    head.insert(head.end(), header.begin(), header.end());
    const std::string marker = R"({"format": "int8_tensorwise"})";
    head.insert(head.end(), marker.begin(), marker.end());
    REQUIRE(write_file(path, head).ok());
    fs::resize_file(path, head.size() + n + 4);
    FILE* f = std::fopen(path.c_str(), "r+b");
    REQUIRE(f);
    const unsigned char tail[5] = {0x80, 0x0A, 0xD7, 0x23, 0x3C};  // -128, then the scale 0.01f
    REQUIRE(std::fseek(f, static_cast<long>(head.size() + n - 1), SEEK_SET) == 0);
    REQUIRE(std::fwrite(tail, 1, 5, f) == 5);
    std::fclose(f);
  }
  const Loaded l = load({path});
  FileTensorData data(l.files, {std::uint64_t{4} << 20, 2});
  const quant::Analysis a = quant::analyze(l.files, &data);
  CHECK(a.unchecked.empty());
  REQUIRE(count(a, RuleId::DataInt8Range) == 1);
  for (const auto& lf : a.findings)
    if (lf.finding.rule == RuleId::DataInt8Range)
      CHECK(lf.finding.message == "int8 weights must lie in -127..127 (what the quantizer emits): 1 of " +
                                      std::to_string(n) + " are -128, the first at index " + std::to_string(n - 1));
  CHECK(data.bytes_read() == n + 4);
}

// FileTensorData itself: pieces, offsets, overlap; and the scans below the rules.
namespace {

using Bytes = std::vector<std::uint8_t>;
constexpr float kQuietNan = std::numeric_limits<float>::quiet_NaN();



fs::path fresh_dir() {
  static int counter = 0;
  const fs::path dir = fs::temp_directory_path() /
                       ("safespec_unit_data_" + std::to_string(::getpid()) + "_" + std::to_string(++counter));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

// Every piece a scan hands over, joined; or the error.
Result<Bytes, std::string> scan_all(const FileTensorData& d, const quant::TensorRef& t, std::size_t* pieces = nullptr) {
  Bytes out;
  auto r = d.scan(t, [&](std::span<const std::uint8_t> b) {
    out.insert(out.end(), b.begin(), b.end());
    if (pieces) ++*pieces;
  });
  if (!r) return r.error();
  return out;
}

TEST_CASE("FileTensorData: streams a written file, offsets past EOF or overflowing give the reason", "[quant]") {
  const Bytes scale = f32s({kQuietNan});
  const Bytes weight{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18};
  auto file = serialize({TensorView{"p.weight", Dtype::I8, {3, 6}, weight},
                         TensorView{"p.weight_scale", Dtype::F32, {}, scale}},
                        std::nullopt);
  REQUIRE(file.ok());
  const fs::path dir = fresh_dir();
  const std::string path = (dir / "m.safetensors").string();
  REQUIRE(write_file(path, file.value()).ok());
  auto parsed = read_model_reference(file.value());
  REQUIRE(parsed.ok());
  Model model = parsed.value();

  std::vector<quant::CheckpointFile> files(1);
  files[0].path = path;
  files[0].model = &model;
  quant::TensorTable table(files);
  FileTensorData data(files);
  CHECK(data.chunk() == kDataChunkBytes);

  const quant::TensorRef* w = table.find("p.weight");
  REQUIRE(w);
  std::size_t pieces = 0;
  auto b = scan_all(data, *w, &pieces);
  REQUIRE(b);
  CHECK(b.value() == weight);
  CHECK(pieces == 1);
  CHECK(data.bytes_read() == 18);
  CHECK(data.whole(*w).value() == weight);

  // In pieces of 8 bytes: 8, 8 and the last 2, in order.
  FileTensorData small({FileTensorData::Source{path, &model}}, {8, 1});
  pieces = 0;
  b = scan_all(small, *w, &pieces);
  REQUIRE(b);
  CHECK(b.value() == weight);
  CHECK(pieces == 3);
  // A piece size that is not a multiple of 8 is rounded down to one.
  CHECK(FileTensorData({FileTensorData::Source{path, &model}}, {13, 1}).chunk() == 8);
  CHECK(FileTensorData({FileTensorData::Source{path, &model}}, {3, 1}).chunk() == 8);

  // The rules over real bytes.
  auto h = make_layer("p", R"({"format": "int8_tensorwise"})");
  quant::Sink sink;
  run_data_rules(h.layer, table, small, sink);
  REQUIRE(sink.findings().size() == 1);
  CHECK(sink.findings()[0].finding.rule == RuleId::DataScale);

  // Hostile offsets: past EOF, begin > end, 64-bit overflow.
  TensorEntry past = model.header.tensors[0];
  past.end = model.buffer_size() + 1;
  CHECK(scan_all(data, quant::TensorRef{&past, 0}).error() == "23 bytes at data_offsets [0, 23], which lie outside the file");
  TensorEntry inverted = model.header.tensors[0];
  inverted.begin = inverted.end + 1;
  CHECK(scan_all(data, quant::TensorRef{&inverted, 0}).error() == "its data_offsets [5, 4] are reversed");
  TensorEntry huge = model.header.tensors[0];
  huge.begin = UINT64_MAX - 2;
  huge.end = UINT64_MAX;
  CHECK_FALSE(scan_all(data, quant::TensorRef{&huge, 0}));
  CHECK_FALSE(scan_all(data, quant::TensorRef{&past, 7}));  // no such file index

  // A missing file.
  std::vector<quant::CheckpointFile> gone(1);
  gone[0].path = (dir / "absent.safetensors").string();
  gone[0].model = &model;
  FileTensorData none(gone);
  CHECK_FALSE(scan_all(none, *w));
  fs::remove_all(dir);
}

TEST_CASE("FileTensorData: no read budget, tensors whose bytes overlap another are not read", "[quant]") {
  // Three tensors over the same 16 bytes and one apart: the overlapping ones
  // are refused whatever order they are asked in, the others read in full
  // however often (the budget of 1 GiB a run is gone: a stream holds one
  // piece, so nothing but overlap can make a run read more than its files).
  // The model as a header would give it (the readers stop at the overlap,
  // ST-OFFSET-*; the command reads the data of such a file all the same).
  Model model;
  model.header_length = 8;
  model.file_size = 8 + 8 + 24;
  const auto u8 = [](std::string name, std::uint64_t begin, std::uint64_t end) {
    return TensorEntry{std::move(name), Dtype::U8, {end - begin}, begin, end};
  };
  model.header.tensors = {u8("a", 0, 16), u8("b", 8, 16), u8("c", 16, 20), u8("d", 4, 4), u8("e", 20, 24)};
  const Bytes file(model.file_size, 7);
  const fs::path dir = fresh_dir();
  const std::string path = (dir / "overlap.safetensors").string();
  REQUIRE(write_file(path, file).ok());
  FileTensorData data({FileTensorData::Source{path, &model}}, {8, 2});
  const auto& t = model.header.tensors;
  REQUIRE(t.size() == 5);
  const auto ref = [&](std::size_t i) { return quant::TensorRef{&t[i], 0}; };
  CHECK(scan_all(data, ref(1)).error() ==
        "its data_offsets [8, 16] overlap another tensor's: such bytes are not read (spec/limits.hpp)");
  CHECK(scan_all(data, ref(0)).error() ==
        "its data_offsets [0, 16] overlap another tensor's: such bytes are not read (spec/limits.hpp)");
  for (int k = 0; k < 100; ++k) CHECK(scan_all(data, ref(2)).value() == Bytes(4, 7));
  CHECK(scan_all(data, ref(3)).value().empty());  // empty: overlaps nothing
  CHECK(scan_all(data, ref(4)).value() == Bytes(4, 7));
  CHECK(data.bytes_read() == 404);
  fs::remove_all(dir);
}

TEST_CASE("CQ-DATA-W4A4-RANGE, CQ-DATA-INT8-RANGE: the word-at-a-time scans count as a plain loop does",
          "[quant][CQ-DATA-W4A4-RANGE][CQ-DATA-INT8-RANGE]") {
  // Every byte value, in an order that puts each at every position of an
  // 8-byte word, in pieces of 8 and whole, with a tail that is not a word.
  Bytes b;
  for (unsigned i = 0; i < 256 * 9 + 5; ++i) b.push_back(static_cast<std::uint8_t>(i * 97 + i / 256));
  std::uint64_t nibbles = 0, first_nibble = UINT64_MAX, bytes = 0, first_byte = UINT64_MAX;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const bool lo = (b[i] & 0xF) == 8, hi = (b[i] >> 4) == 8;
    if ((lo || hi) && first_nibble == UINT64_MAX) first_nibble = 2 * i + (lo ? 0 : 1);
    nibbles += std::uint64_t{lo} + std::uint64_t{hi};
    if (b[i] == 0x80 && first_byte == UINT64_MAX) first_byte = i;
    bytes += b[i] == 0x80;
  }
  for (std::size_t piece : {std::size_t{8}, std::size_t{64}, b.size()}) {
    quant::scan::NibbleScan n;
    quant::scan::ByteScan c(0x80);
    for (std::size_t at = 0; at < b.size(); at += piece) {
      const std::span<const std::uint8_t> s(b.data() + at, std::min(piece, b.size() - at));
      n(s);
      c(s);
    }
    CHECK(n.result().count == nibbles);
    CHECK(n.result().first == first_nibble);
    CHECK(n.result().total == 2 * b.size());
    CHECK(c.result().count == bytes);
    CHECK(c.result().first == first_byte);
    CHECK(c.result().total == b.size());
  }
}
