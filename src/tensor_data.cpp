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

std::optional<std::span<const std::uint8_t>> FileTensorData::bytes(const quant::TensorRef& t) const {
  if (!t.entry || t.file >= sources_.size() || !sources_[t.file].model) return std::nullopt;
  if (cached_ == t.entry && cached_file_ == t.file) return std::span<const std::uint8_t>(buffer_);
  const TensorEntry& e = *t.entry;
  if (e.end < e.begin) return std::nullopt;
  const std::uint64_t size = e.end - e.begin;
  if (size > max_tensor_ || read_ > max_run_ || size > max_run_ - read_) return std::nullopt;

  Open& o = open_[t.file];
  if (!o.tried) {
    o.tried = true;
    auto f = ByteFile::open(sources_[t.file].path);
    if (f.ok()) o.file.emplace(std::move(f).value());
  }
  if (!o.file) return std::nullopt;

  // data starts at 8 + N; every sum is checked: N, begin and end come from the header.
  const auto base = checked_add(8, sources_[t.file].model->header_length);
  const auto start = base ? checked_add(*base, e.begin) : std::nullopt;
  const auto stop = start ? checked_add(*start, size) : std::nullopt;
  if (!stop || *stop > o.file->size()) return std::nullopt;

  cached_ = nullptr;
  buffer_.resize(static_cast<std::size_t>(size));
  buffer_.shrink_to_fit();
  read_ += size;
  if (!o.file->read_at(*start, buffer_).ok()) {
    buffer_.clear();
    return std::nullopt;
  }
  cached_ = t.entry;
  cached_file_ = t.file;
  return std::span<const std::uint8_t>(buffer_);
}

}  // namespace safespec
