#include "src/io/tensor_data.hpp"

#include <algorithm>
#include <functional>
#include <thread>
#include <utility>

#include "spec/checked_math.hpp"
#include "spec/format_rules.hpp"
#include "src/io/parallel.hpp"

namespace safespec {

struct FileTensorData::Open {
  bool tried = false;
  std::optional<ByteFile> file;
  std::string error;  // why it could not be opened
  // Per tensor of the model (header order): whether its bytes overlap another's.
  std::vector<std::uint8_t> overlaps;
};

namespace {

std::vector<FileTensorData::Source> sources_of(std::span<const quant::CheckpointFile> files) {
  std::vector<FileTensorData::Source> out;
  out.reserve(files.size());
  for (const auto& f : files) out.push_back({f.path, f.model});
  return out;
}

bool any_url(const std::vector<FileTensorData::Source>& files) {
  return std::any_of(files.begin(), files.end(), [](const auto& f) { return is_url(f.path); });
}

// Which tensors share a byte with another: a sweep over the non-empty ranges
// in offset order (for_each_by_offsets, F8's order: no list built when the
// writer kept it). A range overlaps an earlier one exactly when it begins before the
// largest end so far, and then the range holding that end overlaps it too; a
// range that overlaps a later one is, by the order, the holder when its next
// range comes. Once per file, only under --data.
std::vector<std::uint8_t> overlapping(const std::vector<TensorEntry>& tensors) {
  std::vector<std::uint8_t> out(tensors.size(), 0);
  const auto index = [&](const TensorEntry* t) { return static_cast<std::size_t>(t - tensors.data()); };
  std::uint64_t max_end = 0;
  const TensorEntry* holder = nullptr;
  for_each_by_offsets(tensors, [&](const TensorEntry& t) {
    if (t.end <= t.begin) return;
    if (holder && t.begin < max_end) out[index(&t)] = out[index(holder)] = 1;
    if (!holder || t.end > max_end) {
      max_end = t.end;
      holder = &t;
    }
  });
  return out;
}

}  // namespace

FileTensorData::FileTensorData(std::vector<Source> files, Options o) : sources_(std::move(files)) {
  const bool remote = any_url(sources_);
  chunk_ = o.chunk != 0 ? o.chunk : remote ? kDataChunkBytesRemote : kDataChunkBytes;
  // Pieces stay whole multiples of the alignment the rules rely on.
  chunk_ = std::max<std::uint64_t>(chunk_ / quant::kDataChunkAlign * quant::kDataChunkAlign, quant::kDataChunkAlign);
  // An HTTP source holds one connection and cannot be read from two threads.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  threads_ = remote ? 1u : std::min(o.threads != 0 ? o.threads : cores, kDataThreadsMax);
  for (std::size_t i = 0; i < sources_.size(); ++i) open_.push_back(std::make_unique<Open>());
}

FileTensorData::FileTensorData(std::span<const quant::CheckpointFile> files, Options o)
    : FileTensorData(sources_of(files), o) {}

FileTensorData::~FileTensorData() = default;

const FileTensorData::Open& FileTensorData::open(std::size_t file) const {
  std::lock_guard lock(mutex_);
  Open& o = *open_[file];
  if (o.tried) return o;
  o.tried = true;
  auto f = ByteFile::open(sources_[file].path);
  if (f.ok()) o.file.emplace(std::move(f).value());
  else o.error = f.error().message;
  o.overlaps = overlapping(sources_[file].model->header.tensors);
  return o;
}

Result<FileTensorData::Span, std::string> FileTensorData::locate(const quant::TensorRef& t, bool overlap) const {
  if (!t.entry || t.file >= sources_.size() || !sources_[t.file].model) return std::string("not a tensor of these files");
  const TensorEntry& e = *t.entry;
  const std::string offsets = "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
  if (e.end < e.begin) return "its " + offsets + " are reversed";
  const std::uint64_t size = e.end - e.begin;
  const Open& o = open(t.file);
  if (!o.file) return "the file cannot be read: " + o.error;
  // data starts at 8 + N; every sum is checked: N, begin and end come from the header.
  const Model& m = *sources_[t.file].model;
  const auto base = checked_add(8, m.header_length);
  const auto start = base ? checked_add(*base, e.begin) : std::nullopt;
  const auto stop = start ? checked_add(*start, size) : std::nullopt;
  if (!stop || *stop > o.file->size()) return std::to_string(size) + " bytes at " + offsets + ", which lie outside the file";
  if (overlap) {
    // Entries the header does not hold (tests build some) overlap nothing known.
    const auto& all = m.header.tensors;
    const std::less<const TensorEntry*> before;
    if (!all.empty() && !before(&e, all.data()) && before(&e, all.data() + all.size()) &&
        o.overlaps[static_cast<std::size_t>(&e - all.data())])
      return "its " + offsets + " overlap another tensor's: such bytes are not read (spec/limits.hpp)";
  }
  return Span{&o, *start, size};
}

quant::TensorScan FileTensorData::scan(const quant::TensorRef& t, const quant::TensorChunk& chunk) const {
  auto where = locate(t, true);
  if (!where) return where.error();
  const Span s = where.value();
  // One buffer per thread, reused for every piece of every tensor: its pages
  // are touched once, and memory stays at chunk_ per thread.
  thread_local std::vector<std::uint8_t> buffer;
  if (buffer.size() < chunk_) buffer.resize(static_cast<std::size_t>(chunk_));
  for (std::uint64_t done = 0; done < s.size;) {
    const std::uint64_t n = std::min(chunk_, s.size - done);
    const std::span<std::uint8_t> piece(buffer.data(), static_cast<std::size_t>(n));
    if (auto r = s.file->file->read_at(s.start + done, piece); !r.ok())
      return "the file cannot be read: " + r.error().message;
    read_ += n;
    chunk(piece);
    done += n;
  }
  return Unit{};
}

Result<std::vector<std::uint8_t>, std::string> FileTensorData::whole(const quant::TensorRef& t) const {
  if (t.entry && t.entry->end >= t.entry->begin && t.entry->end - t.entry->begin > kMaxTensorBytes)
    return "over the read bound of " + std::to_string(kMaxTensorBytes >> 20) + " MiB per tensor: it has " +
           std::to_string(t.entry->end - t.entry->begin) + " bytes";
  auto where = locate(t, false);
  if (!where) return where.error();
  std::vector<std::uint8_t> out(static_cast<std::size_t>(where.value().size));
  if (auto r = where.value().file->file->read_at(where.value().start, out); !r.ok())
    return "the file cannot be read: " + r.error().message;
  read_ += out.size();
  return out;
}

void FileTensorData::run_jobs(std::size_t n, const std::function<void(std::size_t)>& job) const {
  parallel_for(n, threads_, [&](std::size_t i, unsigned) { job(i); });
}

}  // namespace safespec
