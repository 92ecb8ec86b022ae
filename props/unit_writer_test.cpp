// The canonical writer (W1-W8, §7): exact bytes, order, padding, refusals,
// and write_file.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gen/layout.hpp"
#include "props/catch.hpp"
#include "spec/file_reader.hpp"
#include "spec/format_rules.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/parse/load.hpp"
#include "src/io/writer.hpp"

using namespace safespec;
namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<std::uint8_t>;

std::string text_of(const Bytes& b) { return std::string(b.begin(), b.end()); }

Bytes le64(std::uint64_t n) {
  Bytes b;
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
  return b;
}

// The header text of a serialized file (N bytes after the prefix).
std::string header_of(const Bytes& file) {
  REQUIRE(file.size() >= 8);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | file[static_cast<std::size_t>(i)];
  REQUIRE(file.size() >= 8 + n);
  return std::string(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(n));
}

Bytes must_serialize(std::vector<TensorView> ts, const std::optional<Metadata>& md = std::nullopt) {
  auto r = serialize(std::move(ts), md);
  if (!r.ok()) FAIL(std::string(rule_name(r.error().rule)) + " | " + r.error().where.text() + " | " + r.error().message);
  return std::move(r).value();
}

void require_refusal(std::vector<TensorView> ts, const std::optional<Metadata>& md, std::string_view rule,
                     std::string_view where, std::string_view message) {
  const auto r = serialize(std::move(ts), md);
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(rule_name(r.error().rule)) == rule);
  CHECK(r.error().where.text() == where);
  CHECK(r.error().message == message);
}

// Reads back with the reference reader; the file must have no finding at all.
Model require_clean(const Bytes& file) {
  auto m = read_model_reference(file);
  REQUIRE(m.ok());
  HeaderParser parser;
  auto fast = read_model_fast(file, parser);
  CHECK(fast == m);
  const Findings f = check_model(m.value(), Profile::Strict);
  for (const Finding& x : f) INFO(std::string(rule_name(x.rule)) + " " + x.where.text() + " " + x.message);
  CHECK(f.empty());
  return std::move(m).value();
}

const std::string kWorked = R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}})";

