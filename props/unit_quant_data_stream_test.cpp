// --data at storage speed (issue 14): the value rules stream each tensor in
// pieces and run the layers on several threads; what they find must not
// depend on either. A checkpoint of many quantized layers of every format
// with --data rules, some with bad values, is analysed with one thread and
// whole-megabyte pieces, and again with more threads and pieces as small as
// 8 bytes: findings, their order, their messages and the unchecked list are
// the same.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "gen/data_checkpoint.hpp"
#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "spec/quant/analyze.hpp"
#include "src/byte_file.hpp"
#include "src/load.hpp"
#include "src/marker_reader.hpp"
#include "src/tensor_data.hpp"
#include "src/writer.hpp"

using namespace safespec;
namespace fs = std::filesystem;

namespace {

struct Loaded {
  std::vector<Model> models;
  std::vector<quant::CheckpointFile> files;
};

Loaded load(const std::vector<std::string>& paths) {
  Loaded l;
  l.models.reserve(paths.size());
  FastHeaderParser parser;
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
