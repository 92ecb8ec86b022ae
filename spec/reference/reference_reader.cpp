#include "spec/reference/reference_reader.hpp"

#include <algorithm>
#include <array>

#include "spec/limits.hpp"
#include "spec/reference/rust_text.hpp"

namespace safespec::reference {

namespace {

constexpr std::uint64_t kPrefix = 8;                   // N_LEN

Failure fail(Variant v) {
  switch (v) {
    case Variant::HeaderTooLarge: return {v, "header too large"};
    case Variant::HeaderTooSmall: return {v, "header too small"};
    case Variant::InvalidHeaderLength: return {v, "invalid header length"};
    case Variant::TensorInvalidInfo: return {v, "invalid shape, data type, or offset for tensor"};
    case Variant::MetadataIncompleteBuffer: return {v, "incomplete metadata, file not fully covered"};
    case Variant::ValidationOverflow: return {v, "overflow computing buffer size from shape and/or element type"};
    case Variant::MisalignedSlice:
      return {v, "The slice is slicing for subbytes dtypes, and the slice does not end up at a byte boundary, this is invalid."};
    default: return {v, ""};
  }
}

// The per-tensor checks of Metadata::validate after the offset check.
std::optional<Failure> size_check(std::uint8_t size_status) {
  switch (size_status) {
    case 1: return fail(Variant::ValidationOverflow);
    case 2: return fail(Variant::MisalignedSlice);
    case 3: return fail(Variant::TensorInvalidInfo);
    default: return std::nullopt;
  }
}

// What the walk reads of one tensor, whichever reading it came from.
struct Checked {
  std::string_view name;
  std::uint64_t begin;
  std::uint64_t end;
};

Failure invalid_offset(const Checked& t) {
  return {Variant::InvalidOffset, "invalid offset for tensor `" + std::string(t.name) + "`"};
}

// Metadata::validate over tensors sorted by data_offsets. Equal offsets sort
// in HashMap order, so the walk follows every order that can matter: within
// a run of equal offsets, which member is checked first. The first possible
// answer is the one in document order; the others are alternatives.
struct Walk {
  std::vector<Failure> answers;  // distinct, first = document order
  std::uint64_t buffer_end = 0;
  bool passed = false;
};

void add(std::vector<Failure>& answers, Failure f) {
  if (std::find(answers.begin(), answers.end(), f) == answers.end()) answers.push_back(std::move(f));
}

// `count` tensors, `at(i)` the i-th in document order as a Checked and
// `status(i)` its size_status (asked only of the tensors the walk reaches). The sort
// is over 4-byte indices so that a million tensors cost 4 MB here (a header
// holds fewer than 2^32 members: it is at most kMaxHeaderSize bytes).
template <class At, class Status>
Walk validate(std::size_t count, const At& at, const Status& status) {
  static_assert(kMaxHeaderSize < 0xFFFFFFFFu);
  std::vector<std::uint32_t> order(count);
  for (std::size_t i = 0; i < count; ++i) order[i] = static_cast<std::uint32_t>(i);
  const auto offsets = [&](std::uint32_t i) {
    const Checked t = at(i);
    return std::pair{t.begin, t.end};
  };
  const auto less = [&](std::uint32_t x, std::uint32_t y) { return offsets(x) < offsets(y); };
  // Writers lay tensors out in offset order: then the order is the document's.
  if (!std::is_sorted(order.begin(), order.end(), less)) std::stable_sort(order.begin(), order.end(), less);
  Walk w;
  std::uint64_t start = 0;
  for (std::size_t i = 0; i < order.size();) {
    const Checked head = at(order[i]);
    std::size_t j = i + 1;
    while (j < order.size() && offsets(order[j]) == std::pair{head.begin, head.end}) ++j;
    if (head.begin != start || head.end < head.begin) {
      for (std::size_t k = i; k < j; ++k) add(w.answers, invalid_offset(at(order[k])));
      return w;
    }
    if (j - i > 1 && head.end > head.begin) {
      // Whichever member comes first is checked; the next one fails its offset.
      for (std::size_t k = i; k < j; ++k) {
        if (auto f = size_check(status(order[k]))) add(w.answers, *f);
        else
          for (std::size_t o = i; o < j; ++o)
            if (o != k) add(w.answers, invalid_offset(at(order[o])));
      }
      return w;
    }
    // One tensor, or several empty ones (each passes the offset check): any
    // failing member can be the first checked.
    for (std::size_t k = i; k < j; ++k)
      if (auto f = size_check(status(order[k]))) add(w.answers, *f);
    if (!w.answers.empty()) return w;
    start = head.end;
    i = j;
  }
  w.buffer_end = start;
  w.passed = true;
  return w;
}

// The answer once the header deserialized: the walk, then the buffer's end.
void judge(Answer& a, const Walk& w, std::uint64_t n, std::uint64_t file_size) {
  if (!w.passed) {
    a.failure = w.answers.front();
    a.alternatives.assign(w.answers.begin() + 1, w.answers.end());
  } else if (w.buffer_end + kPrefix + n != file_size) {  // usize arithmetic: wraps in a release build
    a.failure = fail(Variant::MetadataIncompleteBuffer);
  }
}

}  // namespace

std::string_view variant_name(Variant v) {
  static constexpr std::array<std::string_view, 10> kNames{
      "InvalidHeader",  "InvalidHeaderDeserialization", "HeaderTooLarge",          "HeaderTooSmall",     "InvalidHeaderLength",
      "TensorInvalidInfo", "InvalidOffset",             "MetadataIncompleteBuffer", "ValidationOverflow", "MisalignedSlice"};
  return kNames[static_cast<std::size_t>(v)];
}

Answer read_metadata(std::span<const std::uint8_t> head, std::uint64_t file_size, bool keep_model) {
  Answer a;
  if (file_size < kPrefix || head.size() < kPrefix) {
    a.failure = fail(Variant::HeaderTooSmall);
    return a;
  }
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < kPrefix; ++i) n |= std::uint64_t{head[i]} << (8 * i);
  if (n > kMaxHeaderSize) {
    a.failure = fail(Variant::HeaderTooLarge);
    return a;
  }
  if (kPrefix + n > file_size || head.size() < kPrefix + n) {
    a.failure = fail(Variant::InvalidHeaderLength);
    return a;
  }
  const std::string_view text(reinterpret_cast<const char*>(head.data()) + kPrefix, static_cast<std::size_t>(n));
  return read_header(n, text, file_size, keep_model);
}

