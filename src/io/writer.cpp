#include "src/io/writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_set>

#include "spec/checked_math.hpp"
#include "spec/file_prefix.hpp"
#include "spec/format_rules.hpp"
#include "spec/quote.hpp"
#include "spec/utf8.hpp"
#include "src/report/json_escape.hpp"

namespace safespec {

namespace {

void append_entry(std::string& out, std::string_view name, Dtype d, std::span<const std::uint64_t> shape,
                  std::uint64_t begin, std::uint64_t end) {
  append_json_string(out, name);
  out += ":{\"dtype\":\"";
  out += dtype_name(d);
  out += "\",\"shape\":[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(shape[i]);
  }
  out += "],\"data_offsets\":[";
  out += std::to_string(begin);
  out += ',';
  out += std::to_string(end);
  out += "]}";
}

void append_metadata(std::string& out, Metadata sorted) {
  std::sort(sorted.begin(), sorted.end());
  out += "\"__metadata__\":{";
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, sorted[i].first);
    out += ':';
    append_json_string(out, sorted[i].second);
  }
  out += '}';
}

// Every entry is "key":value; commas go between entries, so no count of
// tensors or metadata keys can produce the reference's stray "{}" (X12).
class ObjectText {
 public:
  std::string& next() {
    text_ += text_.empty() ? "{" : ",";
    return text_;
  }
  std::string finish() && {
    if (text_.empty()) text_ = "{";
    text_ += '}';
    return std::move(text_);
  }

 private:
  std::string text_;
};

}  // namespace

bool canonical_less(Dtype da, std::string_view na, Dtype db, std::string_view nb) {
  if (da != db) return da > db;
  return na < nb;
}

std::string canonical_header_json(const Header& h) {
  ObjectText obj;
  if (h.metadata_state == MetadataState::Present) append_metadata(obj.next(), h.metadata);
  std::vector<const TensorEntry*> order;
  for (const auto& t : h.tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const TensorEntry* a, const TensorEntry* b) {
    return canonical_less(a->dtype, a->name, b->dtype, b->name);
  });
  for (const TensorEntry* t : order) append_entry(obj.next(), t->name, t->dtype, t->shape, t->begin, t->end);
  return std::move(obj).finish();
}

namespace {

// serialize_parts and serialize_prefix: check_sizes is W3 against each
// view's data.
Result<SerializedParts> serialize_checked(std::vector<TensorView> tensors, const std::optional<Metadata>& metadata,
                                          bool check_sizes) {
  std::sort(tensors.begin(), tensors.end(), [](const TensorView& a, const TensorView& b) {
    return canonical_less(a.dtype, a.name, b.dtype, b.name);
  });
  // F5: the reader rejects a header that is not UTF-8, so neither a name nor
  // a metadata string may carry invalid bytes (Rust strings cannot; ours can).
  const auto not_utf8 = [](std::string_view text, Place where) -> std::optional<Error> {
    const auto bad = first_invalid_utf8(text);
    if (!bad) return std::nullopt;
    return Error{RuleId::HeaderUtf8, std::move(where),
                 "expected UTF-8 text, found an invalid sequence at byte " + std::to_string(*bad)};
  };
  for (const TensorView& t : tensors)
    if (auto e = not_utf8(t.name, Place::tensor(t.name))) return *e;
  if (metadata)
    for (const auto& [k, v] : *metadata) {
      if (auto e = not_utf8(k, Place::metadata_key(k))) return *e;
      if (auto e = not_utf8(v, Place::metadata_key(k))) return *e;
    }
  if (metadata) {
    Metadata keys = *metadata;
    std::sort(keys.begin(), keys.end());
    for (std::size_t i = 1; i < keys.size(); ++i)
      if (keys[i].first == keys[i - 1].first)
        return Error{RuleId::DuplicateMetadataKey, Place::metadata_key(keys[i].first),
                     "expected each metadata key once, found it twice"};
  }
  ObjectText obj;
  if (metadata) append_metadata(obj.next(), *metadata);
  std::uint64_t offset = 0;
  std::unordered_set<std::string_view> names;
  for (const TensorView& t : tensors) {
    if (t.name == "__metadata__")
      return Error{RuleId::TensorNameReserved, Place::tensor(t.name),
                   "expected a tensor name other than __metadata__, which readers take as the metadata (X10)"};
    if (!names.insert(t.name).second)
      return Error{RuleId::DuplicateTensor, Place::tensor(t.name), "expected each tensor name once, found it twice"};
    TensorEntry probe{t.name, t.dtype, t.shape, 0, 0};
    for (auto f : {rule_shape_overflow(probe), rule_nbits_overflow(probe), rule_misaligned_bits(probe)})
      if (f) return Error{f->rule, f->where, f->message};
    const std::uint64_t bytes = *tensor_byte_size(t.shape, t.dtype);
    if (check_sizes && bytes != t.data.size())
      return Error{RuleId::SizeMismatch, Place::tensor(t.name),
                   "expected " + count_of(bytes, "byte") + " of data for the shape and dtype, found " +
                       std::to_string(t.data.size())};
    const auto end = checked_add(offset, bytes);
    if (!end) return Error{RuleId::NbitsOverflow, Place::tensor(t.name), "expected the data section to fit in 64 bits"};
    append_entry(obj.next(), t.name, t.dtype, t.shape, offset, *end);
    offset = *end;
  }
  std::string header = std::move(obj).finish();
  header.resize((header.size() + 7) / 8 * 8, ' ');  // W5
  if (header.size() > kMaxHeaderSize)
    return Error{RuleId::HeaderTooLarge, Place::header(),
                 "expected a padded header of at most 100000000 bytes, found " + std::to_string(header.size())};
  SerializedParts parts;
  parts.prefix.reserve(8 + header.size());
  for (int i = 0; i < 8; ++i) parts.prefix.push_back(static_cast<std::uint8_t>(header.size() >> (8 * i)));
  parts.prefix.insert(parts.prefix.end(), header.begin(), header.end());
  if (check_sizes)
    for (const TensorView& t : tensors) parts.data.push_back(t.data);
  return parts;
}

}  // namespace

