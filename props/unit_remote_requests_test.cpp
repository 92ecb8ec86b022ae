// What reading a checkpoint over HTTP costs, counted at the server
// (props/http_range_server.py logs every request, the requests in flight
// and the body bytes its socket writes accepted): one request per shard for
// its header and markers, the shards of an index read at once within
// kHttpParallelRequests, and a server that ignores Range sending the header,
// not the file.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/remote_server.hpp"
#include "props/unit_support.hpp"
#include "spec/limits.hpp"
#include "src/io/writer.hpp"
#include "src/parse/load.hpp"

using namespace safespec;

namespace {

// The marker of fp8_e4m3fn_valid.safetensors (a valid float8_e4m3fn layer).
std::string fp8_marker_bytes() {
  const std::string bytes = test::read_text("corpus/examples/quant/fp8_e4m3fn_valid.safetensors");
  const std::span<const std::uint8_t> file(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  HeaderParser parser;
  auto m = read_model_fast(file, parser);
  REQUIRE(m.ok());
  for (const TensorEntry& t : m.value().header.tensors)
    if (t.name.view().ends_with(".comfy_quant"))
      return bytes.substr(8 + m.value().header_length + t.begin, t.end - t.begin);
  FAIL("no marker");
  return {};
}

// Layers [first, first + layers) of an fp8 model, each a weight of `rows` x 64
// F8_E4M3 bytes, its scale and its marker. The writer puts the U8 markers
// last, next to each other: past the first ranged read once the weights
// outgrow it.
std::vector<std::uint8_t> fp8_shard(int first, int layers, std::uint64_t rows) {
  const std::string marker = fp8_marker_bytes();
  const std::vector<std::uint8_t> weight(rows * 64, 0x38);  // 1.0 in E4M3
  const float one = 1.0f;
  const auto* scale = reinterpret_cast<const std::uint8_t*>(&one);
  std::vector<TensorView> views;
  for (int l = first; l < first + layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".mlp.down_proj.";
    views.push_back({p + "weight", Dtype::F8_E4M3, {rows, 64}, weight});
    views.push_back({p + "weight_scale", Dtype::F32, {}, std::span(scale, 4)});
    views.push_back({p + "comfy_quant", Dtype::U8, {marker.size()},
                     std::span(reinterpret_cast<const std::uint8_t*>(marker.data()), marker.size())});
  }
  auto out = serialize(std::move(views), Metadata{{"format", "pt"}});
  REQUIRE(out.ok());
  return std::move(out).value();
}

// `shards` shards of `layers` layers each, and their index, on the server.
void fp8_checkpoint(const test::RemoteServer& s, int shards, int layers, std::uint64_t rows) {
  std::string map;
  for (int k = 0; k < shards; ++k) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05d-of-%05d.safetensors", k + 1, shards);
    s.file(name, fp8_shard(k * layers, layers, rows));
    for (int l = k * layers; l < (k + 1) * layers; ++l)
      for (const char* t : {"weight", "weight_scale", "comfy_quant"})
        map += std::string(map.empty() ? "" : ",") + "\"model.layers." + std::to_string(l) + ".mlp.down_proj." + t +
               "\":\"" + name + "\"";
  }
  const std::string index = "{\"metadata\":{},\"weight_map\":{" + map + "}}";
  s.file("model.safetensors.index.json", std::vector<std::uint8_t>(index.begin(), index.end()));
}

// The same check on disk, with the files' folder written as the server's
// `mode` folder: what the URL's check must print.
test::Run local_check(const test::RemoteServer& s, const std::string& args, const std::string& mode) {
  const std::string dir = (s.dir / "files").string() + "/";
  test::Run want = s.run(args + " '" + dir + "model.safetensors.index.json'");
  test::replace_all(want.out, dir, s.base + "/" + mode + "/");
  return want;
}

std::size_t count_of(const std::vector<std::string>& log, const std::string& line) {
  return static_cast<std::size_t>(std::count(log.begin(), log.end(), line));
}

}  // namespace

TEST_CASE("remote requests: a sharded quantized checkpoint costs one request per shard and one for the index",
          "[remote]") {
  test::RemoteServer s;
  fp8_checkpoint(s, 3, 4, 4);  // small shards: header and markers inside the first read
  const test::Run want = local_check(s, "check", "range");
  const test::Run got = s.run("check " + s.url("range", "model.safetensors.index.json"));
  CHECK(got.code == want.code);
  CHECK(got.out == want.out);
  const std::vector<std::string> log = s.log();
  CHECK(log.size() == 4);
  CHECK(count_of(log, "GET /range/model.safetensors.index.json bytes=0-99999") == 1);
  for (int k = 1; k <= 3; ++k)
    CHECK(count_of(log, "GET /range/model-0000" + std::to_string(k) + "-of-00003.safetensors bytes=0-99999") == 1);
}

