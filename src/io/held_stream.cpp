#include "src/io/held_stream.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "spec/limits.hpp"

namespace safespec {

namespace {

constexpr std::uint64_t kNoEnd = std::numeric_limits<std::uint64_t>::max();

std::uint64_t end_of(const HeldRange& r) { return r.size > kNoEnd - r.offset ? kNoEnd : r.offset + r.size; }

struct Piece {
  std::uint64_t offset = 0;
  std::size_t size = 0;      // filled
  std::size_t capacity = 0;  // allocated, never touched past `size`
  std::unique_ptr<std::uint8_t[]> bytes;
  std::uint64_t end() const { return offset + size; }
};

class HeldSource final : public ByteSource {
 public:
  HeldSource(std::vector<Piece> pieces, std::uint64_t size) : pieces_(std::move(pieces)), size_(size) {}

  Result<Unit, IoError> read_at(std::uint64_t offset, std::span<std::uint8_t> out) const override {
    if (offset > size_ || out.size() > size_ - offset)
      return IoError{"expected " + std::to_string(out.size()) + " bytes at offset " + std::to_string(offset) +
                     ", found " + std::to_string(offset > size_ ? 0 : size_ - offset) + " (standard input had " +
                     std::to_string(size_) + " bytes)"};
    while (!out.empty()) {
      // The last piece that starts at or before `offset`.
      auto it = std::upper_bound(pieces_.begin(), pieces_.end(), offset,
                                 [](std::uint64_t o, const Piece& p) { return o < p.offset; });
      if (it == pieces_.begin() || (--it)->end() <= offset)
        return IoError{"byte " + std::to_string(offset) +
                       " of standard input was not held: it streamed past before it was asked for"};
      const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), it->end() - offset));
      std::memcpy(out.data(), it->bytes.get() + (offset - it->offset), k);
      out = out.subspan(k);
      offset += k;
    }
    return Unit{};
  }

 private:
  std::vector<Piece> pieces_;  // by offset, disjoint
  std::uint64_t size_;
};

class Reader {
 public:
  Reader(int fd, std::uint64_t max_held) : fd_(fd), max_held_(max_held) {}

  // Reads up to stream byte `stop` or the end, holding what lies inside
  // `ranges` (by offset, disjoint, none before what was read), in pieces of
  // at most `piece` bytes.
  Result<Unit, IoError> pump(std::span<const HeldRange> ranges, std::uint64_t stop, std::uint64_t piece) {
    std::size_t ri = 0;
    while (pos_ < stop && !ended_) {
      while (ri < ranges.size() && end_of(ranges[ri]) <= pos_) ++ri;
      const bool hold = ri < ranges.size() && ranges[ri].offset <= pos_;
      std::uint8_t* into = nullptr;
      std::uint64_t want = stop - pos_;
      if (hold) {
        const std::uint64_t range_end = end_of(ranges[ri]);
        if (pieces_.empty() || pieces_.back().end() != pos_ || pieces_.back().size == pieces_.back().capacity) {
          // One byte past the bound tells "exactly the bound" from "over it".
          const std::uint64_t cap = std::min({piece, range_end - pos_, stop - pos_, max_held_ + 1 - held_});
          pieces_.push_back(Piece{pos_, 0, static_cast<std::size_t>(cap),
                                  std::make_unique_for_overwrite<std::uint8_t[]>(static_cast<std::size_t>(cap))});
        }
        Piece& p = pieces_.back();
        into = p.bytes.get() + p.size;
        want = std::min<std::uint64_t>(want, p.capacity - p.size);
      } else {
        if (!scratch_) scratch_ = std::make_unique_for_overwrite<std::uint8_t[]>(kStdinPieceBytes);
        into = scratch_.get();
        want = std::min({want, kStdinPieceBytes, ri < ranges.size() ? ranges[ri].offset - pos_ : kNoEnd});
      }
      auto got = read_some(into, static_cast<std::size_t>(want));
      if (!got) return got.error();
      if (got.value() == 0) {
        ended_ = true;
        break;
      }
      pos_ += got.value();
      if (hold) {
        pieces_.back().size += got.value();
        held_ += got.value();
        if (held_ > max_held_)
          return IoError{"standard input holds more than " + std::to_string(max_held_) +
                         " bytes (the bound on a checkpoint read from a pipe): save it to a file and check that"};
      }
    }
    return Unit{};
  }

