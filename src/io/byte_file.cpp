#include "src/io/byte_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "src/io/held_stream.hpp"

namespace safespec {

static_assert(sizeof(off_t) == 8, "files over 4 GiB need a 64-bit off_t");

namespace {
std::atomic<OpenObserver> open_observer{nullptr};
}  // namespace

void set_open_observer(OpenObserver observer) { open_observer.store(observer); }

bool is_stdin_path(std::string_view path) { return path == "-"; }

bool is_url(std::string_view path) { return path.starts_with("http://") || path.starts_with("https://"); }

ByteFile ByteFile::over(std::shared_ptr<const ByteSource> source, std::uint64_t size) {
  ByteFile f(-1, size);
  f.source_ = std::move(source);
  return f;
}

Result<ByteFile, IoError> ByteFile::open_stdin() {
  auto held = stdin_stream();
  if (!held) return held.error();
  return over(held.value().source, held.value().size);
}

Result<ByteFile, IoError> ByteFile::open_local(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return IoError{std::string("cannot open: ") + std::strerror(errno)};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return IoError{std::string("cannot stat: ") + std::strerror(err)};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    const char* what = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "not a regular file";
    return IoError{std::string("expected a regular file, found ") + what};
  }
  if (const OpenObserver observe = open_observer.load()) observe(path);
  return ByteFile(fd, static_cast<std::uint64_t>(st.st_size));
}

ByteFile::ByteFile(ByteFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), size_(other.size_), source_(std::move(other.source_)) {}

ByteFile& ByteFile::operator=(ByteFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
    source_ = std::move(other.source_);
  }
  return *this;
}

ByteFile::~ByteFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<Unit, IoError> ByteFile::read_at(std::uint64_t offset, std::span<std::uint8_t> out) const {
  if (source_) return source_->read_at(offset, out);
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t r = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return IoError{std::string("cannot read: ") + std::strerror(errno)};
    }
    if (r == 0)
      return IoError{"the file shrank while being read: expected " + std::to_string(out.size()) +
                     " bytes at offset " + std::to_string(offset) + ", found " + std::to_string(done)};
    done += static_cast<std::size_t>(r);
  }
  return Unit{};
}

bool is_not_found(const IoError& e) { return e.message == std::string("cannot open: ") + std::strerror(ENOENT); }

}  // namespace safespec