TEST_CASE("remote requests: markers past the first read are read as one covering range per shard", "[remote]") {
  test::RemoteServer s;
  fp8_checkpoint(s, 3, 8, 1024);  // 8 weights of 64 KiB per shard: the markers lie past 100,000 bytes
  const test::Run want = local_check(s, "check", "range");
  const test::Run got = s.run("check " + s.url("range", "model.safetensors.index.json"));
  CHECK(got.code == want.code);
  CHECK(got.out == want.out);
  const std::vector<std::string> log = s.log();
  // The index, then per shard its first read and one range for its 8 markers
  // (one request per marker before: 24 more).
  CHECK(log.size() == 1 + 3 * 2);
  for (int k = 1; k <= 3; ++k) {
    const std::string name = "model-0000" + std::to_string(k) + "-of-00003.safetensors";
    const std::vector<std::uint8_t> bytes = fp8_shard((k - 1) * 8, 8, 1024);
    HeaderParser parser;
    auto m = read_model_fast(bytes, parser);
    REQUIRE(m.ok());
    std::uint64_t first = UINT64_MAX, last = 0;
    for (const TensorEntry& t : m.value().header.tensors)
      if (t.name.view().ends_with(".comfy_quant")) {
        first = std::min(first, 8 + m.value().header_length + t.begin);
        last = std::max(last, 8 + m.value().header_length + t.end - 1);
      }
    REQUIRE(first > kHttpFirstReadBytes);
    CHECK(count_of(log, "GET /range/" + name + " bytes=0-99999") == 1);
    CHECK(count_of(log, "GET /range/" + name + " bytes=" + std::to_string(first) + "-" + std::to_string(last)) == 1);
  }
}

TEST_CASE("remote requests: the shards of an index are read at once, within the bound", "[remote]") {
  test::RemoteServer s;
  fp8_checkpoint(s, 100, 1, 4);
  const test::Run want = local_check(s, "check --summary", "lag50");
  const auto start = std::chrono::steady_clock::now();
  const test::Run got = s.run("check --summary " + s.url("lag50", "model.safetensors.index.json"));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(got.code == want.code);
  CHECK(got.out == want.out);
  CHECK(s.log().size() == 101);
  const int most = s.max_inflight();
  CHECK(most > 1);
  CHECK(most <= static_cast<int>(kHttpParallelRequests));
  // 101 requests 50 ms each took 5 s one at a time. Not asserted on time
  // (a loaded machine); bench/remote_bench.py prints the ratio.
  WARN("100 shards, 50 ms a request: " << took << " s, at most " << most << " requests at once");
}

