// Read-only access to a file by offset (pread): the checker reads the 8-byte
// length and the header, never the data buffer, so a 50 GB checkpoint costs
// what its header costs.
#pragma once

#include <cstdint>
#include <span>
#include <string>

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

class ByteFile {
 public:
  // Refuses anything but a regular file (directories, FIFOs, devices), and
  // opens non-blocking so a FIFO can never hang the open.
  static Result<ByteFile, IoError> open(const std::string& path);

  ByteFile(ByteFile&& other) noexcept;
  ByteFile& operator=(ByteFile&& other) noexcept;
  ByteFile(const ByteFile&) = delete;
  ByteFile& operator=(const ByteFile&) = delete;
  ~ByteFile();

  std::uint64_t size() const { return size_; }
  // Fills `out` from `offset`; a file that shrank since open() is an error.
  Result<Unit, IoError> read_at(std::uint64_t offset, std::span<std::uint8_t> out) const;

 private:
  ByteFile(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

}  // namespace safespec
