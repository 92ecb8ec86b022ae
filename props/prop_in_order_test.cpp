// Reports handed on in path order while later files are still being read
// (src/io/in_order.hpp), and the walk for tensors in two files of a directory
// that rides on it (src/commands/check.cpp, src/parse/name_repeats.hpp): the same findings
// as the walk over the same files after they are all read (--checkpoint).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "src/commands/check.hpp"
#include "src/io/in_order.hpp"
#include "src/io/writer.hpp"

using namespace safespec;
namespace fs = std::filesystem;

namespace {

// Items 0..n-1 finished on `threads` threads in a shuffled order.
std::vector<std::size_t> handed_on(std::size_t n, unsigned threads, std::uint32_t seed, std::atomic<int>& most_inside) {
  std::vector<std::size_t> order(n), seen;
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  std::atomic<int> inside{0};
  InOrder in_order(n, [&](std::size_t i) {
    const int now = ++inside;
    most_inside = std::max(most_inside.load(), now);
    seen.push_back(i);  // one caller at a time, or this races (ASan/TSan would say)
    --inside;
  });
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (std::size_t k; (k = next++) < n;) in_order.done(order[k]);
    });
  for (std::thread& t : pool) t.join();
  CHECK(in_order.handed() == n);
  return seen;
}

std::vector<std::uint8_t> file_of(const std::vector<std::string>& names) {
  static const std::vector<std::uint8_t> one{7};
  std::vector<TensorView> views;
  for (const std::string& n : names) views.push_back(TensorView{n, Dtype::U8, {1}, one});
  auto bytes = serialize(views, std::nullopt);
  REQUIRE(bytes.ok());
  return bytes.value();
}

std::vector<std::string> collisions(const std::vector<FileReport>& reports) {
  std::vector<std::string> out;
  for (const FileReport& r : reports)
    for (const Finding& f : r.findings)
      if (f.rule == RuleId::IndexTensorInTwoShards) out.push_back(r.path + " | " + f.where.text() + " | " + f.message);
  return out;
}

}  // namespace

TEST_CASE("InOrder: every item handed on once, in order, one call at a time, however they finish", "[prop][jobs]") {
  for (const unsigned threads : {1u, 2u, 4u})
    for (std::uint32_t seed = 0; seed < 20; ++seed) {
      INFO(threads << " threads, seed " << seed);
      std::atomic<int> most_inside{0};
      const std::vector<std::size_t> seen = handed_on(500, threads, seed, most_inside);
      REQUIRE(seen.size() == 500);
      for (std::size_t i = 0; i < seen.size(); ++i) REQUIRE(seen[i] == i);
      CHECK(most_inside == 1);
    }
}

TEST_CASE("InOrder: an exception reaches the thread that handed the item on, and items after it still go on", "[jobs]") {
  std::vector<std::size_t> seen;
  InOrder in_order(4, [&](std::size_t i) {
    if (i == 1) throw std::runtime_error("no");
    seen.push_back(i);
  });
  in_order.done(1);  // not next: nothing handed on
  CHECK(seen.empty());
  CHECK_THROWS_AS(in_order.done(0), std::runtime_error);  // hands on 0, then 1 throws
  CHECK(seen == std::vector<std::size_t>{0});
  in_order.done(3);
  in_order.done(2);  // the walk was left free: this call hands on 2 and 3
  CHECK(seen == std::vector<std::size_t>{0, 2, 3});
  CHECK(in_order.handed() == 4);
}

// A folder given with --checkpoint flags what its files listed with
// --checkpoint do, on any number of threads. The folder starts with an
// unreadable file and an empty header, and its later files hold more names
// than the first (the walk's table grows).
TEST_CASE("ST-INDEX-TENSOR-IN-TWO-SHARDS: a folder with --checkpoint flags what its files listed with it do",
          "[ST-INDEX-TENSOR-IN-TWO-SHARDS][jobs]") {
  test::TempDir t("safespec_unit_in_order");
  const fs::path dir = t.dir / "ckpt";
  fs::create_directories(dir);
  std::vector<std::string> files;
  const auto add = [&](const std::vector<std::uint8_t>& bytes) {
    char name[32];
    std::snprintf(name, sizeof name, "f%03zu.safetensors", files.size());
    files.push_back((dir / name).string());
    std::ofstream(files.back(), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  };
  add({1, 2, 3});         // shorter than the prefix: no model
  add(file_of({}));       // no tensors
  add(file_of({"a.0"}));  // one tensor: the table is sized from this file
  for (std::size_t i = 3; i < 160; ++i) {
    std::vector<std::string> names;
    for (std::size_t k = 0; k < 2 + i % 9; ++k) names.push_back("a." + std::to_string((i * 7 + k * 13) % 400));
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    add(file_of(names));
  }
  HeaderParser parser;
  const std::vector<std::string> expected = collisions(check_paths(files, CheckOptions{.checkpoint = true, .jobs = 1}, parser));
  REQUIRE(expected.size() > 300);
  for (const unsigned jobs : {1u, 2u, 3u}) {
    INFO("--jobs " << jobs);
    CHECK(collisions(check_paths({dir.string()}, CheckOptions{.checkpoint = true, .jobs = jobs}, parser)) == expected);
    CHECK(collisions(check_paths(files, CheckOptions{.checkpoint = true, .jobs = jobs}, parser)) == expected);
  }
}
