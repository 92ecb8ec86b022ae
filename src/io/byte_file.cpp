#include "src/io/byte_file.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "spec/limits.hpp"

namespace safespec {

static_assert(sizeof(off_t) == 8, "files over 4 GiB need a 64-bit off_t");

namespace {
std::atomic<OpenObserver> open_observer{nullptr};
}  // namespace

void set_open_observer(OpenObserver observer) { open_observer.store(observer); }

bool is_stdin_path(std::string_view path) { return path == "-"; }

bool is_url(std::string_view path) { return path.starts_with("http://") || path.starts_with("https://"); }

namespace {

// Standard input, held whole: a pipe cannot be read at an offset or twice.
class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::vector<std::uint8_t> bytes) : bytes_(std::move(bytes)) {}
  std::uint64_t size() const { return bytes_.size(); }
  Result<Unit, IoError> read_at(std::uint64_t offset, std::span<std::uint8_t> out) const override {
    if (offset > bytes_.size() || out.size() > bytes_.size() - offset)
      return IoError{"expected " + std::to_string(out.size()) + " bytes at offset " + std::to_string(offset) +
                     ", found " + std::to_string(offset > bytes_.size() ? 0 : bytes_.size() - offset) +
                     " (standard input held " + std::to_string(bytes_.size()) + " bytes)"};
    std::memcpy(out.data(), bytes_.data() + offset, out.size());
    return Unit{};
  }

 private:
  std::vector<std::uint8_t> bytes_;
};

// Every open of "-" in this process shares the one reading of the stream.
Result<std::shared_ptr<const MemorySource>, IoError> stdin_source() {
  static std::once_flag once;
  static std::optional<Result<std::shared_ptr<const MemorySource>, IoError>> read;
  std::call_once(once, [] {
    if (::isatty(STDIN_FILENO) == 1) {
      read.emplace(IoError{"standard input is a terminal: pipe or redirect a checkpoint into it"});
      return;
    }
    auto bytes = read_stream(STDIN_FILENO, kMaxStdinBytes);
    if (!bytes) read.emplace(bytes.error());
    else read.emplace(std::make_shared<const MemorySource>(std::move(bytes).value()));
  });
  return *read;
}

}  // namespace

Result<std::vector<std::uint8_t>, IoError> read_stream(int fd, std::uint64_t max_bytes) {
  std::vector<std::uint8_t> bytes;
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  for (;;) {
    // One byte past the bound tells "exactly the bound" from "over it".
    const std::uint64_t room = max_bytes + 1 - bytes.size();
    const std::size_t want = room < kChunk ? static_cast<std::size_t>(room) : kChunk;
    const std::size_t had = bytes.size();
    bytes.resize(had + want);
    const ssize_t r = ::read(fd, bytes.data() + had, want);
    if (r < 0) {
      bytes.resize(had);
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {  // a non-blocking pipe: wait for it
        pollfd p{fd, POLLIN, 0};
        ::poll(&p, 1, -1);
        continue;
      }
      return IoError{std::string("cannot read standard input: ") + std::strerror(errno)};
    }
    bytes.resize(had + static_cast<std::size_t>(r));
    if (r == 0) break;
    if (bytes.size() > max_bytes)
      return IoError{"standard input holds more than " + std::to_string(max_bytes) +
                     " bytes (the bound on a checkpoint read from a pipe): save it to a file and check that"};
  }
  bytes.shrink_to_fit();
  return bytes;
}

ByteFile ByteFile::over(std::shared_ptr<const ByteSource> source, std::uint64_t size) {
  ByteFile f(-1, size);
  f.source_ = std::move(source);
  return f;
}

Result<ByteFile, IoError> ByteFile::open_stdin() {
  auto source = stdin_source();
  if (!source) return source.error();
  const std::uint64_t size = source.value()->size();
  return over(std::move(source).value(), size);
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
