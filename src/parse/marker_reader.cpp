#include "src/parse/marker_reader.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "spec/limits.hpp"

namespace safespec {

namespace {

struct Span {
  std::uint64_t offset;
  std::uint64_t size;
};

// Where a marker's bytes are in the file, when they are inside it and small
// enough to read.
std::optional<Span> marker_span(const Model& m, const TensorEntry& t) {
  if (t.end < t.begin || t.end - t.begin > kMaxMarkerReadBytes) return std::nullopt;
  if (m.file_size < 8 || m.header_length > m.file_size - 8 || t.end > m.buffer_size()) return std::nullopt;
  return Span{8 + m.header_length + t.begin, t.end - t.begin};
}

bool is_marker(const TensorEntry& t) { return std::string_view(t.name).ends_with(quant::kMarkerSuffix); }

std::vector<const TensorEntry*> marker_entries(const Model& m) {
  std::vector<const TensorEntry*> out;
  for (const TensorEntry& t : m.header.tensors)
    if (is_marker(t)) out.push_back(&t);
  const auto by_name = [](const TensorEntry* a, const TensorEntry* b) { return a->name < b->name; };
  // Writers mostly store names in order: one pass says so, where sorting
  // 333,000 names anyway cost a tenth of the check.
  if (!std::is_sorted(out.begin(), out.end(), by_name)) std::sort(out.begin(), out.end(), by_name);
  return out;
}

// Spends the file's budget for markers over kMaxMarkerBytes; false when the
// marker does not fit in what is left.
bool within_budget(const std::optional<Span>& span, std::uint64_t& large) {
  if (!span || span->size <= kMaxMarkerBytes) return true;
  if (span->size > kMaxLargeMarkerBytesPerFile - large) return false;
  large += span->size;
  return true;
}

}  // namespace

bool has_marker_tensor(const Model& model) {
  return std::any_of(model.header.tensors.begin(), model.header.tensors.end(), is_marker);
}

namespace {

// Every marker, named, with where its bytes are when they are within the
// budget and inside the file (none: listed with read = false).
struct PlannedMarkers {
  std::vector<quant::MarkerBytes> markers;
  std::vector<std::optional<Span>> spans;
};

PlannedMarkers plan_markers(const Model& model, std::uint64_t file_size, const ByteFile* file = nullptr) {
  PlannedMarkers out;
  std::uint64_t large = 0;
  for (const TensorEntry* t : marker_entries(model)) {
    auto span = marker_span(model, *t);
    if (!within_budget(span, large)) span.reset();
    if (span && (span->offset > file_size || span->size > file_size - span->offset)) span.reset();
    out.markers.push_back(quant::MarkerBytes{t->name.str(), false, {}});
    if (span && file)
      if (auto why = file->unreadable(span->offset, span->size)) {
        out.markers.back().unread = std::move(*why);
        span.reset();
      }
    out.spans.push_back(span);
  }
  return out;
}

// The markers, each read by `read_at` (a file's reads, or a copy out of memory).
template <class ReadAt>
Result<std::vector<quant::MarkerBytes>, IoError> collect_markers(const Model& model, std::uint64_t file_size,
                                                                 const ReadAt& read_at) {
  PlannedMarkers p = plan_markers(model, file_size);
  for (std::size_t i = 0; i < p.markers.size(); ++i) {
    if (!p.spans[i]) continue;
    quant::MarkerBytes& mb = p.markers[i];
    mb.bytes.assign(p.spans[i]->size, '\0');
    Result<Unit, IoError> r = read_at(p.spans[i]->offset, std::span(reinterpret_cast<std::uint8_t*>(mb.bytes.data()), mb.bytes.size()));
    if (!r) return r.error();
    mb.read = true;
  }
  return std::move(p.markers);
}

// A server's markers: one request per run of markers close together
// (kHttpMarkerGapBytes apart at most, kHttpMarkerRunBytes in all), where one
// request per marker cost a round trip each (57 for a 3-shard checkpoint).
// A run inside the bytes the first request kept costs no request at all.
Result<std::vector<quant::MarkerBytes>, IoError> collect_markers_in_runs(const ByteFile& file, const Model& model,
                                                                         std::uint64_t gap, std::uint64_t run_bytes) {
  PlannedMarkers p = plan_markers(model, file.size(), &file);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p.spans.size(); ++i)
    if (p.spans[i]) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p.spans[a]->offset < p.spans[b]->offset; });
  std::vector<std::uint8_t> run;
  for (std::size_t first = 0; first < order.size();) {
    const std::uint64_t begin = p.spans[order[first]]->offset;
    std::uint64_t end = begin + p.spans[order[first]]->size;
    std::size_t last = first + 1;
    for (; last < order.size(); ++last) {
      const Span& next = *p.spans[order[last]];
      const std::uint64_t next_end = std::max(end, next.offset + next.size);
      if ((next.offset > end && next.offset - end > gap) || next_end - begin > run_bytes) break;
      end = next_end;
    }
    // Grown, never cleared: the read fills what it uses.
    if (run.size() < end - begin) run.resize(static_cast<std::size_t>(end - begin));
    if (auto r = file.read_at(begin, std::span(run).first(static_cast<std::size_t>(end - begin))); !r) return r.error();
    for (std::size_t k = first; k < last; ++k) {
      quant::MarkerBytes& mb = p.markers[order[k]];
      const Span& s = *p.spans[order[k]];
      const auto* from = reinterpret_cast<const char*>(run.data() + (s.offset - begin));
      mb.bytes.assign(from, static_cast<std::size_t>(s.size));
      mb.read = true;
    }
    first = last;
  }
  return std::move(p.markers);
}

}  // namespace

Result<std::vector<quant::MarkerBytes>, IoError> read_markers(const ByteFile& file, const Model& model) {
  if (!file.local()) return collect_markers_in_runs(file, model, kHttpMarkerGapBytes, kHttpMarkerRunBytes);
  return collect_markers_in_runs(file, model, kLocalMarkerGapBytes, kLocalMarkerRunBytes);
}

std::vector<quant::MarkerBytes> read_markers(std::span<const std::uint8_t> file, const Model& model) {
  auto markers = collect_markers(model, file.size(), [&](std::uint64_t offset, std::span<std::uint8_t> out) {
    if (!out.empty()) std::memcpy(out.data(), file.data() + offset, out.size());  // inside the file: checked above
    return Result<Unit, IoError>(Unit{});
  });
  return std::move(markers).value();  // a copy out of memory cannot fail
}

}  // namespace safespec