Answer read_header(std::uint64_t n, std::string_view text, std::uint64_t file_size, bool keep_model) {
  Answer a;
  if (const auto bad = rust_utf8_check(text)) {
    a.failure = Failure{Variant::InvalidHeader, "invalid UTF-8 in header: " + utf8_failure_text(*bad)};
    return a;
  }
  auto meta = deserialize_hash_metadata(text, keep_model);
  if (!meta) {
    a.failure = Failure{Variant::InvalidHeaderDeserialization, "invalid JSON in header: " + meta.error().display()};
    return a;
  }
  const std::vector<TensorInfo>& tensors = meta.value().tensors;
  judge(a, validate(tensors.size(), [&](std::size_t i) {
          const TensorInfo& t = tensors[i];
          return Checked{t.name_view, t.begin, t.end};
        }, [&](std::size_t i) { return tensors[i].size_status; }), n, file_size);
  if (keep_model) {
    for (TensorInfo& t : meta.value().tensors) t.name_view = {};  // the header text is the caller's
    a.metadata = std::move(meta).value();
  }
  return a;
}

}  // namespace safespec::reference

namespace safespec::reference {

Answer read_plain_header(const Header& h, std::uint64_t n, std::uint64_t file_size) {
  // A plain text deserializes: every tensor in document order, none repeated.
  Answer a;
  judge(a, validate(h.tensors.size(), [&](std::size_t i) {
          const TensorEntry& t = h.tensors[i];
          return Checked{t.name, t.begin, t.end};
        }, [&](std::size_t i) {
          const TensorEntry& t = h.tensors[i];
          return size_status(t.shape, t.dtype, t.begin, t.end);
        }), n, file_size);
  return a;
}

}  // namespace safespec::reference
