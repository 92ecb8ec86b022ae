#include "src/parse/plain_header.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include "spec/json_text.hpp"
#include "spec/limits.hpp"
#include "spec/utf8.hpp"
#include "src/io/header_memory.hpp"
#include "src/parse/plain_text_cursor.hpp"

namespace safespec {

namespace {

using plain::Reader;

// [d, d, ...] into `shape`, sized exactly: the elements are counted first
// (a plain array holds digits, commas and whitespace up to its ']'), so a
// shape of up to Shape::kInlineDims costs no allocation and a longer one one
// allocation of 8 bytes a dimension, even for a hostile header of millions
// of dimensions. (A shape cut by the end of a window counts fewer and grows;
// its unit is then read again from a longer window.)
bool read_shape(Reader& r, Shape& shape) {
  if (!r.eat('[')) return false;
  if (r.eat(']')) return true;
  shape.reserve(r.count_elements());
  do {
    std::uint64_t v = 0;
    if (!r.u64(v)) return false;
    shape.push_back(v);
  } while (r.eat(','));
  return r.eat(']');
}

bool read_offsets(Reader& r, TensorEntry& t) {
  return r.eat('[') && r.u64(t.begin) && r.eat(',') && r.u64(t.end) && r.eat(']');
}

// The entry as the safetensors writers spell it, {"dtype":"NAME","shape":
// [...],"data_offsets":[b,e]}: its keys compared as fixed text where the
// general loop below reads each as a string and tries it against the
// three (a fifth of the parse of a 100,000-tensor header). A
// header spelled with spaces (Python's json.dumps) leaves it at its first
// bytes, before any work is lost.
bool read_canonical_tensor(Reader& r, TensorEntry& t) {
  std::string_view name;
  if (!r.literal(R"({"dtype":)") || !r.at('"') || !r.string(name)) return false;
  const auto d = dtype_from_name(name);
  if (!d) return false;
  t.dtype = *d;
  return r.literal(R"(,"shape":)") && read_shape(r, t.shape) && r.literal(R"(,"data_offsets":)") &&
         read_offsets(r, t) && r.literal("}");
}

// {"dtype": NAME, "shape": [...], "data_offsets": [b, e]} in any order, each
// field once, no other field (X3: an unknown one is the reference's to read).
// Whatever the canonical spelling does not take is read again from its start
// into a fresh entry, so both ways give what this loop gives.
bool read_tensor(Reader& r, TensorEntry& t) {
  r.skip_space();
  const char* start = r.position();
  if (read_canonical_tensor(r, t)) return true;
  r.rewind(start);
  t = TensorEntry{};
  if (!r.eat('{')) return false;
  bool has_dtype = false, has_shape = false, has_offsets = false;
  if (r.peek('}')) return false;
  do {
    std::string_view key;
    if (!r.string(key) || !r.eat(':')) return false;
    if (key == "dtype") {
      std::string_view name;
      if (has_dtype || !r.string(name)) return false;
      const auto d = dtype_from_name(name);
      if (!d) return false;
      t.dtype = *d;
      has_dtype = true;
    } else if (key == "shape") {
      if (has_shape || !read_shape(r, t.shape)) return false;
      has_shape = true;
    } else if (key == "data_offsets") {
      if (has_offsets || !read_offsets(r, t)) return false;
      has_offsets = true;
    } else {
      return false;
    }
  } while (r.eat(','));
  return r.eat('}') && has_dtype && has_shape && has_offsets;
}

// null, or an object of strings with no key repeated.
bool read_metadata(Reader& r, Header& h, NameIndex& keys) {
  if (r.word("null")) {
    h.metadata_state = MetadataState::Null;
    return true;
  }
  if (!r.eat('{')) return false;
  h.metadata_state = MetadataState::Present;
  if (!r.eat('}')) {
    // Room for a few entries at once: grown from one, two entries (format
    // and one more, as exporters write) were three allocations, not two.
    h.metadata.reserve(4);
    // A repeated key makes the text not plain: it is caught as it is read,
    // so a header of a million repeats stops at the second, not after the
    // whole object was copied (and, past a window, copied again for each
    // larger one). A few keys are compared with each other; from
    // kIndexedKeysFrom on they go through the index.
    constexpr std::size_t kIndexedKeysFrom = 8;
    const auto key_at = [&](std::size_t i) -> std::string_view { return h.metadata[i].first; };
    do {
      std::string_view key, value;
      if (!r.string(key)) return false;
      const std::size_t i = h.metadata.size();
      h.metadata.emplace_back(std::string(key), std::string());
      if (i == kIndexedKeysFrom) {
        keys.reset(2 * kIndexedKeysFrom);
        for (std::size_t j = 0; j < i; ++j) keys.find_or_insert(key_at(j), j, key_at);
      }
      const bool repeated =
          i < kIndexedKeysFrom
              ? std::any_of(h.metadata.begin(), h.metadata.begin() + static_cast<std::ptrdiff_t>(i),
                            [&](const auto& e) { return e.first == key_at(i); })
              : keys.find_or_insert(key_at(i), i, key_at) != NameIndex::npos;
      if (repeated || !r.eat(':') || !r.string(value)) return false;
      h.metadata.back().second.assign(value);
    } while (r.eat(','));
    if (!r.eat('}')) return false;
  }
  return true;
}

// How many tensors to reserve room for: a plain tensor holds exactly two '['
// (its shape and its offsets), so half the text's '[' is an upper bound, and
// an entry is at least {"dtype":"I8","shape":[],"data_offsets":[0,0]} with
// its key and a comma, 49 bytes, which caps the reservation within the
// memory bound even for metadata full of brackets.
constexpr std::size_t kMinEntryBytes = 49;

// The '[' are counted in runs of 240 bytes into a byte-wide counter, which
// cannot wrap there: gcc then compares and adds 16 bytes an instruction. A
// 64-bit counter a byte made it widen every comparison to 64-bit lanes, 1 us
// of a 5.6 KB header against 0.11 us, 6% of checking such a file
// (a directory of 1,000 of them).
constexpr std::size_t count_brackets(std::string_view text) {
  constexpr std::size_t kRun = 240;
  std::size_t brackets = 0, i = 0;
  for (; i + kRun <= text.size(); i += kRun) {
    std::uint8_t run = 0;
    for (std::size_t j = 0; j < kRun; ++j) run = static_cast<std::uint8_t>(run + (text[i + j] == '['));
    brackets += run;
  }
  for (; i < text.size(); ++i) brackets += text[i] == '[';
  return brackets;
}

// Checked where it is compiled, against a byte-at-a-time count: '[' at the
// runs' edges and every 7th byte, and a text of nothing else (a run's
// counter reaching 240).
static_assert([] {
  for (const bool all : {false, true}) {
    std::array<char, 600> a{};
    std::size_t plain = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      a[i] = all || i % 7 == 0 || i == 239 || i == 240 || i == 479 || i == 599 ? '[' : 'x';
      plain += a[i] == '[';
    }
    if (count_brackets(std::string_view(a.data(), a.size())) != plain) return false;
  }
  return true;
}());

std::size_t expected_tensors(std::string_view text) {
  return std::min(count_brackets(text) / 2, text.size() / kMinEntryBytes + 1);
}

// The same for a text of text_size bytes of which only the first window has
// been read: the window's count scaled to the whole text, a quarter more,
// capped alike; a text that holds more grows the list. Not one entry per
// kMinEntryBytes of text_size: that is 1.8x the header of address space, and
// a header of one 100 MB name or metadata value also holds that unit whole in
// the window and its decoded copy, past the memory bound (RLIMIT_AS = 3x the
// header + 64 MiB; docs/hardening.md, "The memory bound").
std::size_t expected_tensors(std::string_view first, std::uint64_t text_size) {
  if (first.empty() || first.size() >= text_size) return expected_tensors(first);
  const double per_byte = static_cast<double>(expected_tensors(first)) / static_cast<double>(first.size());
  const double estimate = per_byte * static_cast<double>(text_size) * 1.25 + 16;
  const std::uint64_t cap = text_size / kMinEntryBytes + 1;
  return static_cast<std::size_t>(std::min<double>(estimate, static_cast<double>(cap)));
}

// The top-level object, read one unit at a time from a window of the text:
// the opening brace, then each "key": value with the ',' or '}' after it, then
// the trailing whitespace. A unit either completes inside the window or is
// read again, whole, from a longer window; the Header keeps only units that
// completed. A unit never looks past its own last byte (the separator), so a
// unit that completes in a window completes alike in the whole text, and the
// result is the same for every window size (props: plain_header_windows).
class TopLevel {
 public:
  TopLevel(TextWindows& text, std::uint64_t text_size, NameIndex& names, std::size_t reserve, bool keep_hashes)
      : text_(text), names_(names), keep_hashes_(keep_hashes) {
    h_.name_text.expect(static_cast<std::size_t>(std::min<std::uint64_t>(text_size, SIZE_MAX)));
    h_.tensors.reserve(reserve);
    advise_huge_pages(h_.tensors.data(), h_.tensors.capacity() * sizeof(TensorEntry));
  }

