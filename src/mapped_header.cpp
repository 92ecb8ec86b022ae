#include "src/mapped_header.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <utility>

namespace safespec {

std::optional<MappedHeader> MappedHeader::map(const std::string& path, std::uint64_t length, std::uint64_t file_size,
                                              std::span<const std::uint8_t> prefix) {
  if (length == 0 || length > file_size || prefix.size() > length) return std::nullopt;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  void* p = MAP_FAILED;
  // Only a regular file of the size the caller saw: every mapped byte then
  // lies inside the file. (A file truncated by another process while it is
  // being checked can still fault the process, as it would any reader that
  // maps safetensors files, the reference included.)
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) == file_size)
    p = ::mmap(nullptr, static_cast<std::size_t>(length), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return std::nullopt;
  MappedHeader m(static_cast<const std::uint8_t*>(p), static_cast<std::size_t>(length));
  if (std::memcmp(m.data_, prefix.data(), prefix.size()) != 0) return std::nullopt;
  return m;
}

MappedHeader::MappedHeader(MappedHeader&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), length_(std::exchange(other.length_, 0)) {}

MappedHeader& MappedHeader::operator=(MappedHeader&& other) noexcept {
  if (this != &other) {
    if (data_) ::munmap(const_cast<std::uint8_t*>(data_), length_);
    data_ = std::exchange(other.data_, nullptr);
    length_ = std::exchange(other.length_, 0);
  }
  return *this;
}

MappedHeader::~MappedHeader() {
  if (data_) ::munmap(const_cast<std::uint8_t*>(data_), length_);
}

}  // namespace safespec