Result<SerializedParts> serialize_parts(std::vector<TensorView> tensors, const std::optional<Metadata>& metadata) {
  return serialize_checked(std::move(tensors), metadata, true);
}

Result<std::vector<std::uint8_t>> serialize_prefix(std::vector<TensorView> tensors, const std::optional<Metadata>& metadata) {
  auto parts = serialize_checked(std::move(tensors), metadata, false);
  if (!parts) return parts.error();
  return std::move(parts.value().prefix);
}

Result<std::vector<std::uint8_t>> serialize(std::vector<TensorView> tensors, const std::optional<Metadata>& metadata) {
  auto parts = serialize_parts(std::move(tensors), metadata);
  if (!parts) return parts.error();
  std::vector<std::uint8_t> out = std::move(parts.value().prefix);
  std::size_t size = out.size();
  for (const auto& d : parts.value().data) size += d.size();
  out.reserve(size);
  for (const auto& d : parts.value().data) out.insert(out.end(), d.begin(), d.end());
  return out;
}

Result<Unit, IoError> write_file(const std::string& path, std::span<const std::uint8_t> bytes) {
  const std::span<const std::uint8_t> one[] = {bytes};
  return write_file(path, std::span<const std::span<const std::uint8_t>>(one));
}

Result<Unit, IoError> write_file(const std::string& path, std::span<const std::span<const std::uint8_t>> parts) {
  std::size_t i = 0;
  return write_file(path, [&]() {
    while (i < parts.size() && parts[i].empty()) ++i;  // an empty piece would end the source
    return i < parts.size() ? parts[i++] : std::span<const std::uint8_t>();
  });
}

Result<Unit, IoError> write_file(const std::string& path, const PieceSource& next) {
  const std::string tmp = path + ".tmp-safespec";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IoError{"cannot create " + tmp + ": " + std::strerror(errno)};
  for (std::span<const std::uint8_t> bytes = next(); !bytes.empty(); bytes = next()) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        const int err = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        return IoError{"cannot write " + tmp + ": " + std::strerror(err)};
      }
      done += static_cast<std::size_t>(w);
    }
  }
  if (::close(fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return IoError{"cannot finish " + path + ": " + std::strerror(err)};
  }
  return Unit{};
}

}  // namespace safespec
