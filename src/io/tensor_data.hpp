// Reading tensor bytes for the --data rules (spec/quant/data_rules.hpp) from
// the checkpoint files, by positional reads: a hostile header can name any
// offsets and sizes, so every offset is checked against the file's size, and
// a tensor whose bytes overlap another's is not read (spec/limits.hpp,
// "--data has no bound ...").
//
// pread, not mmap: a mapped file that another process truncates raises
// SIGBUS on the next touch of a lost page, and safespec must never crash
// (the header reader reads by pread for the same reason, header_memory.cpp).
// From the page cache a pread into a buffer that stays in L2 costs one copy
// at memory speed, which is not what limits the rules; and the kernel's
// readahead follows sequential preads as it follows page faults.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "spec/limits.hpp"
#include "spec/model.hpp"
#include "spec/quant/checkpoint.hpp"
#include "spec/quant/data_rules.hpp"
#include "src/io/byte_file.hpp"

namespace safespec {

// The bounds are parameters so tests can reach them with small files.
struct DataReadOptions {
  std::uint64_t chunk = 0;  // bytes per pread; 0: kDataChunkBytes (a URL: kDataChunkBytesRemote)
  unsigned threads = 0;     // 0: the machine's cores, at most kDataThreadsMax; a URL's: 1
};

class FileTensorData final : public quant::TensorData {
 public:
  struct Source {
    std::string path;
    const Model* model = nullptr;  // never null; outlives this object
  };
  using Options = DataReadOptions;

  // One source per file index (TensorRef::file), in quant::CheckpointFile order.
  explicit FileTensorData(std::vector<Source> files, Options options = {});
  explicit FileTensorData(std::span<const quant::CheckpointFile> files, Options options = {});
  ~FileTensorData() override;

  // Streams the tensor; or why it was not read: the file cannot be read, the
  // offsets lie outside it or overlap another tensor's, an I/O error midway.
  // Safe to call from several threads at once.
  quant::TensorScan scan(const quant::TensorRef& t, const quant::TensorChunk& chunk) const override;
  // On threads() threads, each taking the next job as it finishes one.
  void run_jobs(std::size_t n, const std::function<void(std::size_t)>& job) const override;

  // The tensor whole (linear, dequant): at most kMaxTensorBytes.
  Result<std::vector<std::uint8_t>, std::string> whole(const quant::TensorRef& t) const;

  std::uint64_t bytes_read() const { return read_.load(); }
  unsigned threads() const { return threads_; }
  std::uint64_t chunk() const { return chunk_; }

 private:
  struct Open;
  struct Span {
    const Open* file = nullptr;
    std::uint64_t start = 0;  // from the file's first byte
    std::uint64_t size = 0;
  };
  // The checks every read shares; `overlap`: refuse a tensor that overlaps another.
  Result<Span, std::string> locate(const quant::TensorRef& t, bool overlap) const;
  const Open& open(std::size_t file) const;

  std::vector<Source> sources_;
  std::uint64_t chunk_;
  unsigned threads_;
  mutable std::mutex mutex_;  // guards opening files and building their overlap sets
  std::vector<std::unique_ptr<Open>> open_;
  mutable std::atomic<std::uint64_t> read_{0};
};

}  // namespace safespec