  std::optional<Header> read() {
    for (;;) {
      const std::string_view w = text_.window();
      r_.reset(w.substr(from_));
      const Step step = this->step();
      if (step == Step::Done) break;
      if (step == Step::NotPlain) return std::nullopt;
      if (step == Step::Next) {
        from_ = static_cast<std::size_t>(r_.position() - w.data());
        continue;
      }
      // Step::Starved: drop what is done, read on, and read the unit again.
      h_.tensors.resize(unit_tensors_);
      if (unit_metadata_) {
        h_.metadata.clear();
        h_.metadata_state = MetadataState::Absent;
        metadata_seen_ = false;
      }
      if (!text_.advance(from_)) return std::nullopt;
      dropped_ += from_;
      from_ = 0;
    }
    const auto name_at = [&](std::size_t i) -> std::string_view { return h_.tensors[i].name; };
    std::uint64_t* hashes = nullptr;
    if (keep_hashes_) {
      h_.name_hashes.values.resize(h_.tensors.size());
      hashes = h_.name_hashes.values.data();
    }
    if (names_.first_duplicate(h_.tensors.size(), name_at, hashes) != NameIndex::npos) return std::nullopt;
    return std::move(h_);
  }

 private:
  enum class Step { Next, Done, NotPlain, Starved };
  enum class At { Open, First, Entry, Close };

