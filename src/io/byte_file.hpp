// Read-only access to a file by offset (pread): the checker reads the 8-byte
// length and the header, never the data buffer, so a 50 GB checkpoint costs
// what its header costs. The same seam reads `-` (standard input, read once
// and held in memory as far as the command needs it, src/io/held_stream.hpp)
// and http(s):// URLs (HTTP range requests, src/io/http_range.hpp), so every
// command that takes a checkpoint path takes those too.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spec/result.hpp"

namespace safespec {

// A file that could not be read: not a rule violation, exit status 2.
struct IoError {
  std::string message;  // "cannot open: No such file or directory"
  friend bool operator==(const IoError&, const IoError&) = default;
};

// The error of ByteFile::open for a path that does not exist (ENOENT).
bool is_not_found(const IoError& e);

// Test seam: when set, called by ByteFile::open after the size is taken and
// before any byte is read, with the path. Tests (props/, the adversarial
// replay) truncate the file there, which makes "the file shrank while being
// read" deterministic through the whole check pipeline. Null in the command.
using OpenObserver = void (*)(const std::string& path);
void set_open_observer(OpenObserver observer);

// The path that names standard input: "-", as for most Unix tools (a file
// named "-" is still reachable as "./-").
bool is_stdin_path(std::string_view path);
// "http://..." or "https://...": read with HTTP range requests.
bool is_url(std::string_view path);

// Bytes that do not come from a local file descriptor: standard input held in
// memory, or a server. Shared by every ByteFile opened on the same stream.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual Result<Unit, IoError> read_at(std::uint64_t offset, std::span<std::uint8_t> out) const = 0;
  // Why `size` bytes at `offset`, inside the file, cannot be read at all
  // (a server that ignores Range gave only the start of the file), said
  // without asking; nullopt when read_at may give them.
  virtual std::optional<std::string> unreadable(std::uint64_t offset, std::uint64_t size) const {
    (void)offset;
    (void)size;
    return std::nullopt;
  }
};

class ByteFile {
 public:
  // A local path: refuses anything but a regular file (directories, FIFOs,
  // devices), and opens non-blocking so a FIFO can never hang the open.
  // "-": standard input, read once (holding up to kMaxStdinBytes, all of it
  // unless a command said less: src/io/held_stream.hpp) and shared by every
  // later open in this process. A URL: one ranged request for the first
  // kHttpFirstReadBytes, which gives the size (Content-Range's total).
  // Decided in src/io/byte_file_open.cpp, the one unit that knows both this
  // file and src/io/http_range.hpp (which builds on it).
  static Result<ByteFile, IoError> open(const std::string& path);
  // The two openers here: a local path, and "-".
  static Result<ByteFile, IoError> open_local(const std::string& path);
  static Result<ByteFile, IoError> open_stdin();
  // A ByteFile over any source (tests, and the openers above).
  static ByteFile over(std::shared_ptr<const ByteSource> source, std::uint64_t size);

  ByteFile(ByteFile&& other) noexcept;
  ByteFile& operator=(ByteFile&& other) noexcept;
  ByteFile(const ByteFile&) = delete;
  ByteFile& operator=(const ByteFile&) = delete;
  ~ByteFile();

  std::uint64_t size() const { return size_; }
  // A local file: a read costs a system call, not a request to a server, so
  // reading in pieces is cheap.
  bool local() const { return source_ == nullptr; }
  // Fills `out` from `offset`; a file that shrank since open() is an error.
  Result<Unit, IoError> read_at(std::uint64_t offset, std::span<std::uint8_t> out) const;
  // ByteSource::unreadable: a local file's bytes are all readable.
  std::optional<std::string> unreadable(std::uint64_t offset, std::uint64_t size) const {
    return source_ ? source_->unreadable(offset, size) : std::nullopt;
  }

 private:
  ByteFile(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::shared_ptr<const ByteSource> source_;  // null for a local file (fd_)
};

}  // namespace safespec
