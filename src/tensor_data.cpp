#include "src/tensor_data.hpp"

#include <utility>

#include "spec/checked_math.hpp"

namespace safespec {

FileTensorData::FileTensorData(std::vector<Source> files, std::uint64_t max_tensor, std::uint64_t max_run)
    : sources_(std::move(files)), max_tensor_(max_tensor), max_run_(max_run), open_(sources_.size()) {}

namespace {
std::vector<FileTensorData::Source> sources_of(std::span<const quant::CheckpointFile> files) {
  std::vector<FileTensorData::Source> out;
  out.reserve(files.size());
  for (const auto& f : files) out.push_back({f.path, f.model});
  return out;
}
}  // namespace

FileTensorData::FileTensorData(std::span<const quant::CheckpointFile> files) : FileTensorData(sources_of(files)) {}

namespace {
std::string mib(std::uint64_t bytes) {
  return bytes % (std::uint64_t{1} << 20) == 0 ? std::to_string(bytes >> 20) + " MiB"
                                               : std::to_string(bytes) + " bytes";
}
}  // namespace

quant::TensorBytes FileTensorData::bytes(const quant::TensorRef& t) const {
  if (!t.entry || t.file >= sources_.size() || !sources_[t.file].model) return std::string("not a tensor of these files");
  if (cached_ == t.entry && cached_file_ == t.file) return std::span<const std::uint8_t>(buffer_);
  const TensorEntry& e = *t.entry;
  const std::string offsets = "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
  if (e.end < e.begin) return "its " + offsets + " are reversed";
  const std::uint64_t size = e.end - e.begin;
  if (size > max_tensor_)
    return "over the read bound of " + mib(max_tensor_) + " per tensor: it has " + std::to_string(size) + " bytes";
  if (read_ > max_run_ || size > max_run_ - read_)
    return "the read budget of " + mib(max_run_) + " per run is spent: " + std::to_string(read_) +
           " bytes read, this tensor has " + std::to_string(size);

  Open& o = open_[t.file];
  if (!o.tried) {
    o.tried = true;
    auto f = ByteFile::open(sources_[t.file].path);
    if (f.ok()) o.file.emplace(std::move(f).value());
    else o.error = f.error().message;
  }
  if (!o.file) return "the file cannot be read: " + o.error;

  // data starts at 8 + N; every sum is checked: N, begin and end come from the header.
  const auto base = checked_add(8, sources_[t.file].model->header_length);
  const auto start = base ? checked_add(*base, e.begin) : std::nullopt;
  const auto stop = start ? checked_add(*start, size) : std::nullopt;
  if (!stop || *stop > o.file->size())
    return std::to_string(size) + " bytes at " + offsets + ", which lie outside the file";

  cached_ = nullptr;
  buffer_.resize(static_cast<std::size_t>(size));
  buffer_.shrink_to_fit();
  read_ += size;
  if (auto r = o.file->read_at(*start, buffer_); !r.ok()) {
    buffer_.clear();
    return "the file cannot be read: " + r.error().message;
  }
  cached_ = t.entry;
  cached_file_ = t.file;
  return std::span<const std::uint8_t>(buffer_);
}

}  // namespace safespec
