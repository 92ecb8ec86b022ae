// Checkpoints that are not local files (src/io/byte_file.hpp): `-` reads
// standard input, http(s):// URLs are read by HTTP range requests
// (src/io/http_range.hpp) from props/http_range_server.py, which this file
// starts on 127.0.0.1 and which logs every Range asked. No other address is
// contacted: the proxies of the environment are bypassed for 127.0.0.1.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/remote_server.hpp"
#include "props/unit_support.hpp"
#include "spec/limits.hpp"
#include "src/io/byte_file.hpp"
#include "src/io/held_stream.hpp"
#include "src/parse/load.hpp"
#include "src/io/writer.hpp"

using namespace safespec;
using safespec::test::Run;

namespace {

using Server = test::RemoteServer;
using test::read_text;
using test::replace_all;

const std::string kNanScale = "corpus/examples/quant/fp8_nan_scale.safetensors";

// fp8_nan_scale.safetensors with a header longer than the first ranged read
// (a 150,000-byte metadata value), so its tensors lie past that read too.
std::vector<std::uint8_t> nan_scale_long_header() {
  const std::string bytes = read_text(kNanScale);
  const std::span<const std::uint8_t> file(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  HeaderParser parser;
  auto m = read_model_fast(file, parser);
  REQUIRE(m.ok());
  std::vector<TensorView> views;
  for (const TensorEntry& t : m.value().header.tensors)
    views.push_back({t.name.str(), t.dtype, std::vector<std::uint64_t>(t.shape), file.subspan(8 + m.value().header_length + t.begin, t.end - t.begin)});
  auto out = serialize(std::move(views), Metadata{{"pad", std::string(150'000, 'x')}});
  REQUIRE(out.ok());
  return std::move(out).value();
}

}  // namespace

TEST_CASE("remote: a URL is checked from its prefix and header alone, as the same file on disk", "[remote]") {
  Server s;
  const std::string local = s.copy(kNanScale, "a.safetensors");
  Run want = s.run("check '" + local + "'");
  replace_all(want.out, local, s.url("range", "a.safetensors"));
  const Run got = s.run("check " + s.url("range", "a.safetensors"));
  CHECK(got.code == want.code);
  CHECK(got.out == want.out);
  // One request: the first kHttpFirstReadBytes hold the whole header.
  CHECK(s.log() == std::vector<std::string>{"GET /range/a.safetensors bytes=0-99999"});
}

TEST_CASE("remote: a header longer than the first read costs one more ranged request", "[remote]") {
  Server s;
  const std::vector<std::uint8_t> bytes = nan_scale_long_header();
  const std::string local = s.file("long.safetensors", bytes);
  Run want = s.run("check --json '" + local + "'");
  replace_all(want.out, local, s.url("range", "long.safetensors"));
  const Run got = s.run("check --json " + s.url("range", "long.safetensors"));
  CHECK(got.out == want.out);
  CHECK(got.code == 0);
  const std::vector<std::string> log = s.log();
  REQUIRE(log.size() >= 2);
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::uint64_t{bytes[static_cast<std::size_t>(i)]} << (8 * i);
  CHECK(log[0] == "GET /range/long.safetensors bytes=0-99999");
  CHECK(log[1] == "GET /range/long.safetensors bytes=8-" + std::to_string(8 + n - 1));
}

TEST_CASE("remote: --data reads the tensors the value rules need, each by one ranged request", "[remote]") {
  Server s;
  const std::vector<std::uint8_t> bytes = nan_scale_long_header();
  s.file("long.safetensors", bytes);
  const Run got = s.run("check --data " + s.url("range", "long.safetensors"));
  CHECK(got.code == 1);
  CHECK(got.out.find("CQ-DATA-SCALE at tensor 'model.layers.0.mlp.down_proj.weight_scale'") != std::string::npos);
  // Every request is the first read, the header, or exactly one tensor's bytes.
  const std::span<const std::uint8_t> file(bytes);
  HeaderParser parser;
  auto m = read_model_fast(file, parser);
  REQUIRE(m.ok());
  const std::uint64_t base = 8 + m.value().header_length;
  std::vector<std::string> allowed{"bytes=0-99999", "bytes=8-" + std::to_string(base - 1)};
  std::string scale;
  for (const TensorEntry& t : m.value().header.tensors) {
    allowed.push_back("bytes=" + std::to_string(base + t.begin) + "-" + std::to_string(base + t.end - 1));
    if (t.name.view().ends_with("weight_scale")) scale = allowed.back();
  }
  bool read_scale = false;
  for (const std::string& l : s.log()) {
    const std::string range = l.substr(l.rfind(' ') + 1);
    INFO(l);
    CHECK(std::find(allowed.begin(), allowed.end(), range) != allowed.end());
    read_scale = read_scale || range == scale;
  }
  CHECK(read_scale);
}

TEST_CASE("remote: a redirect on the same server is followed", "[remote]") {
  Server s;
  s.copy(kNanScale, "a.safetensors");
  const Run got = s.run("check --summary " + s.url("redirect", "a.safetensors"));
  CHECK(got.code == 0);
  CHECK(got.out.starts_with(s.url("redirect", "a.safetensors") + ": OK"));
  CHECK(s.log() == std::vector<std::string>{"GET /redirect/a.safetensors bytes=0-99999",
                                            "GET /range/a.safetensors bytes=0-99999"});
}

TEST_CASE("remote: redirects are bounded and never leave http and https", "[remote]") {
  Server s;
  s.copy(kNanScale, "a.safetensors");
  Run got = s.run("check " + s.url("loop", "a.safetensors"));
  CHECK(got.code == 2);
  CHECK(got.out == s.url("loop", "a.safetensors") + ": cannot check: more than 5 redirects\n");
  CHECK(s.log().size() == static_cast<std::size_t>(kHttpMaxRedirects) + 1);
  got = s.run("check " + s.url("elsewhere", "a.safetensors"));
  CHECK(got.code == 2);
  CHECK(got.out == s.url("elsewhere", "a.safetensors") +
                       ": cannot check: a redirect to a URL that is not http:// or https:// (file:///etc/passwd)\n");
}

TEST_CASE("remote: a server that ignores Range is read from the start of its answer, not downloaded", "[remote]") {
  Server s;
  // A file inside the first read's 100,000 bytes is all there: checked as on disk.
  const std::string local = s.copy(kNanScale, "a.safetensors");
  Run want = s.run("check '" + local + "'");
  replace_all(want.out, local, s.url("norange", "a.safetensors"));
  const Run got = s.run("check " + s.url("norange", "a.safetensors"));
  CHECK(got.code == want.code);
  CHECK(got.out == want.out);
  // 64 MiB, more than the loopback's socket buffers hold: the server sees the
  // client hang up once the start is read instead of sending the body. Its
  // prefix (0: no header) is checked as any other.
  s.file("big.safetensors", std::vector<std::uint8_t>(std::size_t{64} << 20, 0));
  const Run big = s.run("check " + s.url("norange", "big.safetensors"));
  CHECK(big.code == 1);
  CHECK(big.out.find("FAIL") != std::string::npos);
  std::vector<std::string> aborted;
  for (int i = 0; i < 100 && aborted.empty(); ++i) {  // the server logs it when its write fails
    aborted = s.lines("aborted ");
    if (aborted.empty()) ::usleep(50'000);
  }
  CHECK(aborted == std::vector<std::string>{"aborted /norange/big.safetensors"});
}

TEST_CASE("remote: a Content-Range other than the bytes asked is refused", "[remote]") {
  Server s;
  s.copy(kNanScale, "a.safetensors");
  const Run got = s.run("check " + s.url("badrange", "a.safetensors"));
  CHECK(got.code == 2);
  CHECK(got.out == s.url("badrange", "a.safetensors") +
                       ": cannot check: the server answered 'Range: bytes=0-99999' with Content-Range 'bytes "
                       "1-855/855', not the bytes asked: refused\n");
}

TEST_CASE("remote: an unknown size (Content-Range total '*') is said, not assumed", "[remote]") {
  Server s;
  s.copy(kNanScale, "a.safetensors");
  const Run got = s.run("check " + s.url("star", "a.safetensors"));
  CHECK(got.code == 2);
  CHECK(got.out == s.url("star", "a.safetensors") +
                       ": cannot check: the server does not say the file's size (Content-Range 'bytes 0-854/*'): "
                       "the container rules need it, so the file is not checked\n");
}

TEST_CASE("remote: a slow server times out, after the bounded retries", "[remote]") {
  Server s;
  s.copy(kNanScale, "a.safetensors");
  const auto start = std::chrono::steady_clock::now();
  const Run got = s.run("check " + s.url("slow", "a.safetensors"), "SAFESPEC_HTTP_TIMEOUT_MS=300");
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(got.code == 2);
  CHECK(got.out == s.url("slow", "a.safetensors") + ": cannot check: no complete answer within 300 ms\n");
  CHECK(s.log().size() == static_cast<std::size_t>(kHttpMaxAttempts));
  CHECK(took < std::chrono::seconds(5));  // the server answers after 5 s
}

TEST_CASE("remote: a truncated body is an error, after the bounded retries", "[remote]") {
  Server s;
  s.copy(kNanScale, "a.safetensors");
  const Run got = s.run("check " + s.url("truncated", "a.safetensors"));
  CHECK(got.code == 2);
  CHECK(got.out == s.url("truncated", "a.safetensors") +
                       ": cannot check: truncated body: expected 855 bytes ('Range: bytes=0-99999'), received 427\n");
  CHECK(s.log().size() == static_cast<std::size_t>(kHttpMaxAttempts));
}

TEST_CASE("remote: a transient 503 is tried again, a 404 is not", "[remote]") {
  Server s;
  s.copy(kNanScale, "a.safetensors");
  Run got = s.run("check --summary " + s.url("flaky", "a.safetensors"));
  CHECK(got.code == 0);
  CHECK(s.log() == std::vector<std::string>{"GET /flaky/a.safetensors bytes=0-99999",
                                            "GET /flaky/a.safetensors bytes=0-99999"});
  got = s.run("check " + s.url("missing", "a.safetensors"));
  CHECK(got.code == 2);
  CHECK(got.out == s.url("missing", "a.safetensors") + ": cannot check: the server answered HTTP 404\n");
  CHECK(s.log().size() == 3);
}

TEST_CASE("remote: an empty file (HTTP 416) is checked as the empty file on disk", "[remote]") {
  Server s;
  const std::string local = s.file("empty.safetensors", {});
  Run want = s.run("check '" + local + "'");
  replace_all(want.out, local, s.url("range", "empty.safetensors"));
  const Run got = s.run("check " + s.url("range", "empty.safetensors"));
  CHECK(got.code == want.code);
  CHECK(got.out == want.out);
}

TEST_CASE("remote: a shard index at a URL reads its shards beside it", "[remote]") {
  Server s;
  const std::string dir = "corpus/examples/sharded/";
  for (const char* f : {"model.safetensors.index.json", "model-00001-of-00002.safetensors",
                        "model-00002-of-00002.safetensors"})
    s.copy(dir + f, f);
  const std::string local_dir = (s.dir / "files").string() + "/";
  Run want = s.run("check '" + local_dir + "model.safetensors.index.json'");
  replace_all(want.out, local_dir, s.base + "/range/");
  const Run got = s.run("check " + s.url("range", "model.safetensors.index.json"));
  CHECK(got.code == want.code);
  CHECK(got.out == want.out);
  const std::vector<std::string> log = s.log();
  CHECK(std::count(log.begin(), log.end(), "GET /range/model-00001-of-00002.safetensors bytes=0-99999") >= 1);
  CHECK(std::count(log.begin(), log.end(), "GET /range/model-00002-of-00002.safetensors bytes=0-99999") >= 1);
}

TEST_CASE("stdin: check - reads a piped checkpoint and names it -", "[stdin]") {
  Server s;  // for its scratch directory and runner; no URL is read
  const std::string local = s.copy(kNanScale, "a.safetensors");
  Run want = s.run("check --json '" + local + "'");
  replace_all(want.out, "\"path\":\"" + local + "\"", "\"path\":\"-\"");
  Run got = s.run("check --json - < '" + local + "'");
  CHECK(got.code == want.code);
  CHECK(got.out == want.out);
  // --data reads the data bytes from the same one reading of the stream.
  got = s.run("check --data - < '" + local + "'");
  CHECK(got.code == 1);
  CHECK(got.out.starts_with("-: FAIL (1 error, 0 warnings, profile strict)\n  error   CQ-DATA-SCALE"));
  got = s.run("inspect - < '" + local + "'");
  CHECK(got.code == 0);
  CHECK(got.out.find("header length 432 bytes, data 415 bytes, 4 tensors") != std::string::npos);
  CHECK(s.log().empty());
}

TEST_CASE("stdin: table, diff and dequant read - as they read the file", "[stdin]") {
  Server s;
  const std::string local = s.copy("corpus/examples/quant/fp8_e4m3fn_valid.safetensors", "fp8.safetensors");
  Run want = s.run("table '" + local + "'");
  Run got = s.run("table - < '" + local + "'");
  CHECK(got.code == want.code);
  CHECK(got.out.find("\n-  ") != std::string::npos);
  CHECK(got.out.find("loads (ComfyFp8Config)") != std::string::npos);
  // The same bytes on both sides: no difference, exit 0.
  got = s.run("diff - '" + local + "' < '" + local + "'");
  CHECK(got.code == 0);
  const std::string layer = "model.layers.0.mlp.down_proj";
  REQUIRE(s.run("dequant '" + local + "' --layer " + layer + " --out '" + (s.dir / "want.safetensors").string() + "'")
              .code == 0);
  REQUIRE(s.run("dequant - --layer " + layer + " --out '" + (s.dir / "got.safetensors").string() + "' < '" + local + "'")
              .code == 0);
  CHECK(read_text(s.dir / "got.safetensors") == read_text(s.dir / "want.safetensors"));
  CHECK(s.log().empty());
}

TEST_CASE("stdin: a stream over the bound is refused, one at the bound is read", "[stdin]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const std::string data(100, 'x');
  REQUIRE(::write(fds[1], data.data(), data.size()) == 100);
  ::close(fds[1]);
  auto over = read_held(fds[0], HoldPlan{}, 99);
  ::close(fds[0]);
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().message ==
        "standard input holds more than 99 bytes (the bound on a checkpoint read from a pipe): save it to a file and "
        "check that");
  REQUIRE(::pipe(fds) == 0);
  REQUIRE(::write(fds[1], data.data(), data.size()) == 100);
  ::close(fds[1]);
  auto at = read_held(fds[0], HoldPlan{}, 100);
  ::close(fds[0]);
  REQUIRE(at.ok());
  CHECK(at.value().size == 100);
  CHECK(kMaxStdinBytes == std::uint64_t{1} << 30);
}
