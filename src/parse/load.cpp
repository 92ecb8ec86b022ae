#include "src/parse/load.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>

#include "spec/file_prefix.hpp"
#include "spec/header_reader.hpp"
#include "spec/limits.hpp"
#include "src/io/header_memory.hpp"

namespace safespec {

namespace {

// A local file's first read (load_file): its prefix and the first 8 KiB of
// its header, the whole header of a small checkpoint. A pread of 8 KiB from
// the page cache took 0.56 us here, of 8 bytes 0.44 us: the larger first
// read costs less than the second call it saves.
constexpr std::size_t kFirstReadBytes = 8192;

// The header text read into memory.
struct HeaderBuffer {
  explicit HeaderBuffer(std::uint64_t n) : size(n), bytes(n) {}
  std::string_view text() const { return {reinterpret_cast<const char*>(bytes.data()), size}; }
  std::uint64_t size;
  HeaderMemory bytes;
};

Result<Model> finish(std::uint64_t file_size, std::uint64_t n, const HeaderBuffer& buf, HeaderParser& parser) {
  auto header = parser.parse(buf.text());
  if (!header) return header.error();
  return Model{file_size, n, std::move(header).value()};
}

// The model and the reference's answer for a header the fast path read. A
// plain text is read once: the reference's answer follows from the model
// (reference::read_plain_header), which saves a second reading of the whole
// text (half of `check`'s time on a 100,000-tensor header).
LoadedFile plain_file(std::uint64_t file_size, std::uint64_t n, Header&& plain) {
  reference::Answer answer = reference::read_plain_header(plain, n, file_size);
  LoadedFile out{file_size, n, Model{file_size, n, std::move(plain)}, std::move(answer)};
  for (comfyui::Era era : {comfyui::Era::Checked, comfyui::Era::Pin})
    out.comfyui[static_cast<std::size_t>(era)] = comfyui::read_model(out.model.value(), era);
  return out;
}

// ComfyUI's own parser on a file whose length prefix gives no header.
LoadedFile prefix_file(std::uint64_t file_size, std::span<const std::uint8_t> prefix, Error error,
                       reference::Answer answer) {
  LoadedFile out{file_size, 0, std::move(error), std::move(answer)};
  std::optional<std::uint64_t> n;
  if (prefix.size() >= 8) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < 8; ++i) v |= std::uint64_t{prefix[i]} << (8 * i);
    n = v;
  }
  for (comfyui::Era era : {comfyui::Era::Checked, comfyui::Era::Pin})
    out.comfyui[static_cast<std::size_t>(era)] = comfyui::read_prefix(file_size, n, era);
  return out;
}

// Any other text is read by the reference reader first, so that its working
// set is freed before the strict reader builds the model (the two never peak
// together).
LoadedFile other_file(std::uint64_t file_size, std::uint64_t n, std::string_view text) {
  reference::Answer answer = reference::read_header(n, text, file_size);
  auto header = read_header_reference(text);
  Result<Model> model = header ? Result<Model>(Model{file_size, n, std::move(header).value()}) : Result<Model>(header.error());
  if (!model && !answer.failure) answer = reference::read_header(n, text, file_size, true);
  LoadedFile out{file_size, n, std::move(model), std::move(answer)};
  const auto eras = comfyui::read_text_eras(n, text, file_size);
  static_assert(static_cast<std::size_t>(comfyui::Era::Checked) == 0 && static_cast<std::size_t>(comfyui::Era::Pin) == 1);
  out.comfyui[0] = eras[0];
  out.comfyui[1] = eras[1];
  return out;
}

LoadedFile read_both(std::uint64_t file_size, std::uint64_t n, std::string_view text, HeaderParser& parser) {
  if (auto plain = parser.parse_plain(text)) return plain_file(file_size, n, std::move(*plain));
  return other_file(file_size, n, text);
}

// Reads bytes [offset, offset + out.size()) of a file.
using ReadAt = std::function<Result<Unit, IoError>(std::uint64_t offset, std::span<std::uint8_t> out)>;

