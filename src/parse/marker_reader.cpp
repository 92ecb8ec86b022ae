#include "src/parse/marker_reader.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

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
  std::sort(out.begin(), out.end(), [](const TensorEntry* a, const TensorEntry* b) { return a->name < b->name; });
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

// The markers within the budget and inside the file, each read by `read_at`
// (a file's reads, or a copy out of memory).
template <class ReadAt>
Result<std::vector<quant::MarkerBytes>, IoError> collect_markers(const Model& model, std::uint64_t file_size,
                                                                 const ReadAt& read_at) {
  std::vector<quant::MarkerBytes> out;
  std::uint64_t large = 0;
  for (const TensorEntry* t : marker_entries(model)) {
    quant::MarkerBytes mb{t->name.str(), false, {}};
    auto span = marker_span(model, *t);
    if (!within_budget(span, large)) span.reset();
    if (span && span->offset <= file_size && span->size <= file_size - span->offset) {
      mb.bytes.assign(span->size, '\0');
      Result<Unit, IoError> r = read_at(span->offset, std::span(reinterpret_cast<std::uint8_t*>(mb.bytes.data()), mb.bytes.size()));
      if (!r) return r.error();
      mb.read = true;
    }
    out.push_back(std::move(mb));
  }
  return out;
}

}  // namespace

Result<std::vector<quant::MarkerBytes>, IoError> read_markers(const ByteFile& file, const Model& model) {
  return collect_markers(model, file.size(), [&](std::uint64_t offset, std::span<std::uint8_t> out) {
    return file.read_at(offset, out);
  });
}

std::vector<quant::MarkerBytes> read_markers(std::span<const std::uint8_t> file, const Model& model) {
  auto markers = collect_markers(model, file.size(), [&](std::uint64_t offset, std::span<std::uint8_t> out) {
    if (!out.empty()) std::memcpy(out.data(), file.data() + offset, out.size());  // inside the file: checked above
    return Result<Unit, IoError>(Unit{});
  });
  return std::move(markers).value();  // a copy out of memory cannot fail
}

}  // namespace safespec