  // Reads the stream's first `n` bytes (fewer at its end) into `out`.
  Result<std::size_t, IoError> first(std::uint8_t* out, std::size_t n) {
    std::size_t done = 0;
    while (done < n) {
      auto got = read_some(out + done, n - done);
      if (!got) return got.error();
      if (got.value() == 0) {
        ended_ = true;
        break;
      }
      done += got.value();
    }
    pos_ = held_ = done;
    return done;
  }
  // The head's piece, `capacity` bytes, starting with the `first` bytes read.
  void head_piece(std::span<const std::uint8_t> first, std::uint64_t capacity) {
    const auto cap = static_cast<std::size_t>(std::max<std::uint64_t>(std::min(capacity, max_held_ + 1), first.size()));
    pieces_.push_back(Piece{0, first.size(), cap, std::make_unique_for_overwrite<std::uint8_t[]>(cap)});
    std::memcpy(pieces_.back().bytes.get(), first.data(), first.size());
  }
  std::span<const std::uint8_t> head() const {
    if (pieces_.empty()) return {};
    return {pieces_.front().bytes.get(), pieces_.front().size};
  }
  HeldStream finish() && { return {std::make_shared<const HeldSource>(std::move(pieces_), pos_), pos_}; }

 private:
  Result<std::size_t, IoError> read_some(std::uint8_t* into, std::size_t want) {
    for (;;) {
      const ssize_t r = ::read(fd_, into, want);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {  // a non-blocking pipe: wait for it
        pollfd p{fd_, POLLIN, 0};
        ::poll(&p, 1, -1);
        continue;
      }
      return IoError{std::string("cannot read standard input: ") + std::strerror(errno)};
    }
  }

  int fd_;
  std::uint64_t max_held_;
  std::uint64_t pos_ = 0, held_ = 0;
  bool ended_ = false;
  std::vector<Piece> pieces_;
  std::unique_ptr<std::uint8_t[]> scratch_;  // where bytes not held are read
};

// The plan's ranges after the head, by offset, merged where they touch.
std::vector<HeldRange> after_head(std::vector<HeldRange> ranges, std::uint64_t head) {
  std::vector<HeldRange> out;
  for (HeldRange& r : ranges) {
    const std::uint64_t end = end_of(r);
    if (end <= head || r.size == 0) continue;
    r.offset = std::max(r.offset, head);
    r.size = end - r.offset;
    out.push_back(r);
  }
  std::sort(out.begin(), out.end(), [](const HeldRange& a, const HeldRange& b) { return a.offset < b.offset; });
  std::vector<HeldRange> merged;
  for (const HeldRange& r : out) {
    if (!merged.empty() && r.offset <= end_of(merged.back())) {
      const std::uint64_t end = std::max(end_of(merged.back()), end_of(r));
      merged.back().size = end - merged.back().offset;
    } else {
      merged.push_back(r);
    }
  }
  return merged;
}

}  // namespace

Result<HeldStream, IoError> read_held(int fd, const HoldPlan& plan, std::uint64_t max_held) {
  Reader reader(fd, max_held);
  if (plan.holds_all()) {
    const HeldRange all{0, kNoEnd};
    if (auto r = reader.pump({&all, 1}, kNoEnd, kStdinPieceBytes); !r) return r.error();
    return std::move(reader).finish();
  }
  // The first 8 bytes say how long the head is; it is held in one piece
  // (the plan reads it as one text), and the plan's ranges after it.
  std::uint8_t prefix[8];
  auto got = reader.first(prefix, sizeof prefix);
  if (!got) return got.error();
  const std::span<const std::uint8_t> first(prefix, got.value());
  const std::uint64_t head = std::max<std::uint64_t>(plan.head(first), first.size());
  reader.head_piece(first, head);
  const HeldRange head_range{0, head};
  if (auto r = reader.pump({&head_range, 1}, head, head); !r) return r.error();
  const std::vector<HeldRange> more = after_head(plan.more(reader.head()), head);
  if (auto r = reader.pump(more, kNoEnd, kStdinPieceBytes); !r) return r.error();
  return std::move(reader).finish();
}

namespace {

std::mutex stdin_mutex;
HoldPlan stdin_plan;  // guarded by stdin_mutex, read once
std::optional<Result<HeldStream, IoError>> stdin_read;

}  // namespace

void hold_stdin(HoldPlan plan) {
  const std::lock_guard lock(stdin_mutex);
  if (!stdin_read) stdin_plan = std::move(plan);
}

Result<HeldStream, IoError> stdin_stream() {
  const std::lock_guard lock(stdin_mutex);
  if (!stdin_read) {
    if (::isatty(STDIN_FILENO) == 1) stdin_read.emplace(IoError{"standard input is a terminal: pipe or redirect a checkpoint into it"});
    else stdin_read.emplace(read_held(STDIN_FILENO, stdin_plan, kMaxStdinBytes));
  }
  return *stdin_read;
}

}  // namespace safespec
