// The first bytes of a file on disk (the length prefix and the header),
// mapped instead of copied: a read() into fresh memory first-touches a page
// for every 4 KiB of header, which on a VM costs more than parsing it
// (issue 14: about 3 ms a MB); a populated read-only mapping of the page
// cache costs a few faults in all. ByteFile (pread) stays the way every
// other byte is read, and the fallback here.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace safespec {

class MappedHeader {
 public:
  // The first `length` bytes of the regular file at `path`, when it can be
  // mapped and still has `file_size` bytes and these `prefix` bytes first
  // (the caller read them through another descriptor: a file replaced or
  // resized in between is read the ordinary way, which reports it). nullopt
  // means "read it instead", never an error of its own.
  static std::optional<MappedHeader> map(const std::string& path, std::uint64_t length, std::uint64_t file_size,
                                         std::span<const std::uint8_t> prefix);

  MappedHeader(MappedHeader&& other) noexcept;
  MappedHeader& operator=(MappedHeader&& other) noexcept;
  MappedHeader(const MappedHeader&) = delete;
  MappedHeader& operator=(const MappedHeader&) = delete;
  ~MappedHeader();

  std::span<const std::uint8_t> bytes() const { return {data_, length_}; }

 private:
  MappedHeader(const std::uint8_t* data, std::size_t length) : data_(data), length_(length) {}
  const std::uint8_t* data_ = nullptr;
  std::size_t length_ = 0;
};

}  // namespace safespec
