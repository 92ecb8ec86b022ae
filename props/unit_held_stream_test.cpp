// Standard input read once, holding only what a plan asks for
// (src/io/held_stream.hpp): the bytes held read back exactly, a byte not
// held is an error (never a zero), every byte is counted, and the bound is
// on what is held, not on the stream.
#include <unistd.h>

#include <numeric>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "src/io/held_stream.hpp"

using namespace safespec;

namespace {

// A pipe holding `bytes` (under the pipe's 64 KiB), its writing end closed.
int held_stream_pipe(const std::vector<std::uint8_t>& bytes) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  REQUIRE(::write(fds[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  ::close(fds[1]);
  return fds[0];
}

std::vector<std::uint8_t> held_stream_bytes(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  std::iota(v.begin(), v.end(), std::uint8_t{1});
  return v;
}

Result<HeldStream, IoError> held_stream_read(const std::vector<std::uint8_t>& bytes, const HoldPlan& plan,
                                             std::uint64_t bound) {
  const int fd = held_stream_pipe(bytes);
  auto held = read_held(fd, plan, bound);
  ::close(fd);
  return held;
}

}  // namespace

TEST_CASE("held stream: without a plan every byte is held, in pieces, up to the bound", "[stdin]") {
  const auto bytes = held_stream_bytes(3000);
  auto all = held_stream_read(bytes, {}, 3000);
  REQUIRE(all.ok());
  CHECK(all.value().size == 3000);
  std::vector<std::uint8_t> back(3000);
  REQUIRE(all.value().source->read_at(0, back).ok());
  CHECK(back == bytes);
  auto over = held_stream_read(bytes, {}, 2999);
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().message ==
        "standard input holds more than 2999 bytes (the bound on a checkpoint read from a pipe): save it to a file and "
        "check that");
}

TEST_CASE("held stream: a plan holds its head and ranges, counts the rest, and refuses bytes it let go", "[stdin]") {
  const auto bytes = held_stream_bytes(5000);
  std::vector<std::uint8_t> first_seen;
  HoldPlan plan;
  plan.head = [&](std::span<const std::uint8_t> first) {
    first_seen.assign(first.begin(), first.end());
    return std::uint64_t{100};
  };
  std::size_t head_seen = 0;
  plan.more = [&](std::span<const std::uint8_t> head) {
    head_seen = head.size();
    // Unsorted, overlapping, one inside the head, one past the end.
    return std::vector<HeldRange>{{3000, 10}, {50, 100}, {2995, 10}, {4990, 100}};
  };
  // The bound is far under the stream: only what is held counts.
  auto held = held_stream_read(bytes, plan, 400);
  REQUIRE(held.ok());
  CHECK(first_seen == std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + 8));
  CHECK(head_seen == 100);
  CHECK(held.value().size == 5000);
  const ByteSource& s = *held.value().source;
  for (auto [at, n] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 150}, {2995, 15}, {4990, 10}, {140, 5}}) {
    std::vector<std::uint8_t> back(n);
    INFO(at);
    REQUIRE(s.read_at(at, back).ok());
    CHECK(std::equal(back.begin(), back.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at)));
  }
  std::vector<std::uint8_t> one(1);
  auto gone = s.read_at(150, one);
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.error().message == "byte 150 of standard input was not held: it streamed past before it was asked for");
  std::vector<std::uint8_t> across(20);
  CHECK_FALSE(s.read_at(2990, across).ok());  // starts held, runs into bytes let go
  CHECK(s.read_at(4995, std::span(across).first(6)).error().message ==
        "expected 6 bytes at offset 4995, found 5 (standard input had 5000 bytes)");
}

TEST_CASE("held stream: a stream that ends inside the head is held whole, and the plan sees it short", "[stdin]") {
  const auto bytes = held_stream_bytes(5);
  HoldPlan plan;
  std::size_t first_size = 99, head_size = 99;
  plan.head = [&](std::span<const std::uint8_t> first) {
    first_size = first.size();
    return std::uint64_t{1} << 40;  // a length prefix may claim anything
  };
  plan.more = [&](std::span<const std::uint8_t> head) {
    head_size = head.size();
    return std::vector<HeldRange>{};
  };
  auto held = held_stream_read(bytes, plan, 1000);
  REQUIRE(held.ok());
  CHECK(first_size == 5);
  CHECK(head_size == 5);
  CHECK(held.value().size == 5);
  std::vector<std::uint8_t> back(5);
  REQUIRE(held.value().source->read_at(0, back).ok());
  CHECK(back == bytes);
  // A head over the bound is refused with one byte past it held.
  auto over = held_stream_read(held_stream_bytes(300), plan, 200);
  REQUIRE_FALSE(over.ok());
}
