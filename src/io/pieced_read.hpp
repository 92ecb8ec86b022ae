// A file read whole into one buffer in pieces that any of several threads
// may take: `check` on a 1,000-shard index read its 5 MB index on one thread
// (0.85 ms, page zeroing and copying) while the other had nothing to do yet,
// since no shard is known before the index is parsed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "spec/result.hpp"
#include "src/io/byte_file.hpp"

namespace safespec {

class PiecedRead {
 public:
  // Pieces of this size, a transparent huge page's: two threads that fault
  // pieces of one huge page in wait for each other (1 MiB pieces saved half
  // as much). A file no larger is read in one call, as before.
  static constexpr std::size_t kPieceBytes = std::size_t{2} << 20;

  // Reads file[0, size) into out[0, size) in pieces of `piece` bytes (> 0;
  // tests make them small); a file that is not local() in one piece, since a
  // server's bytes come one request at a time. `file` and `out` must outlive
  // this object.
  PiecedRead(const ByteFile& file, std::uint8_t* out, std::size_t size, std::size_t piece = kPieceBytes);

  // Reads pieces nobody has taken yet, until none is left. Any thread.
  void help();
  // help(), then waits until every piece is read. The answer is what one
  // read_at of the whole file gives: when a piece fails, the whole file is
  // read again in one call, so a file that shrank is reported as it always
  // was (its message names the whole read), and a file that only failed for
  // a moment is read.
  Result<Unit, IoError> finish();

 private:
  const ByteFile& file_;
  std::uint8_t* out_;
  std::size_t size_;
  std::size_t piece_;
  std::size_t pieces_;
  std::atomic<std::size_t> next_{0};
  std::atomic<std::size_t> done_{0};
  std::atomic<bool> failed_{false};
};

}  // namespace safespec
