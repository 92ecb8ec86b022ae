// Standard input read once, front to back, holding only the bytes a command
// will ask for. A pipe cannot be read at an offset or twice, so what is not
// held when it streams past is gone; what is held is kept in pieces of
// kStdinPieceBytes bytes, never copied into a larger buffer (a buffer grown
// by doubling and then shrunk held the stream twice at its peak).
//
// By default every byte is held: `inspect`, `dequant` and `check --data` may
// read any tensor. `check` without --data reads only the header and the
// marker tensors (and the first 64 bytes, for its hint), and says so with a
// HoldPlan before the stream is read (src/commands/check_stdin.hpp); the
// rest is counted as it passes, so its peak does not grow with the stream.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "src/io/byte_file.hpp"

namespace safespec {

// Bytes [offset, offset + size) of the stream; a size may run past its end.
struct HeldRange {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

struct HoldPlan {
  // Given the stream's first 8 bytes (fewer when it is shorter), how many of
  // its first bytes to hold in one piece: the head.
  std::function<std::uint64_t(std::span<const std::uint8_t> first)> head;
  // Given the head as read (shorter when the stream ended in it), the ranges
  // after it to hold as well.
  std::function<std::vector<HeldRange>(std::span<const std::uint8_t> head)> more;
  bool holds_all() const { return !head; }
};

struct HeldStream {
  std::shared_ptr<const ByteSource> source;  // reading a byte not held is an IoError
  std::uint64_t size = 0;                    // the stream's length, every byte counted
};

// Reads `fd` to its end under `plan` (an empty plan holds all of it). More
// than `max_held` bytes to hold is an error, found with at most one byte over
// the bound held. The opener of "-" calls it with kMaxStdinBytes.
Result<HeldStream, IoError> read_held(int fd, const HoldPlan& plan, std::uint64_t max_held);

// How the first open of "-" in this process reads standard input; every
// later open shares that reading. Without a call, all of it is held. A call
// after the stream was read changes nothing.
void hold_stdin(HoldPlan plan);
// That one reading (ByteFile::open_stdin).
Result<HeldStream, IoError> stdin_stream();

}  // namespace safespec
