// The plain header reader (src/parse/plain_header.hpp): which texts it decides, and
// that what it decides is what the reference reader and the emulated Rust
// reader say. The differential properties cover the general case; these pin
// the spellings real checkpoints use and the edges of "plain".
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "gen/file_bytes.hpp"
#include "gen/synthetic.hpp"
#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "spec/header_reader.hpp"
#include "spec/limits.hpp"
#include "spec/name_hash.hpp"
#include "spec/reference/reference_reader.hpp"
#include "src/parse/header_parser.hpp"
#include "src/parse/load.hpp"
#include "src/oracles/oracles.hpp"

using namespace safespec;

namespace {

// Whether the fast path decided `header`, after checking that the answer is
// the reference reader's (Header or Error) and that check's reference answer
// is the emulated Rust reader's.
bool decided_fast(const std::string& header, std::size_t data = 0) {
  HeaderParser parser;
  const Result<Header> fast = parser.parse(header);
  const bool was_fast = parser.last_was_fast();
  CHECK(fast == read_header_reference(header));
  const std::vector<std::uint8_t> bytes = gen::file_with_header(header, data);
  CHECK_FALSE(parsers_disagree(bytes, parser).has_value());
  return was_fast;
}

}  // namespace

TEST_CASE("plain reader decides the spellings real checkpoints use", "[unit][plain]") {
  CHECK(decided_fast("{}"));
  CHECK(decided_fast(" \t\r\n{ } \n"));
  CHECK(decided_fast(R"({"__metadata__":null})"));
  CHECK(decided_fast(R"({"__metadata__":{}})"));
  CHECK(decided_fast(R"({"a":{"dtype":"U8","shape":[],"data_offsets":[0,1]}})", 1));
  CHECK(decided_fast(R"({ "a" : { "shape" : [ 2 , 3 ] , "data_offsets" : [ 0 , 6 ] , "dtype" : "I8" } })", 6));
  // A config stored as JSON text in the metadata: escapes everywhere.
  CHECK(decided_fast(R"({"__metadata__":{"config":"{\"a\": [1, -0.5], \"b\": \"\\u00e9\\t\\/\"}"}})"));
  // A date with -0 in a string is no number.
  CHECK(decided_fast(R"({"__metadata__":{"date":"2024-01-02"}})"));
  // UTF-8 raw and escaped, a surrogate pair, an escaped key.
  CHECK(decided_fast("{\"caf\xC3\xA9\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1));
  CHECK(decided_fast(R"({"\ud83d\ude00.w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1));
  CHECK(decided_fast(R"({"a\u0000b":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1));
  // An escaped name, then escaped strings inside its entry: the name keeps its own buffer.
  CHECK(decided_fast(R"({"\u0061b":{"d\u0074ype":"U\u0038","shape":[1],"data_offsets":[0,1]}})", 1));
  CHECK(decided_fast(R"({"a":{"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,1]}})", 1));
  // Valid in form, wrong in content: the fast path still decides.
  CHECK(decided_fast(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,1]}})", 1));
  CHECK(decided_fast(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[5,1]}})", 1));
}

// read_tensor tries the writers' spelling {"dtype":"X","shape":[..],
// "data_offsets":[b,e]} first (src/parse/plain_header.cpp); an entry that leaves it
// after any part is read again from its start by the general loop. The law:
// every one reads as the reference reads it (a shape or dtype kept from the
// first try would show as a different Header), and the plain reader still
// decides each one it decided before (one read again from where the first
// try stopped, not from the entry's start, would be handed to the reference).
TEST_CASE("plain reader: an entry that leaves the writers' spelling part way reads as the reference reads it",
          "[unit][plain]") {
  struct Case {
    std::string entry;
    bool plain;  // decided by the plain reader, not handed to the reference
  };
  const std::vector<Case> cases{
      {R"({"dtype":"F16","shape":[2,3,4,5],"data_offsets":[0,240]})", true},
      {R"({"dtype":"F16","shape":[2,3,4,5], "data_offsets":[0,240]})", true},   // after the shape
      {R"({"dtype":"F16","shape":[2,3,4,5],"data_offsets":[0,240] })", true},   // after the offsets
      {R"({"dtype":"F16" ,"shape":[2,3,4,5],"data_offsets":[0,240]})", true},   // after the dtype
      {R"({"dtype": "F16","shape":[2,3,4,5],"data_offsets":[0,240]})", true},   // before the dtype's quote
      {R"({ "dtype":"F16","shape":[2,3,4,5],"data_offsets":[0,240]})", true},   // after the brace
      {R"({"dtype":"F16","data_offsets":[0,240],"shape":[2,3,4,5]})", true},    // another order
      {R"({"shape":[2,3,4,5],"dtype":"F16","data_offsets":[0,240]})", true},
      {R"({"dtype":"F16","shape":[2,3,4,5],"dat\u0061_offsets":[0,240]})", true},  // an escaped key
      {R"({"dtype":"F\u00316","shape":[2,3,4,5],"data_offsets":[0,240]})", true},  // an escaped dtype
      {R"({"dtype":"F16","shape":[2,3],"data_offsets":[0,12]})", true},
      {R"({"dtype":"F16","shape":[2,3,4,5],"data_offsets":[0,240],"dtype":"F16"})", false},  // a repeat
      {R"({"dtype":"F16","shape":[2,3,4,5],"data_offsets":[0,240],"x":1})", false},  // an unknown field
  };
  for (const Case& c : cases) {
    INFO(c.entry);
    CHECK(decided_fast(R"({"a":)" + c.entry + R"(,"b":{"dtype":"U8","shape":[1],"data_offsets":[240,241]}})", 241) ==
          c.plain);
  }
}

