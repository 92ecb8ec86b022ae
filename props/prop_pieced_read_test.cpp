// A file read in pieces by several threads at once (src/io/pieced_read.hpp):
// the bytes one read_at of the whole file gives, and its error when the file
// shrank, whatever the piece size, the thread count and the order in which
// the threads take the pieces.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "props/catch.hpp"
#include "src/io/byte_file.hpp"
#include "src/io/pieced_read.hpp"
#include "src/parse/shard_index.hpp"
#include <rapidcheck/catch.h>

using namespace safespec;

namespace pieced_read_test {

namespace fs = std::filesystem;

struct TempFile {
  std::string path;
  explicit TempFile(const std::string& bytes) {
    path = (fs::temp_directory_path() / ("safespec_pieced_" + std::to_string(::getpid()) + ".bin")).string();
    std::ofstream(path, std::ios::binary) << bytes;
  }
  ~TempFile() {
    std::error_code ec;
    fs::remove(path, ec);
  }
};

// The file read by `threads` threads: the first waits in finish(), the
// others help.
Result<Unit, IoError> read_by(const ByteFile& file, std::vector<std::uint8_t>& out, std::size_t piece, unsigned threads) {
  PiecedRead read(file, out.data(), out.size(), piece);
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads; ++t) helpers.emplace_back([&] { read.help(); });
  auto result = read.finish();
  for (std::thread& h : helpers) h.join();
  return result;
}

int truncations = 0;
std::size_t truncate_to = 0;
void truncate_on_open(const std::string& path) {
  ++truncations;
  fs::resize_file(path, truncate_to);
}

}  // namespace pieced_read_test

using namespace pieced_read_test;

TEST_CASE("PiecedRead: any piece size on 1-3 threads gives the file's bytes", "[prop]") {
  rc::prop("the bytes equal the file's", [] {
    const auto size = *rc::gen::inRange<std::size_t>(0, 5000);
    const auto piece = *rc::gen::inRange<std::size_t>(1, 1200);
    const auto threads = *rc::gen::inRange<unsigned>(1, 4);
    std::string bytes(size, '\0');
    for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 131 + size) & 0xFF);
    const TempFile f(bytes);
    auto file = ByteFile::open(f.path);
    RC_ASSERT(file.ok());
    std::vector<std::uint8_t> out(size, 0xEE);
    RC_ASSERT(read_by(file.value(), out, piece, threads).ok());
    RC_ASSERT(std::string(out.begin(), out.end()) == bytes);
  });
}

TEST_CASE("PiecedRead: a file that shrank gives the error of one whole read, on 1-3 threads") {
  const TempFile f(std::string(10000, 'x'));
  for (unsigned threads = 1; threads <= 3; ++threads) {
    auto file = ByteFile::open(f.path);
    REQUIRE(file.ok());
    fs::resize_file(f.path, 4500);  // after the size was taken: pieces 3 and on fail
    std::vector<std::uint8_t> out(10000);
    const auto r = read_by(file.value(), out, 1500, threads);
    REQUIRE(!r.ok());
    CHECK(r.error().message == "the file shrank while being read: expected 10000 bytes at offset 0, found 4500");
    std::ofstream(f.path, std::ios::binary) << std::string(10000, 'x');
  }
}

// check_shard_index reads a local index with PiecedRead on every worker.
TEST_CASE("ST-INDEX-JSON: an index that shrinks after it is opened is an I/O error of the whole read, on 1 and 2 jobs",
          "[ST-INDEX-JSON]") {
  const std::string text = R"({"weight_map": {"a": "s.safetensors"}})";
  for (unsigned jobs : {1u, 2u}) {
    const fs::path dir = fs::temp_directory_path() / ("safespec_pieced_index_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string index = (dir / "model.safetensors.index.json").string();
    std::ofstream(index, std::ios::binary) << text;
    truncations = 0;
    truncate_to = 10;
    set_open_observer(truncate_on_open);
    HeaderParser parser;
    const std::vector<FileReport> reports = check_shard_index(index, Profile::Strict, parser, nullptr, jobs);
    set_open_observer(nullptr);
    fs::remove_all(dir);
    CHECK(truncations == 1);
    REQUIRE(reports.size() == 1);
    CHECK(reports[0].findings.empty());
    REQUIRE(reports[0].io_error);
    CHECK(*reports[0].io_error == "the file shrank while being read: expected " + std::to_string(text.size()) +
                                      " bytes at offset 0, found 10");
  }
}

TEST_CASE("ST-INDEX-SHARD-MISSING: an index of several pieces reads the same on 1 and 2 jobs", "[ST-INDEX-SHARD-MISSING]") {
  // About 4.7 MB: three pieces of PiecedRead::kPieceBytes.
  std::string text = R"({"metadata": {"total_size": 0}, "weight_map": {)";
  for (int i = 0; i < 100000; ++i)
    text += (i ? ", \"" : "\"") + std::string("model.layers.") + std::to_string(i) + ".w\": \"gone.safetensors\"";
  text += "}}";
  REQUIRE(text.size() > 2 * PiecedRead::kPieceBytes);
  const fs::path dir = fs::temp_directory_path() / ("safespec_pieced_big_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string index = (dir / "model.safetensors.index.json").string();
  std::ofstream(index, std::ios::binary) << text;
  HeaderParser parser;
  std::vector<std::vector<std::string>> seen;
  for (unsigned jobs : {1u, 2u}) {
    const std::vector<FileReport> reports = check_shard_index(index, Profile::Strict, parser, nullptr, jobs);
    REQUIRE(reports.size() == 1);
    REQUIRE(!reports[0].io_error);
    std::vector<std::string> lines;
    for (const Finding& f : reports[0].findings) lines.push_back(std::string(rule_name(f.rule)) + " " + f.message);
    seen.push_back(lines);
  }
  fs::remove_all(dir);
  CHECK(seen[0] == seen[1]);
  REQUIRE(seen[0].size() == 1);
  CHECK(seen[0][0] ==
        "ST-INDEX-SHARD-MISSING expected a readable safetensors shard, found: cannot open: No such file or directory");
}
