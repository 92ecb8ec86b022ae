#include "src/io/pieced_read.hpp"

#include <algorithm>
#include <span>

namespace safespec {

PiecedRead::PiecedRead(const ByteFile& file, std::uint8_t* out, std::size_t size, std::size_t piece)
    : file_(file),
      out_(out),
      size_(size),
      piece_(file.local() ? std::max<std::size_t>(piece, 1) : std::max<std::size_t>(size, 1)),
      pieces_(std::max<std::size_t>(1, size / piece_ + (size % piece_ != 0))) {}

void PiecedRead::help() {
  for (std::size_t k = next_.fetch_add(1, std::memory_order_relaxed); k < pieces_;
       k = next_.fetch_add(1, std::memory_order_relaxed)) {
    const std::size_t at = k * piece_;
    const std::size_t n = std::min(piece_, size_ - at);
    // Every piece taken is counted done, whatever happens to it: the reader
    // waits for the count. A piece that fails, or whose error could not be
    // built (bad_alloc), makes finish() read the whole file again.
    try {
      if (n > 0 && !file_.read_at(at, std::span(out_ + at, n))) failed_.store(true, std::memory_order_relaxed);
    } catch (...) {
      failed_.store(true, std::memory_order_relaxed);
    }
    // Release: the piece's bytes are seen by whoever sees the count.
    if (done_.fetch_add(1, std::memory_order_release) + 1 == pieces_) done_.notify_all();
  }
}

Result<Unit, IoError> PiecedRead::finish() {
  help();
  for (std::size_t d = done_.load(std::memory_order_acquire); d < pieces_; d = done_.load(std::memory_order_acquire))
    done_.wait(d, std::memory_order_acquire);
  if (!failed_.load(std::memory_order_relaxed)) return Unit{};
  return file_.read_at(0, std::span(out_, size_));
}

}  // namespace safespec