TEST_CASE("plain reader reads numbers of every length as the reference does", "[unit][plain]") {
  // The reader takes up to eight digits a step where eight bytes are left:
  // every length from 1 to 21 digits, at every offset within a word, and
  // the edges of u64 (2^64 - 1 is plain; 2^64 and 10^20 are the reference's).
  std::vector<std::string> numbers = {"18446744073709551615", "18446744073709551616", "99999999999999999999",
                                      "100000000000000000000", "10000000000000000000", "12345678", "1234567890123456"};
  std::string digits = "9876543210";
  for (std::size_t n = 1; n <= 21; ++n) numbers.push_back(std::string(1, "123456789"[n % 9]) + (digits + digits + digits).substr(0, n - 1));
  for (const std::string& number : numbers)
    for (std::size_t pad = 0; pad < 8; ++pad) {
      INFO(number << " after " << pad << " spaces");
      const std::string header = R"({"a":{"dtype":"U8","shape":[)" + std::string(pad, ' ') + number +
                                 R"(,7],"data_offsets":[)" + number + "," + number + "]}}";
      const bool fits = number.size() < 20 || (number.size() == 20 && number <= "18446744073709551615");
      CHECK(decided_fast(header) == fits);
    }
}

TEST_CASE("plain reader hands every other text to the reference reader", "[unit][plain]") {
  for (const std::string& header : {
           std::string(""), std::string("[]"), std::string("{"), std::string("{}x"), std::string("{},"),
           std::string(R"({"a":{"dtype":"U8","shape":[-0],"data_offsets":[0,0]}})"),
           std::string(R"({"a":{"dtype":"U8","shape":[1.0],"data_offsets":[0,1]}})"),
           std::string(R"({"a":{"dtype":"U8","shape":[1e0],"data_offsets":[0,1]}})"),
           std::string(R"({"a":{"dtype":"U8","shape":[01],"data_offsets":[0,1]}})"),
           std::string(R"({"a":{"dtype":"U8","shape":[18446744073709551616],"data_offsets":[0,1]}})"),
           std::string(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]}})"),
           std::string(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":1}})"),
           std::string(R"({"a":{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}})"),
           std::string(R"({"a":{"dtype":"u8","shape":[1],"data_offsets":[0,1]}})"),
           std::string(R"({"a":["U8",[1],[0,1]]})"),
           std::string(R"({"a":{}})"),
           std::string(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})"),
           std::string(R"({"__metadata__":{"k":"v","k":"w"}})"),
           std::string(R"({"__metadata__":{"k":1}})"),
           std::string(R"({"__metadata__":null,"__metadata__":null})"),
           std::string(R"({"__metadata__":{"k":"\ud800"}})"),
           std::string(R"({"__metadata__":{"k":"\udc00"}})"),
           std::string(R"({"__metadata__":{"k":"\x"}})"),
           std::string("{\"__metadata__\":{\"k\":\"\xC3\"}}"),
           std::string("{\"__metadata__\":{\"k\":\"\xED\xA0\x80\"}}"),
           std::string("{\"__metadata__\":{\"k\":\"a\tb\"}}"),
       }) {
    INFO(header);
    CHECK_FALSE(decided_fast(header, 2));
  }
}