TEST_CASE("remote requests: a server that ignores Range sends the header and its socket buffers, not the file",
          "[remote]") {
  test::RemoteServer s;
  // 512 layers of 64 KiB weights: 32 MiB, the markers at the end.
  const std::vector<std::uint8_t> bytes = fp8_shard(0, 512, 1024);
  s.file("big.safetensors", bytes);
  HeaderParser parser;
  auto m = read_model_fast(bytes, parser);
  REQUIRE(m.ok());
  const std::uint64_t header_end = 8 + m.value().header_length;
  const test::Run got = s.run("check " + s.url("norange", "big.safetensors"));
  INFO(got.out);
  // The header is checked: the container rules ran.
  CHECK(got.code == 0);
  CHECK(got.out.starts_with(s.url("norange", "big.safetensors") + ": OK"));
  // The markers are not: each is unchecked with the reason, and no consumer
  // that reads them is said to load the file without that note.
  CHECK(got.out.find("not checked: marker tensor 'model.layers.0.mlp.down_proj.comfy_quant' (the server ignores "
                     "Range requests (it answered HTTP 200, the whole file): only its first") != std::string::npos);
  for (const char* c : {"sglang", "comfyui", "kitchen"}) {
    CHECK(got.out.find(std::string("verdict ") + c + ": loads") != std::string::npos);
    CHECK(got.out.find(std::string("verdict ") + c + ": loads\n") == std::string::npos);
  }
  CHECK(got.out.find("verdict sglang: loads (config None); not checked: marker tensor") != std::string::npos);
  CHECK(s.log() == std::vector<std::string>{"GET /norange/big.safetensors bytes=0-99999"});
  std::pair<std::uint64_t, std::size_t> sent{0, 0};
  for (int i = 0; i < 100 && sent.second == 0; ++i) {  // logged once the server's writes end
    sent = s.sent("/norange/big.safetensors");
    if (sent.second == 0) ::usleep(50'000);
  }
  REQUIRE(sent.second == 1);
  // What was read (the first 100,000 bytes, the header inside them) plus what
  // the two sockets' buffers took before the client hung up.
  CHECK(sent.first <= std::max<std::uint64_t>(header_end, kHttpFirstReadBytes) + (std::uint64_t{4} << 20));
  CHECK(sent.first < bytes.size() / 2);
  WARN("a server that ignores Range sent " << sent.first << " of " << bytes.size() << " bytes (header ends at "
                                           << header_end << ")");
}

namespace {

// One fp8 layer laid out by hand: its marker first, inside the first read,
// then a 200 KiB weight and a NaN scale past it.
std::vector<std::uint8_t> fp8_marker_first() {
  const std::string marker = fp8_marker_bytes();
  const std::uint64_t w = 3200 * 64, m = marker.size();
  std::string header = "{\"m.comfy_quant\":{\"dtype\":\"U8\",\"shape\":[" + std::to_string(m) +
                       "],\"data_offsets\":[0," + std::to_string(m) + "]},\"m.weight\":{\"dtype\":\"F8_E4M3\","
                       "\"shape\":[3200,64],\"data_offsets\":[" + std::to_string(m) + "," + std::to_string(m + w) +
                       "]},\"m.weight_scale\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[" +
                       std::to_string(m + w) + "," + std::to_string(m + w + 4) + "]}}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::vector<std::uint8_t> out(8);
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(header.size() >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), marker.begin(), marker.end());
  out.insert(out.end(), w, 0x38);
  for (std::uint8_t b : {0x00, 0x00, 0xc0, 0x7f}) out.push_back(b);  // a quiet NaN
  return out;
}

}  // namespace

TEST_CASE("remote requests: --data on a server that ignores Range leaves the values past its start unchecked",
          "[remote]") {
  test::RemoteServer s;
  s.copy("corpus/examples/quant/fp8_nan_scale.safetensors", "a.safetensors");
  // The whole file is inside the first read: its values are all there.
  const test::Run whole = s.run("check --data " + s.url("norange", "a.safetensors"));
  INFO(whole.out);
  CHECK(whole.code == 1);
  CHECK(whole.out.find("CQ-DATA-SCALE") != std::string::npos);
  s.file("late.safetensors", fp8_marker_first());
  const test::Run on_disk = s.run("check --data '" + (s.dir / "files" / "late.safetensors").string() + "'");
  REQUIRE(on_disk.out.find("CQ-DATA-SCALE") != std::string::npos);  // the NaN scale, where it can be read
  const test::Run cut = s.run("check --data " + s.url("norange", "late.safetensors"));
  INFO(cut.out);
  CHECK(cut.out.find("CQ-DATA-SCALE") == std::string::npos);
  CHECK(cut.out.find("not checked: data rules of tensor 'm.weight_scale'") != std::string::npos);
  CHECK(cut.out.find("the server ignores Range requests (it answered HTTP 200, the whole file)") != std::string::npos);
  CHECK(cut.out.find("verdict comfyui: loads\n") == std::string::npos);
  CHECK(s.lines("GET /norange/late").size() == 1);
}

TEST_CASE("remote requests: a progress line on a terminal while headers arrive over a second", "[remote]") {
  if (std::system("command -v script >/dev/null 2>&1") != 0) {
    WARN("no script(1) to give the command a terminal: not run");
    return;
  }
  test::RemoteServer s;
  s.copy("corpus/examples/quant/fp8_e4m3fn_valid.safetensors", "a.safetensors");
  // stderr on the pseudo-terminal script(1) opens; stdout too, so both are in its output.
  const test::Run slow = s.shell("script -qec \"env no_proxy=127.0.0.1 NO_PROXY=127.0.0.1 '" + test::cli_path() +
                                 "' check --summary " + s.url("lag1600", "a.safetensors") + "\" /dev/null");
  CHECK(slow.out.find("\rsafespec check: ") != std::string::npos);
  CHECK(slow.out.find("requests, 0 files checked") != std::string::npos);
  // Not on a pipe: the same check's standard error holds nothing.
  const test::Run piped = s.run("check --summary " + s.url("lag1600", "a.safetensors"));
  CHECK(piped.err.empty());
}