  // A unit that failed within kLookahead bytes of a window that is not the
  // last may only have run out of text: the primitives read at most an
  // escape pair (\uXXXX\uXXXX, 12 bytes) or a word (null) past where they stop.
  static constexpr std::ptrdiff_t kLookahead = 16;
  Step failed() const {
    if (text_.final()) return Step::NotPlain;
    const std::string_view w = text_.window();
    return w.data() + w.size() - r_.position() < kLookahead ? Step::Starved : Step::NotPlain;
  }

  // Whitespace is done as soon as it is read (a run of it never has to fit
  // in one window); the unit starts at the next byte.
  Step step() {
    unit_tensors_ = h_.tensors.size();
    unit_metadata_ = false;
    r_.skip_space();
    from_ = static_cast<std::size_t>(r_.position() - text_.window().data());
    if (r_.at_end()) {
      if (!text_.final()) return Step::Starved;
      return at_ == At::Close ? Step::Done : Step::NotPlain;
    }
    switch (at_) {
      case At::Open:
        h_.leading_whitespace = dropped_ + from_;
        if (!r_.eat('{')) return Step::NotPlain;
        at_ = At::First;
        return Step::Next;
      case At::First:
        at_ = r_.eat('}') ? At::Close : At::Entry;
        return Step::Next;
      case At::Entry:
        return entry();
      case At::Close:  // anything but whitespace after the object
        return Step::NotPlain;
    }
    return Step::NotPlain;
  }

  Step entry() {
    std::string_view key;
    if (!r_.string(key, key_) || !r_.eat(':')) return failed();
    if (key == "__metadata__") {
      if (metadata_seen_) return Step::NotPlain;
      unit_metadata_ = true;
      metadata_seen_ = true;
      if (!read_metadata(r_, h_, names_)) return failed();
    } else {
      if (h_.tensors.size() >= 0xFFFFFFFFu) return Step::NotPlain;
      if (!read_tensor(r_, h_.tensors.emplace_back())) return failed();
    }
    if (r_.eat(',')) return named(key);
    if (r_.eat('}')) {
      at_ = At::Close;
      return named(key);
    }
    return failed();
  }

  // The name goes to the arena only once its unit is complete: a unit read
  // again from a longer window (a 99.9 MB name) must not store it twice.
  Step named(std::string_view key) {
    if (!unit_metadata_) h_.tensors.back().name = Name::borrowed(h_.name_text.store(key));
    return Step::Next;
  }

  TextWindows& text_;
  NameIndex& names_;
  bool keep_hashes_;
  Header h_;
  Reader r_;
  At at_ = At::Open;
  std::size_t from_ = 0;        // where the next unit starts in the window
  // An escaped key is decoded here, not into the reader's scratch: the
  // tensor's own strings come after it, and a unit read again decodes it
  // again into this same buffer (two buffers of a 64 MiB escaped name broke
  // the memory bound: docs/hardening.md, "The memory bound").
  std::string key_;
  std::uint64_t dropped_ = 0;   // text bytes before the window
  bool metadata_seen_ = false;
  // What the unit being read has added, to undo when it is read again.
  std::size_t unit_tensors_ = 0;
  bool unit_metadata_ = false;
};

// The whole text as one window.
class WholeText final : public TextWindows {
 public:
  explicit WholeText(std::string_view text) { set_window(text, true); }
  bool advance(std::size_t) override { return false; }
};

}  // namespace

std::optional<Header> parse_plain_header(std::string_view text, NameIndex& names, bool keep_name_hashes) {
  WholeText whole(text);
  // Sized as a windowed read sizes it, from its first window's brackets: a
  // count over the whole text was a pass of its own, a ninth of the parse.
  return TopLevel(whole, text.size(), names, expected_tensors(text.substr(0, kHeaderWindowBytes), text.size()), keep_name_hashes)
      .read();
}

std::optional<Header> parse_plain_header(TextWindows& text, std::uint64_t text_size, NameIndex& names,
                                         bool keep_name_hashes) {
  return TopLevel(text, text_size, names, expected_tensors(text.window(), text_size), keep_name_hashes).read();
}

}  // namespace safespec