// A file's header, `window` bytes at a time (kHeaderWindowBytes for a local
// file, spec/limits.hpp) into one buffer.
class FileWindows final : public TextWindows {
 public:
  FileWindows(ReadAt read, std::uint64_t n, std::size_t window)
      : read_at_(std::move(read)), n_(n),
        capacity_(static_cast<std::size_t>(std::min<std::uint64_t>(n, std::max<std::size_t>(window, 1)))),
        buffer_(std::make_unique_for_overwrite<char[]>(capacity_)) {}

  bool start() { return fill(0); }

  bool advance(std::size_t drop) override {
    const std::size_t keep = window().size() - drop;
    if (keep > capacity_ / 2) {
      // A unit longer than half the window: room for it and as much again,
      // never more than what is left of the header.
      const std::uint64_t left = n_ - read_ + keep;
      capacity_ = static_cast<std::size_t>(std::min<std::uint64_t>(std::uint64_t{capacity_} * 2, left));
      auto grown = std::make_unique_for_overwrite<char[]>(capacity_);
      std::memcpy(grown.get(), buffer_.get() + drop, keep);
      buffer_ = std::move(grown);
    } else {
      std::memmove(buffer_.get(), buffer_.get() + drop, keep);
    }
    return fill(keep);
  }

  const std::optional<IoError>& error() const { return error_; }

 private:
  // After the `keep` bytes at the buffer's start, as much of the header as fits.
  bool fill(std::size_t keep) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(capacity_ - keep, n_ - read_));
    auto* bytes = reinterpret_cast<std::uint8_t*>(buffer_.get());
    if (auto r = read_at_(8 + read_, std::span(bytes + keep, want)); !r) {
      error_ = r.error();
      return false;
    }
    read_ += want;
    set_window({buffer_.get(), keep + want}, read_ == n_);
    return true;
  }

  ReadAt read_at_;
  std::uint64_t n_;
  std::uint64_t read_ = 0;  // header bytes read so far
  std::size_t capacity_;
  std::unique_ptr<char[]> buffer_;
  std::optional<IoError> error_;
};

// After a valid prefix: the fast path over the header in windows, and only
// for a text it does not decide, the whole text for the reference reader.
Result<LoadedFile, IoError> read_windowed(const ReadAt& read, std::uint64_t file_size, std::uint64_t n,
                                          std::size_t window, HeaderParser& parser) {
  {
    FileWindows windows(read, n, window);
    if (!windows.start()) return *windows.error();
    if (auto plain = parser.parse_plain(windows, n)) return plain_file(file_size, n, std::move(*plain));
    if (windows.error()) return *windows.error();
  }
  HeaderBuffer buf(n);
  if (auto r = read(8, std::span(buf.bytes.data(), n)); !r) return r.error();
  return other_file(file_size, n, buf.text());
}

}  // namespace

Result<LoadedFile, IoError> load_file(const std::string& path, HeaderParser& parser) {
  auto file = ByteFile::open(path);
  if (!file) return file.error();
  return load_file(file.value(), parser);
}

