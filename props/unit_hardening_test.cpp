// Hardening fixes found by the adversarial corpus (docs/hardening.md), each
// pinned here with exact findings: index findings bounded per rule, and a
// file that shrinks while being read (ByteFile's open observer).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "props/catch.hpp"
#include "spec/index_rules.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/io/byte_file.hpp"
#include "src/commands/check.hpp"

using namespace safespec;

namespace {

std::string line(const Finding& f) { return std::string(rule_name(f.rule)) + " | " + f.where.text() + " | " + f.message; }

// Truncates the file to 12 bytes on its first open, after its size is taken.
int opens = 0;
void shrink_on_first_open(const std::string& path) {
  if (++opens == 1) REQUIRE(::truncate(path.c_str(), 12) == 0);
}

// Truncates the file to 65 bytes on its first open, after its size is taken.
void shrink_data_on_first_open(const std::string& path) {
  if (++opens == 1) REQUIRE(::truncate(path.c_str(), 65) == 0);
}

}  // namespace

TEST_CASE("ST-INDEX-SHARD-MISSING (index): 1,500 missing shards list 1,000 findings, then a count",
          "[ST-INDEX-SHARD-MISSING]") {
  ShardIndex index;
  ShardContents shards;
  for (int i = 0; i < 1500; ++i) {
    const std::string shard = "s" + std::to_string(10000 + i) + ".safetensors";
    REQUIRE(index.add("w" + std::to_string(i), shard) == ShardIndex::npos);
    shards[shard].problem = "cannot open: No such file or directory";
  }
  const Findings f = check_index(index, shards);
  REQUIRE(f.size() == 1001);
  CHECK(line(f[0]) ==
        "ST-INDEX-SHARD-MISSING | shard 's10000.safetensors' | expected a readable safetensors shard, found: cannot "
        "open: No such file or directory");
  CHECK(line(f[999]) == "ST-INDEX-SHARD-MISSING | shard 's10999.safetensors' | expected a readable safetensors "
                        "shard, found: cannot open: No such file or directory");
  CHECK(line(f[1000]) == "ST-INDEX-SHARD-MISSING | index | found 500 more findings of this rule beyond the 1000 listed");
}

TEST_CASE("I/O (F4 input): a file that shrinks between open and the header read is an I/O error") {
  const std::string path = (std::filesystem::temp_directory_path() / ("safespec_shrink_" + std::to_string(::getpid()) + ".safetensors")).string();
  {
    std::ofstream out(path, std::ios::binary);
    const std::string header = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}   )";  // 56 bytes (W5)
    const char prefix[8] = {static_cast<char>(header.size()), 0, 0, 0, 0, 0, 0, 0};
    out.write(prefix, 8);
    out << header << 'x';
  }
  opens = 0;
  set_open_observer(shrink_on_first_open);
  HeaderParser parser;
  const std::vector<FileReport> reports = check_paths({path}, CheckOptions{}, parser);
  set_open_observer(nullptr);
  std::filesystem::remove(path);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].findings.empty());
  REQUIRE(reports[0].io_error);
  // The first read of 65 bytes fails; made again as 8 bytes alone, it reads
  // the prefix, and the header's read reports the shrinking (src/parse/load.cpp).
  CHECK(*reports[0].io_error == "the file shrank while being read: expected 56 bytes at offset 8, found 4");
}

// load_file's first read takes 8 KiB with the prefix (src/parse/load.cpp). A file
// whose data shrinks after its size is taken, its 8 + 56 header bytes still
// there, fails that read; the prefix and the header are then read alone, as
// before: the report is the untouched file's, not an I/O error.
TEST_CASE("I/O (F4 input): a file whose data shrinks after its size is taken is read as before") {
  const auto tmp = std::filesystem::temp_directory_path();
  const std::string path = (tmp / ("safespec_shrink_data_" + std::to_string(::getpid()) + ".safetensors")).string();
  const std::string copy = (tmp / ("safespec_shrink_copy_" + std::to_string(::getpid()) + ".safetensors")).string();
  for (const std::string& p : {path, copy}) {
    std::ofstream out(p, std::ios::binary);
    const std::string header = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}   )";  // 56 bytes (W5)
    const char prefix[8] = {static_cast<char>(header.size()), 0, 0, 0, 0, 0, 0, 0};
    out.write(prefix, 8);
    out << header << 'x' << std::string(1000, 'y');
  }
  opens = 0;
  set_open_observer(shrink_data_on_first_open);
  HeaderParser parser;
  const std::vector<FileReport> shrunk = check_paths({path}, CheckOptions{}, parser);
  set_open_observer(nullptr);
  const std::vector<FileReport> untouched = check_paths({copy}, CheckOptions{}, parser);
  std::filesystem::remove(path);
  std::filesystem::remove(copy);
  REQUIRE(shrunk.size() == 1);
  REQUIRE(untouched.size() == 1);
  CHECK_FALSE(shrunk[0].io_error.has_value());
  REQUIRE(shrunk[0].model.has_value());
  CHECK(shrunk[0].model->file_size == 1065);
  CHECK(shrunk[0].model == untouched[0].model);
  std::vector<std::string> a, b;
  for (const Finding& f : shrunk[0].findings) a.push_back(line(f));
  for (const Finding& f : untouched[0].findings) b.push_back(line(f));
  CHECK(a == b);
  CHECK_FALSE(a.empty());  // 1,000 bytes past the last tensor
}