fs::path fresh_dir(const std::string& tag) {
  static int counter = 0;
  const fs::path dir = fs::temp_directory_path() /
                       ("safespec_unit_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(++counter));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("W1-W7 (§7): worked example, I32 [2,2] gives N = 64 and an 88-byte file") {
  const Bytes zeros(16, 0);
  const Bytes file = must_serialize({TensorView{"test", Dtype::I32, {2, 2}, zeros}});
  REQUIRE(kWorked.size() == 60);
  Bytes expected = le64(64);
  expected.insert(expected.end(), kWorked.begin(), kWorked.end());
  expected.insert(expected.end(), 4, ' ');
  expected.insert(expected.end(), 16, 0);
  CHECK(file.size() == 88);
  CHECK(file == expected);
  CHECK(file[0] == '@');
  require_clean(file);
}

TEST_CASE("W1-W7: upstream test_simple.py test_serialization, exact bytes with [1,1] = 1") {
  Bytes data(16, 0);
  data[12] = 1;  // element [1,1] of an I32 [2,2], little-endian
  const Bytes file = must_serialize({TensorView{"test", Dtype::I32, {2, 2}, data}});
  const std::string expected = std::string("@\0\0\0\0\0\0\0", 8) + kWorked + "    " + std::string(12, '\0') +
                               std::string("\x01\0\0\0", 4);
  CHECK(text_of(file) == expected);
}

TEST_CASE("W1 (§4): dtype descending then name ascending, W2 contiguous offsets") {
  const Bytes b1(1, 0xB1), u8(1, 0x08), f4(1, 0xF4), f16(2, 0x16), i32(4, 0x32), c64(8, 0xC6), a64(8, 0xAA),
      z64(8, 0x22);
  const Bytes file = must_serialize({
      TensorView{"b", Dtype::BOOL, {1}, b1}, TensorView{"z", Dtype::U64, {1}, z64},
      TensorView{"m", Dtype::F4, {2}, f4}, TensorView{"c", Dtype::F16, {1}, f16},
      TensorView{"a", Dtype::U64, {1}, a64}, TensorView{"x", Dtype::U8, {1}, u8},
      TensorView{"d", Dtype::I32, {1}, i32}, TensorView{"e", Dtype::C64, {1}, c64}});
  const std::string expected_header =
      R"({"a":{"dtype":"U64","shape":[1],"data_offsets":[0,8]},)"
      R"("z":{"dtype":"U64","shape":[1],"data_offsets":[8,16]},)"
      R"("e":{"dtype":"C64","shape":[1],"data_offsets":[16,24]},)"
      R"("d":{"dtype":"I32","shape":[1],"data_offsets":[24,28]},)"
      R"("c":{"dtype":"F16","shape":[1],"data_offsets":[28,30]},)"
      R"("x":{"dtype":"U8","shape":[1],"data_offsets":[30,31]},)"
      R"("m":{"dtype":"F4","shape":[2],"data_offsets":[31,32]},)"
      R"("b":{"dtype":"BOOL","shape":[1],"data_offsets":[32,33]}})";
  const std::string h = header_of(file);
  CHECK(h.substr(0, expected_header.size()) == expected_header);
  CHECK(h.size() % 8 == 0);
  CHECK(h.find_first_not_of(' ', expected_header.size()) == std::string::npos);
  Bytes data;
  for (const Bytes* p : {&a64, &z64, &c64, &i32, &f16, &u8, &f4, &b1}) data.insert(data.end(), p->begin(), p->end());
  CHECK(Bytes(file.end() - 33, file.end()) == data);
  require_clean(file);  // W8: no TensorUnaligned, no HeaderUnaligned
}

TEST_CASE("W1: input order is irrelevant (test_serialization_order_invariant)") {
  const Bytes a(4, 1), b(2, 2), c(4, 3);
  const auto one = must_serialize({TensorView{"a", Dtype::F32, {1}, a}, TensorView{"b", Dtype::F16, {1}, b},
                                   TensorView{"c", Dtype::F32, {1}, c}});
  const auto two = must_serialize({TensorView{"c", Dtype::F32, {1}, c}, TensorView{"b", Dtype::F16, {1}, b},
                                   TensorView{"a", Dtype::F32, {1}, a}});
  CHECK(one == two);
}

TEST_CASE("W1: canonical_less") {
  CHECK(canonical_less(Dtype::U64, "z", Dtype::BOOL, "a"));
  CHECK_FALSE(canonical_less(Dtype::BOOL, "a", Dtype::U64, "z"));
  CHECK(canonical_less(Dtype::F32, "a", Dtype::F32, "b"));
  CHECK(canonical_less(Dtype::F32, "B", Dtype::F32, "a"));  // byte order
  CHECK_FALSE(canonical_less(Dtype::F32, "a", Dtype::F32, "a"));
}

TEST_CASE("W4 (§7.1): metadata first, keys sorted by bytes") {
  const Bytes z(1, 0);
  const Metadata md{{"b", "2"}, {"a", "1"}, {"B", "0"}};
  const auto file = must_serialize({TensorView{"t", Dtype::U8, {1}, z}}, md);
  const std::string h = header_of(file);
  const std::string expected =
      R"({"__metadata__":{"B":"0","a":"1","b":"2"},"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
  CHECK(h.substr(0, expected.size()) == expected);
  const Model m = require_clean(file);
  CHECK(m.header.metadata == Metadata{{"B", "0"}, {"a", "1"}, {"b", "2"}});
}

TEST_CASE("W4: string escaping, lowercase \\u00xx, raw / and UTF-8") {
  const std::string name = std::string("q\"b\\s\bf\fn\nr\rt\t") + '\x01' + '\x1f' + "/\xC3\xA9\xE2\x80\xA8";
  const Bytes z(1, 0);
  const auto file = must_serialize({TensorView{name, Dtype::U8, {1}, z}});
  const std::string h = header_of(file);
  CHECK(h.starts_with(R"({"q\"b\\s\bf\fn\nr\rt\t\u0001\u001f/)" "\xC3\xA9\xE2\x80\xA8" R"(":{"dtype")"));
  const Model m = require_clean(file);
  CHECK(m.header.tensors[0].name == name);
}

TEST_CASE("W5: an aligned header gets no padding") {
  // {"abcd":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}} is 56 bytes.
  const Bytes z(1, 0);
  const auto file = must_serialize({TensorView{"abcd", Dtype::U8, {1}, z}});
  CHECK(header_of(file) == R"({"abcd":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})");
  CHECK(file.size() == 8 + 56 + 1);
}

TEST_CASE("X12 (§7.1): no tensors and empty metadata reads back, not {},\"__metadata__\":{}}") {
  const auto file = must_serialize({}, Metadata{});
  CHECK(header_of(file) == R"({"__metadata__":{}}     )");
  const Model m = require_clean(file);
  CHECK(m.header.metadata_state == MetadataState::Present);
  CHECK(m.header.metadata.empty());
  CHECK(m.header.tensors.empty());

  const auto bare = must_serialize({});
  CHECK(text_of(bare) == std::string("\x08\0\0\0\0\0\0\0{}      ", 16));
  require_clean(bare);
}

TEST_CASE("X12: metadata-only and zero-sized tensors round-trip") {
  const auto file = must_serialize({TensorView{"z", Dtype::F32, {0, 3}, {}}, TensorView{"s", Dtype::I8, {}, Bytes(1, 7)}},
                                   Metadata{{"format", "pt"}});
  const Model m = require_clean(file);
  REQUIRE(m.header.tensors.size() == 2);
  CHECK(m.header.tensors[0].name == "z");  // F32 sorts before I8
  CHECK(m.header.tensors[0].begin == 0);
  CHECK(m.header.tensors[0].end == 0);
  CHECK(m.header.tensors[1].shape.empty());
  CHECK(file.back() == 7);
}

TEST_CASE("ST-TENSOR-NAME-RESERVED (X10): the writer refuses a tensor named __metadata__",
          "[ST-TENSOR-NAME-RESERVED]") {
  require_refusal({TensorView{"__metadata__", Dtype::U8, {1}, Bytes(1, 0)}}, std::nullopt, "ST-TENSOR-NAME-RESERVED",
                  "tensor '__metadata__'",
                  "expected a tensor name other than __metadata__, which readers take as the metadata (X10)");
  CHECK(rule_info(RuleId::TensorNameReserved).rule_number == "X10");
  // Case variants are ordinary names (X11).
  CHECK(serialize({TensorView{"__METADATA__", Dtype::U8, {1}, Bytes(1, 0)}}, std::nullopt).ok());
}

TEST_CASE("ST-DUPLICATE-TENSOR (§7.1): the writer refuses duplicate names", "[ST-DUPLICATE-TENSOR]") {
  const Bytes z(1, 0);
  require_refusal({TensorView{"a", Dtype::U8, {1}, z}, TensorView{"a", Dtype::U8, {1}, z}}, std::nullopt,
                  "ST-DUPLICATE-TENSOR", "tensor 'a'", "expected each tensor name once, found it twice");
}

TEST_CASE("ST-DUPLICATE-METADATA-KEY (§7.1): the writer refuses a metadata key twice", "[ST-DUPLICATE-METADATA-KEY]") {
  require_refusal({}, Metadata{{"k", "1"}, {"j", "0"}, {"k", "2"}}, "ST-DUPLICATE-METADATA-KEY", "__metadata__['k']",
                  "expected each metadata key once, found it twice");
}

TEST_CASE("ST-HEADER-UTF8 (F5): the writer refuses names and metadata that are not UTF-8", "[ST-HEADER-UTF8]") {
  const Bytes z(1, 0);
  require_refusal({TensorView{"a\xff", Dtype::U8, {1}, z}}, std::nullopt, "ST-HEADER-UTF8", "tensor 'a\\xff'",
                  "expected UTF-8 text, found an invalid sequence at byte 1");
  require_refusal({}, Metadata{{"k", "\xc0\x80"}}, "ST-HEADER-UTF8", "__metadata__['k']",
                  "expected UTF-8 text, found an invalid sequence at byte 0");
  require_refusal({}, Metadata{{"\xed\xa0\x80", "v"}}, "ST-HEADER-UTF8", "__metadata__['\\xed\\xa0\\x80']",
                  "expected UTF-8 text, found an invalid sequence at byte 0");
}

TEST_CASE("ST-MISALIGNED-BITS (W3): upstream test_serialization_fp4_misaligned, F4 [1,3]", "[ST-MISALIGNED-BITS]") {
  require_refusal({TensorView{"x", Dtype::F4, {1, 3}, Bytes(2, 0)}}, std::nullopt, "ST-MISALIGNED-BITS", "tensor 'x'",
                  "expected a whole number of bytes, found 3 elements x 4 bits (F4) = 12 bits");
  CHECK(rule_info(RuleId::MisalignedBits).reference == "MisalignedSlice");
}

TEST_CASE("ST-SIZE-MISMATCH (W3): data length differs from shape x bits (test_serialization_fp4_invalid)",
          "[ST-SIZE-MISMATCH]") {
  require_refusal({TensorView{"x", Dtype::F4, {1, 2}, Bytes(2, 0)}}, std::nullopt, "ST-SIZE-MISMATCH", "tensor 'x'",
                  "expected 1 byte of data for the shape and dtype, found 2");
  require_refusal({TensorView{"y", Dtype::I32, {2, 2}, Bytes(15, 0)}}, std::nullopt, "ST-SIZE-MISMATCH", "tensor 'y'",
                  "expected 16 bytes of data for the shape and dtype, found 15");
  // F4 [1,2] with one byte is the valid fp4 case.
  CHECK(serialize({TensorView{"x", Dtype::F4, {1, 2}, Bytes(1, 0)}}, std::nullopt).ok());
}

TEST_CASE("ST-SHAPE-OVERFLOW (W3, F9): the writer refuses an overflowing shape", "[ST-SHAPE-OVERFLOW]") {
  require_refusal({TensorView{"x", Dtype::U8, {2, 18446744073709551614ull}, {}}}, std::nullopt, "ST-SHAPE-OVERFLOW",
                  "tensor 'x'",
                  "expected the element count of shape [2, 18446744073709551614] to fit in 64 bits (folded left to "
                  "right), found it overflows at shape[1]");
}

TEST_CASE("ST-HEADER-TOO-LARGE (W6): test_invalid_header_size_serialization, 1e8 'a' characters",
          "[ST-HEADER-TOO-LARGE]") {
  const std::string big(100'000'000, 'a');
  require_refusal({}, Metadata{{"k", big}}, "ST-HEADER-TOO-LARGE", "header",
                  "expected a padded header of at most 100000000 bytes, found 100000032");
  CHECK(rule_info(RuleId::HeaderTooLarge).reference == "HeaderTooLarge");
}

TEST_CASE("W6 (F3): a padded header of exactly 100,000,000 bytes is written and read back") {
  // {"__metadata__":{"k":"..."}} is 25 bytes plus the value.
  const std::string value(100'000'000 - 25, 'a');
  const auto file = must_serialize({}, Metadata{{"k", value}});
  CHECK(file.size() == 8 + 100'000'000);
  const auto m = read_model_reference(file);
  REQUIRE(m.ok());
  CHECK(m.value().header_length == 100'000'000);
  CHECK(m.value().header.metadata[0].second.size() == value.size());
  require_refusal({}, Metadata{{"k", value + "a"}}, "ST-HEADER-TOO-LARGE", "header",
                  "expected a padded header of at most 100000000 bytes, found 100000008");
}

TEST_CASE("W7: write_file writes via a temporary file and the result re-reads") {
  const fs::path dir = fresh_dir("writer");
  const std::string path = (dir / "model.safetensors").string();
  const auto bytes = must_serialize({TensorView{"test", Dtype::I32, {2, 2}, Bytes(16, 0)}});
  REQUIRE(write_file(path, bytes).ok());
  // Overwriting an existing file replaces it.
  const auto bytes2 = must_serialize({TensorView{"t2", Dtype::U8, {3}, Bytes{1, 2, 3}}});
  REQUIRE(write_file(path, bytes2).ok());
  std::ifstream in(path, std::ios::binary);
  const Bytes back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(back == bytes2);
  CHECK_FALSE(fs::exists(path + ".tmp-safespec"));
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  HeaderParser parser;
  auto loaded = load_model(path, parser);
  REQUIRE(loaded.ok());
  REQUIRE(loaded.value().ok());
  CHECK(loaded.value().value().header.tensors[0].name == "t2");
  CHECK(check_model(loaded.value().value(), Profile::Strict).empty());
  fs::remove_all(dir);
}

TEST_CASE("W7: write_file into a missing directory is an I/O error") {
  const fs::path dir = fresh_dir("writer_missing");
  const std::string path = (dir / "no" / "x.safetensors").string();
  const auto r = write_file(path, Bytes{1});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "cannot create " + path + ".tmp-safespec: No such file or directory");
  fs::remove_all(dir);
}

TEST_CASE("W4 (X8): canonical_header_json omits null metadata and sorts") {
  Header h;
  h.metadata_state = MetadataState::Null;
  h.tensors.push_back(gen::tensor_entry("b", Dtype::U8, {1}, 4, 5));
  h.tensors.push_back(gen::tensor_entry("a", Dtype::F32, {1}, 0, 4));
  h.unknown_fields.push_back(UnknownField{"b", "ignored"});
  CHECK(canonical_header_json(h) ==
        R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[1],"data_offsets":[4,5]}})");
  h.metadata_state = MetadataState::Present;
  h.metadata = {{"z", "1"}, {"y", "2"}};
  CHECK(canonical_header_json(h).starts_with(R"({"__metadata__":{"y":"2","z":"1"},"a":)"));
  CHECK(canonical_header_json(Header{}) == "{}");
}