Result<LoadedFile, IoError> load_file(const ByteFile& f, HeaderParser& parser) {
  // A local file's prefix is read with what follows it, where a small header
  // ends: one read instead of two for each file of a directory of small
  // checkpoints, whose check is mostly system calls. A URL's
  // first request stays at the 8 bytes it needs.
  // When that read fails (the file shrank, or its data cannot be read), the
  // 8-byte read is made alone and the header read after it, as before: an
  // error that lies past the header stays out of the answer.
  std::array<std::uint8_t, kFirstReadBytes> head;
  std::size_t got = static_cast<std::size_t>(std::min<std::uint64_t>(f.size(), f.local() ? head.size() : 8));
  auto first = f.read_at(0, std::span(head).first(got));
  if (!first && got > 8) {
    got = 8;
    first = f.read_at(0, std::span(head).first(got));
  }
  if (!first) return first.error();
  const auto prefix = std::span(head).first(std::min<std::size_t>(got, 8));
  auto n = check_prefix(prefix, f.size());
  if (!n) return prefix_file(f.size(), prefix, n.error(), reference::read_metadata(prefix, f.size()));
  if (f.local()) {
    const std::span<const std::uint8_t> have = std::span(head).first(got);
    const auto read = [&f, have](std::uint64_t offset, std::span<std::uint8_t> out) -> Result<Unit, IoError> {
      if (offset < have.size()) {
        const std::size_t k = std::min<std::size_t>(out.size(), have.size() - static_cast<std::size_t>(offset));
        std::memcpy(out.data(), have.data() + offset, k);
        offset += k;
        out = out.subspan(k);
      }
      if (out.empty()) return Unit{};
      return f.read_at(offset, out);
    };
    return read_windowed(read, f.size(), n.value(), kHeaderWindowBytes, parser);
  }
  // A URL's header in one request; standard input is in memory already.
  HeaderBuffer buf(n.value());
  if (auto r = f.read_at(8, std::span(buf.bytes.data(), n.value())); !r) return r.error();
  return read_both(f.size(), n.value(), buf.text(), parser);
}

LoadResult load_model(const std::string& path, HeaderParser& parser) {
  auto loaded = load_file(path, parser);
  if (!loaded) return loaded.error();
  return std::move(loaded.value().model);
}

LoadedFile read_file_memory(std::span<const std::uint8_t> file, HeaderParser& parser) {
  const auto n = check_prefix(file);
  if (!n) {
    reference::Answer answer = reference::read_metadata(file, file.size());
    if (!answer.failure) answer = reference::read_metadata(file, file.size(), true);
    return prefix_file(file.size(), file.first(std::min<std::size_t>(file.size(), 8)), n.error(), std::move(answer));
  }
  HeaderBuffer buf(n.value());
  std::memcpy(buf.bytes.data(), file.data() + 8, n.value());
  return read_both(file.size(), n.value(), buf.text(), parser);
}

LoadedFile read_file_windowed(std::span<const std::uint8_t> file, HeaderParser& parser, std::size_t window) {
  const auto n = check_prefix(file);
  if (!n) return read_file_memory(file, parser);
  const auto read = [file](std::uint64_t offset, std::span<std::uint8_t> out) -> Result<Unit, IoError> {
    std::memcpy(out.data(), file.data() + offset, out.size());  // check_prefix: 8 + n <= file.size()
    return Unit{};
  };
  return std::move(read_windowed(read, file.size(), n.value(), window, parser)).value();
}

Result<Model> read_model_fast(std::span<const std::uint8_t> file, HeaderParser& parser) {
  auto n = check_prefix(file);
  if (!n) return n.error();
  HeaderBuffer buf(n.value());
  std::memcpy(buf.bytes.data(), file.data() + 8, n.value());
  return finish(file.size(), n.value(), buf, parser);
}

std::string hint_for_bytes(std::span<const std::uint8_t> first) {
  const std::string_view text(reinterpret_cast<const char*>(first.data()), first.size());
  if (text.starts_with("version https://git-lfs.github.com/spec/v1"))
    return "this is a Git LFS pointer file, not the tensors: fetch them with `git lfs pull`";
  const auto start = text.find_first_not_of(" \t\r\n");
  if (start != std::string_view::npos && (text[start] == '{' || text[start] == '['))
    return "this is a JSON file, not a safetensors file (a shard index must be named *.index.json)";
  return "";
}

std::string hint_for_path(const std::string& path) {
  auto file = ByteFile::open(path);
  if (!file) return "";
  std::array<std::uint8_t, 64> first{};
  const std::size_t n = file.value().size() < first.size() ? static_cast<std::size_t>(file.value().size()) : first.size();
  if (!file.value().read_at(0, std::span(first).first(n))) return "";
  return hint_for_bytes(std::span(first).first(n));
}

}  // namespace safespec