TEST_CASE("plain reader keeps one path above 16 MiB", "[unit][plain]") {
  // 150,000 tensors: about 19 MB of header, past where the simdjson DOM
  // used to hand over to the streaming reader.
  const gen::SyntheticText s = gen::synthetic_checkpoint_text(150'000, 16);
  REQUIRE(s.text.size() > (std::size_t{16} << 20));
  HeaderParser parser;
  const Result<Header> h = parser.parse(s.text);
  CHECK(parser.last_was_fast());
  REQUIRE(h.ok());
  CHECK(h.value().tensors.size() == 150'000);
  const reference::Answer a = reference::read_plain_header(h.value(), s.text.size(), 8 + s.text.size() + s.data_size);
  CHECK_FALSE(a.failure.has_value());
}

namespace {

// Whether a header read in windows of `window` bytes gives what it gives read
// whole, and was decided by the fast path.
bool windows_decide_fast(const std::vector<std::uint8_t>& bytes, std::size_t window) {
  HeaderParser parser;
  const LoadedFile whole = read_file_memory(bytes, parser);
  const LoadedFile cut = read_file_windowed(bytes, parser, window);
  CHECK(cut.model == whole.model);
  CHECK(cut.reference.failure == whole.reference.failure);
  if (cut.model.ok() && parser.last_was_fast()) {
    // Each name goes to the arena once, however often its unit was re-read.
    const Header& h = cut.model.value().header;
    std::size_t names = 0;
    for (const TensorEntry& t : h.tensors) names += t.name.size();
    CHECK(h.name_text.stored() == names);
  }
  return parser.last_was_fast();
}

}  // namespace

TEST_CASE("plain reader reads a header in windows as it reads it whole", "[unit][plain]") {
  // 3,000 tensors, a metadata value longer than most windows, runs of
  // whitespace longer than a window before, between and after the entries,
  // and an escaped name cut anywhere.
  const gen::SyntheticText s = gen::synthetic_checkpoint_text(3000, 8);
  const std::size_t entries = s.text.find("},\"") + 2;  // past its own __metadata__
  REQUIRE(s.text.starts_with("{\"__metadata__\":{"));
  std::string header = std::string(5000, ' ') + "{\"__metadata__\":{\"long\":\"" + std::string(20'000, 'x') +
                       "\",\"esc\":\"\\ud83d\\ude00\\t\"}," + std::string(3000, '\n') +
                       R"("\u00e9\ud83d\ude00.w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)" + s.text.substr(entries) +
                       std::string(4000, ' ');
  const std::vector<std::uint8_t> bytes = gen::file_with_header(header, 0);
  for (const std::size_t window : {1, 2, 13, 64, 1000, 4096, 70'000}) {
    INFO("window " << window);
    CHECK(windows_decide_fast(bytes, window));
  }
  // Not plain at its end only: every window reads on to it, then hands over.
  header.insert(header.size() - 4000, ",");
  for (const std::size_t window : {1, 64, 4096}) {
    INFO("window " << window);
    CHECK_FALSE(windows_decide_fast(gen::file_with_header(header, 0), window));
  }
}

TEST_CASE("a Header's names outlive the Header they were read into", "[unit][plain][model]") {
  // The fast path's names borrow from the Header's arena; a copy owns its
  // names, a move takes the arena along. ASan reads every name below after
  // the Header they were read into is gone.
  const gen::SyntheticText s = gen::synthetic_checkpoint_text(2000, 8);
  HeaderParser parser;
  std::optional<Header> copied;
  std::optional<Header> moved;
  {
    Result<Header> read = parser.parse(s.text);
    REQUIRE(parser.last_was_fast());
    REQUIRE(read.ok());
    for (const TensorEntry& t : read.value().tensors) REQUIRE_FALSE(t.name.owned());
    copied = read.value();
    moved = std::move(read.value());
  }
  const Result<Header> reference = read_header_reference(s.text);
  REQUIRE(reference.ok());
  CHECK(*copied == reference.value());
  CHECK(*moved == reference.value());
  for (const TensorEntry& t : copied->tensors) REQUIRE(t.name.owned());
  Header assigned;
  assigned = *moved;
  moved.reset();
  CHECK(assigned == reference.value());
}

TEST_CASE("plain reader reads a local file's header in windows", "[unit][plain]") {
  // Past kHeaderWindowBytes, so load_file reads it in several windows.
  const gen::SyntheticText s = gen::synthetic_checkpoint_text(5000, 16);
  REQUIRE(s.text.size() > 2 * kHeaderWindowBytes);
  const std::vector<std::uint8_t> bytes = gen::file_with_header(s.text, 0);
  test::TempDir tmp("plain_windows");
  const std::string path = (tmp.dir / "w.safetensors").string();
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  std::filesystem::resize_file(path, bytes.size() + s.data_size);
  HeaderParser parser;
  const auto loaded = load_file(path, parser);
  REQUIRE(loaded.ok());
  CHECK(parser.last_was_fast());
  REQUIRE(loaded.value().model.ok());
  CHECK(loaded.value().model.value().header.tensors.size() == 5000);
  CHECK_FALSE(loaded.value().reference.failure.has_value());
}

// Header::name_hashes (spec/model.hpp): the collision check across a
// checkpoint's files takes each name's hash from the parse. Kept only when
// asked, one per tensor, each the name's name_hash (an escaped name's hash is
// its decoded text's), read whole or in windows; the same header either way.
TEST_CASE("plain reader keeps each name's hash when asked", "[unit][plain]") {
  const gen::SyntheticText s = gen::synthetic_checkpoint_text(500, 4);
  const std::string header =
      R"({"\u00e9\ud83d\ude00.w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)" + s.text.substr(1);
  const std::vector<std::uint8_t> bytes = gen::file_with_header(header, 0);
  HeaderParser parser;
  const LoadedFile plain = read_file_memory(bytes, parser);
  REQUIRE(plain.model.ok());
  CHECK(plain.model.value().header.name_hashes.values.empty());
  parser.keep_name_hashes(true);
  for (const std::size_t window : {std::size_t{0}, std::size_t{64}}) {
    INFO("window " << window);
    const LoadedFile kept = window == 0 ? read_file_memory(bytes, parser) : read_file_windowed(bytes, parser, window);
    REQUIRE(parser.last_was_fast());
    REQUIRE(kept.model.ok());
    const Header& h = kept.model.value().header;
    CHECK(h == plain.model.value().header);
    REQUIRE(h.name_hashes.values.size() == h.tensors.size());
    CHECK(h.tensors.front().name == "\u00e9\U0001F600.w");
    for (std::size_t i = 0; i < h.tensors.size(); ++i) CHECK(h.name_hashes.values[i] == name_hash(h.tensors[i].name));
  }
}

// load_file reads a local file's prefix with the first 8 KiB after it in one
// call and serves the windows' first bytes from there (src/parse/load.cpp): what it
// gives is what the same bytes give in memory, for files ending before,
// at and after that first read, headers the plain reader decides or leaves to
// the reference reader (a repeated name), and files too short for a prefix or
// for the header their prefix claims.
TEST_CASE("load_file: the first read and the windows give what the bytes in memory give", "[unit][plain]") {
  test::TempDir tmp("first_read");
  const auto header_of = [](std::size_t n, bool repeat) {
    std::string h = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},")" + std::string(repeat ? "a" : "b") +
                    R"(":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})";
    REQUIRE(n >= h.size());
    return h + std::string(n - h.size(), ' ');
  };
  std::vector<std::vector<std::uint8_t>> files;
  for (const std::size_t end : {4096, 8191, 8192, 8193, 20000})  // 8 + the header's length
    for (const bool repeat : {false, true})
      for (const std::size_t data : {2, 30000}) files.push_back(gen::file_with_header(header_of(end - 8, repeat), data));
  std::vector<std::uint8_t> claims_more = gen::file_with_header(header_of(9000, false), 2);
  claims_more.resize(8500);  // the prefix says 9,000 header bytes
  files.push_back(claims_more);
  for (const std::size_t size : {std::size_t{0}, std::size_t{5}, std::size_t{8}, std::size_t{9}}) {
    files.push_back(gen::file_with_header(header_of(200, false), 2));
    files.back().resize(size);
  }
  for (std::size_t k = 0; k < files.size(); ++k) {
    const std::vector<std::uint8_t>& bytes = files[k];
    INFO("file " << k << ", " << bytes.size() << " bytes");
    const std::string path = (tmp.dir / ("f" + std::to_string(k) + ".safetensors")).string();
    {
      std::ofstream out(path, std::ios::binary);
      out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    HeaderParser parser;
    const auto on_disk = load_file(path, parser);
    REQUIRE(on_disk.ok());
    const bool fast = parser.last_was_fast();
    const LoadedFile in_memory = read_file_memory(bytes, parser);
    CHECK(parser.last_was_fast() == fast);
    const LoadedFile& d = on_disk.value();
    CHECK(d.file_size == in_memory.file_size);
    CHECK(d.header_length == in_memory.header_length);
    CHECK(d.model == in_memory.model);
    CHECK(d.reference.failure == in_memory.reference.failure);
    CHECK(d.reference.alternatives == in_memory.reference.alternatives);
  }
}
