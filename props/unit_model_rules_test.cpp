// F7-F13: the model rules over parsed headers (safetensors-format.md §2,
// §2.1, §2.2, §4.1), each pinned with exact rule id, where and message.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gen/file_bytes.hpp"
#include "gen/layout.hpp"
#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "spec/file_reader.hpp"
#include "spec/format_rules.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/commands/check.hpp"

using namespace safespec;
using namespace safespec::test;

namespace {

std::string entry(std::string_view name, std::string_view dtype, std::string_view shape, std::uint64_t b,
                  std::uint64_t e) {
  return "\"" + std::string(name) + R"(":{"dtype":")" + std::string(dtype) + R"(","shape":[)" + std::string(shape) +
         R"(],"data_offsets":[)" + std::to_string(b) + "," + std::to_string(e) + "]}";
}

// A file whose header (padded to a multiple of 8) holds these entries.
Bytes file_of(const std::vector<std::string>& entries, std::size_t data) {
  std::string h = "{";
  for (std::size_t i = 0; i < entries.size(); ++i) h += (i ? "," : "") + entries[i];
  return gen::file_with_header(pad8(h + "}"), data);
}

std::vector<std::string> lines(const Findings& fs) {
  std::vector<std::string> out;
  for (const Finding& f : fs) out.push_back(std::string(rule_name(f.rule)) + " | " + f.where.text() + " | " + f.message);
  return out;
}

// Findings in both profiles; these files have no strict-only findings, so
// the two must agree.
std::vector<std::string> findings_of(const Bytes& file) {
  const Model m = require_model(file);
  const auto strict = lines(check_model(m, Profile::Strict));
  CHECK(strict == lines(check_model(m, Profile::Safetensors)));
  return strict;
}

std::string_view verdict(const Bytes& file) {
  static FileReport r;
  const Model m = require_model(file);
  r = FileReport{"mem", check_model(m, Profile::Safetensors), std::nullopt, m, {}, false, std::nullopt, {}, {}};
  return r.reference_verdict();
}

std::string line(std::string_view rule, std::string_view where, std::string_view message) {
  return std::string(rule) + " | " + std::string(where) + " | " + std::string(message);
}

const std::string kBegin = " (where the previous tensor in offset order ends), found ";
const std::string kBegin0 = " (where the byte buffer starts), found ";

}  // namespace

TEST_CASE("ST-OFFSET-GAP (F8): a gap before the first tensor", "[ST-OFFSET-GAP]") {
  const auto f = file_of({entry("a", "U8", "1", 1, 2)}, 2);
  CHECK(findings_of(f) == std::vector<std::string>{line("ST-OFFSET-GAP", "tensor 'a'",
                                                        "expected data_offsets begin 0" + kBegin0 + "1: a gap of 1 byte")});
  CHECK(verdict(f) == "InvalidOffset");
}

TEST_CASE("ST-OFFSET-OVERLAP (F8): a tensor begins inside the previous one", "[ST-OFFSET-OVERLAP]") {
  const auto f = file_of({entry("a", "U8", "2", 0, 2), entry("b", "U8", "1", 1, 2)}, 2);
  CHECK(findings_of(f) == std::vector<std::string>{line("ST-OFFSET-OVERLAP", "tensor 'b'",
                                                        "expected data_offsets begin 2" + kBegin + "1: an overlap of 1 byte")});
  CHECK(verdict(f) == "InvalidOffset");
}

TEST_CASE("ST-OFFSET-REVERSED (F8): END < BEGIN", "[ST-OFFSET-REVERSED]") {
  const auto f = file_of({entry("a", "U8", "1", 0, 1), entry("b", "U8", "0", 1, 0)}, 1);
  const auto got = findings_of(f);
  REQUIRE_FALSE(got.empty());
  CHECK(got[0] == line("ST-OFFSET-REVERSED", "tensor 'b'", "expected data_offsets end >= begin, found [1, 0]"));
  CHECK(verdict(f) == "InvalidOffset");
}

TEST_CASE("ST-SHAPE-OVERFLOW (F9): upstream [2, 2^64-2]", "[ST-SHAPE-OVERFLOW]") {
  const auto f = file_of({entry("a", "U64", "2,18446744073709551614", 0, 0)}, 0);
  CHECK(findings_of(f) == std::vector<std::string>{line(
                              "ST-SHAPE-OVERFLOW", "tensor 'a'",
                              "expected the element count of shape [2, 18446744073709551614] to fit in 64 bits "
                              "(folded left to right), found it overflows at shape[1]")});
  CHECK(verdict(f) == "ValidationOverflow");
}

TEST_CASE("ST-NBITS-OVERFLOW (F10): upstream I32 [2, 2^63-1]", "[ST-NBITS-OVERFLOW]") {
  const auto f = file_of({entry("a", "I32", "2,9223372036854775807", 0, 0)}, 0);
  CHECK(findings_of(f) == std::vector<std::string>{line(
                              "ST-NBITS-OVERFLOW", "tensor 'a'",
                              "expected 18446744073709551614 elements x 32 bits (I32) to fit in 64 bits, found it overflows")});
  CHECK(verdict(f) == "ValidationOverflow");
}

TEST_CASE("ST-MISALIGNED-BITS (F11): F4 [3] is 12 bits", "[ST-MISALIGNED-BITS]") {
  const auto bytes = GENERATE(1u, 2u);  // whether the offsets give 1 or 2 bytes
  const auto f = file_of({entry("a", "F4", "3", 0, bytes)}, bytes);
  CHECK(findings_of(f) == std::vector<std::string>{line("ST-MISALIGNED-BITS", "tensor 'a'",
                                                        "expected a whole number of bytes, found 3 elements x 4 bits (F4) = 12 bits")});
  CHECK(verdict(f) == "MisalignedSlice");
}

TEST_CASE("ST-SIZE-MISMATCH (F12): END - BEGIN differs from the byte size", "[ST-SIZE-MISMATCH]") {
  const auto f = file_of({entry("a", "U8", "2", 0, 1)}, 1);
  CHECK(findings_of(f) == std::vector<std::string>{line("ST-SIZE-MISMATCH", "tensor 'a'",
                                                        "expected data_offsets to span 2 bytes (U8 [2]), found [0, 1] = 1 byte")});
  CHECK(verdict(f) == "TensorInvalidInfo");
}

TEST_CASE("ST-BUFFER-TRAILING (F13, X5): bytes after the last tensor", "[ST-BUFFER-TRAILING]") {
  const auto f = file_of({entry("a", "U8", "1", 0, 1)}, 3);
  const std::size_t data_start = f.size() - 3;
  CHECK(findings_of(f) == std::vector<std::string>{line(
                              "ST-BUFFER-TRAILING", "byte " + std::to_string(data_start + 1),
                              "expected the file to end where the last tensor ends (byte buffer of 1 byte), found 2 trailing bytes")});
  CHECK(verdict(f) == "MetadataIncompleteBuffer");
}

TEST_CASE("ST-BUFFER-TRAILING (F13): zero tensors need an empty byte buffer", "[ST-BUFFER-TRAILING]") {
  const auto f = gen::file_with_header(pad8("{}"), 1);
  CHECK(findings_of(f) == std::vector<std::string>{line(
                              "ST-BUFFER-TRAILING", "byte 16",
                              "expected no bytes after the header of a file without tensors, found 1 trailing byte")});
}

TEST_CASE("ST-BUFFER-TRUNCATED (F13): the file ends before the last tensor", "[ST-BUFFER-TRUNCATED]") {
  const auto f = file_of({entry("a", "U8", "4", 0, 4)}, 1);
  CHECK(findings_of(f) == std::vector<std::string>{line(
                              "ST-BUFFER-TRUNCATED", "byte " + std::to_string(f.size()),
                              "expected a byte buffer of 4 bytes (the last tensor's end), found 1 byte: the file is 3 bytes short")});
  CHECK(verdict(f) == "MetadataIncompleteBuffer");
}

TEST_CASE("F9 (§2.1, X15): fold order table, every row, several dtypes", "[ST-SHAPE-OVERFLOW]") {
  const std::string dtype = GENERATE(std::string("U64"), std::string("U8"), std::string("BOOL"), std::string("F4"),
                                     std::string("F6_E3M2"));
  INFO(dtype);
  CHECK(findings_of(file_of({entry("a", dtype, "0,18446744073709551615", 0, 0)}, 0)).empty());
  CHECK(findings_of(file_of({entry("a", dtype, "18446744073709551615,0", 0, 0)}, 0)).empty());
  CHECK(findings_of(file_of({entry("a", dtype, "4294967296,4294967296,0", 0, 0)}, 0)) ==
        std::vector<std::string>{line("ST-SHAPE-OVERFLOW", "tensor 'a'",
                                      "expected the element count of shape [4294967296, 4294967296, 0] to fit in 64 "
                                      "bits (folded left to right), found it overflows at shape[1]")});
  CHECK(findings_of(file_of({entry("a", dtype, "2,18446744073709551614", 0, 0)}, 0)) ==
        std::vector<std::string>{line("ST-SHAPE-OVERFLOW", "tensor 'a'",
                                      "expected the element count of shape [2, 18446744073709551614] to fit in 64 "
                                      "bits (folded left to right), found it overflows at shape[1]")});
}

TEST_CASE("F9/F10 (§2.1): the element count fits but times bits does not", "[ST-NBITS-OVERFLOW]") {
  CHECK(findings_of(file_of({entry("a", "I32", "2,9223372036854775807", 0, 0)}, 0)).size() == 1);
  // U8 with n = 2^61: 2^64 bits overflow; BOOL the same.
  CHECK(findings_of(file_of({entry("a", "BOOL", "2305843009213693952", 0, 0)}, 0)) ==
        std::vector<std::string>{line("ST-NBITS-OVERFLOW", "tensor 'a'",
                                      "expected 2305843009213693952 elements x 8 bits (BOOL) to fit in 64 bits, found it overflows")});
  CHECK(tensor_byte_size(std::vector<std::uint64_t>{2305843009213693951}, Dtype::U8) == 2305843009213693951u);
}

TEST_CASE("F11 (§4.1): sub-byte sizes, no rounding", "[ST-MISALIGNED-BITS]") {
  CHECK(findings_of(file_of({entry("a", "F4", "1,2", 0, 1)}, 1)).empty());
  CHECK(findings_of(file_of({entry("a", "F6_E2M3", "4", 0, 3)}, 3)).empty());
  CHECK(findings_of(file_of({entry("a", "F6_E3M2", "4", 0, 3)}, 3)).empty());
  CHECK(findings_of(file_of({entry("a", "F4", "", 0, 1)}, 1)) ==
        std::vector<std::string>{line("ST-MISALIGNED-BITS", "tensor 'a'",
                                      "expected a whole number of bytes, found 1 element x 4 bits (F4) = 4 bits")});
  const auto n = GENERATE(1, 2);
  const auto d = GENERATE(std::string("F6_E2M3"), std::string("F6_E3M2"));
  CHECK(findings_of(file_of({entry("a", d, std::to_string(n), 0, 1)}, 1)) ==
        std::vector<std::string>{line("ST-MISALIGNED-BITS", "tensor 'a'",
                                      "expected a whole number of bytes, found " + std::to_string(n) +
                                          (n == 1 ? " element" : " elements") + " x 6 bits (" + d + ") = " +
                                          std::to_string(6 * n) + " bits")});
}

TEST_CASE("F8-F12: per tensor, offset before overflow, alignment and size") {
  CHECK(findings_of(file_of({entry("a", "U8", "2", 1, 2)}, 2)) ==
        std::vector<std::string>{
            line("ST-OFFSET-GAP", "tensor 'a'", "expected data_offsets begin 0" + kBegin0 + "1: a gap of 1 byte"),
            line("ST-SIZE-MISMATCH", "tensor 'a'", "expected data_offsets to span 2 bytes (U8 [2]), found [1, 2] = 1 byte")});
  CHECK(findings_of(file_of({entry("a", "F4", "1", 1, 2)}, 2)) ==
        std::vector<std::string>{
            line("ST-OFFSET-GAP", "tensor 'a'", "expected data_offsets begin 0" + kBegin0 + "1: a gap of 1 byte"),
            line("ST-MISALIGNED-BITS", "tensor 'a'", "expected a whole number of bytes, found 1 element x 4 bits (F4) = 4 bits")});
  const auto with_overflow = findings_of(file_of({entry("a", "U64", "2,18446744073709551614", 1, 1)}, 1));
  REQUIRE(with_overflow.size() == 2);
  CHECK(with_overflow[0].starts_with("ST-OFFSET-GAP | tensor 'a'"));
  CHECK(with_overflow[1].starts_with("ST-SHAPE-OVERFLOW | tensor 'a'"));
}

TEST_CASE("F7-F13: each tensor fully in (begin, end) order, JSON order irrelevant, F13 last") {
  // JSON order a, b; offset order b (size mismatch), a (gap); then trailing bytes.
  const auto f = file_of({entry("a", "U8", "1", 2, 3), entry("b", "U8", "2", 0, 1)}, 5);
  const std::size_t data_start = f.size() - 5;
  CHECK(findings_of(f) ==
        std::vector<std::string>{
            line("ST-SIZE-MISMATCH", "tensor 'b'", "expected data_offsets to span 2 bytes (U8 [2]), found [0, 1] = 1 byte"),
            line("ST-OFFSET-GAP", "tensor 'a'", "expected data_offsets begin 1" + kBegin + "2: a gap of 1 byte"),
            line("ST-BUFFER-TRAILING", "byte " + std::to_string(data_start + 3),
                 "expected the file to end where the last tensor ends (byte buffer of 3 bytes), found 2 trailing bytes")});
  CHECK(verdict(f) == "TensorInvalidInfo");
}

TEST_CASE("F7 (X6): zero-sized tensors share offsets at the start, middle and end") {
  const auto f = file_of({entry("z3", "BOOL", "0", 2, 2), entry("a", "U8", "0", 0, 0), entry("b", "F32", "2,0", 0, 0),
                          entry("c", "U8", "1", 0, 1), entry("d", "I64", "0,5", 1, 1), entry("e", "U8", "1", 1, 2),
                          entry("z1", "U8", "0", 2, 2)},
                         2);
  CHECK(findings_of(f).empty());
  CHECK(verdict(f).empty());
}

TEST_CASE("F8 (X6): a zero-sized tensor must sit at the cursor and span nothing", "[ST-OFFSET-GAP][ST-SIZE-MISMATCH]") {
  CHECK(findings_of(file_of({entry("a", "U8", "0", 0, 1)}, 1)) ==
        std::vector<std::string>{line("ST-SIZE-MISMATCH", "tensor 'a'",
                                      "expected data_offsets to span 0 bytes (U8 [0]), found [0, 1] = 1 byte")});
  CHECK(findings_of(file_of({entry("a", "U8", "0", 1, 1)}, 1)).front() ==
        line("ST-OFFSET-GAP", "tensor 'a'", "expected data_offsets begin 0" + kBegin0 + "1: a gap of 1 byte"));
}

TEST_CASE("F9 (X23): scalars hold one element, rank 1000 is accepted") {
  CHECK(findings_of(file_of({entry("s", "I32", "", 0, 4)}, 4)).empty());
  std::string ones, twos;
  for (int i = 0; i < 1000; ++i) {
    ones += i ? ",1" : "1";
    twos += i ? ",2" : "2";
  }
  const auto f = file_of({entry("r", "U8", ones, 0, 1)}, 1);
  CHECK(findings_of(f).empty());
  CHECK(require_model(f).header.tensors[0].shape.size() == 1000);
  const auto over = findings_of(file_of({entry("r", "U8", twos, 0, 1)}, 1));
  REQUIRE(over.size() == 1);
  CHECK(over[0].starts_with("ST-SHAPE-OVERFLOW | tensor 'r' | "));
  CHECK(over[0].ends_with("found it overflows at shape[63]"));
}

TEST_CASE("F8 (§2): offsets need not be aligned, an F64 at data offset 1 is accepted by the reference") {
  const auto f = file_of({entry("a", "U8", "1", 0, 1), entry("b", "F64", "1", 1, 9)}, 9);
  const Model m = require_model(f);
  CHECK(check_model(m, Profile::Safetensors).empty());
  CHECK(verdict(f).empty());
}

TEST_CASE("ST-OFFSET-OVERLAP (X4, X13): tied weights, the reported name is deterministic", "[ST-OFFSET-OVERLAP]") {
  // Upstream test_json_attack: 10 F32 [2,2] tensors all at [0,16].
  std::vector<std::string> entries;
  for (int i : {7, 3, 9, 0, 5, 1, 8, 2, 6, 4}) entries.push_back(entry("weight_" + std::to_string(i), "F32", "2,2", 0, 16));
  const auto f = file_of(entries, 16);
  const auto got = findings_of(f);
  REQUIRE(got.size() == 9);
  for (int i = 1; i <= 9; ++i)
    CHECK(got[static_cast<std::size_t>(i - 1)] ==
          line("ST-OFFSET-OVERLAP", "tensor 'weight_" + std::to_string(i) + "'",
               "expected data_offsets begin 16" + kBegin + "0: an overlap of 16 bytes"));
  CHECK(verdict(f) == "InvalidOffset");
}

TEST_CASE("F7 (X13): sorted_by_offsets is total, ties broken by name bytes") {
  std::vector<TensorEntry> ts(3);
  ts[0].name = "b"; ts[1].name = "a"; ts[2].name = "B";
  for (auto& t : ts) { t.begin = 0; t.end = 4; }
  ts.push_back(gen::tensor_entry("0", Dtype::U8, {}, 0, 1));
  const auto order = sorted_by_offsets(ts);
  REQUIRE(order.size() == 4);
  CHECK(order[0]->name == "0");
  CHECK(order[1]->name == "B");
  CHECK(order[2]->name == "a");
  CHECK(order[3]->name == "b");
}

TEST_CASE("F7-F13: the reference's findings do not depend on the header's order of tensors") {
  // A header in offset order is walked as it is, any other through
  // sorted_by_offsets: every order of the same tensors (clean ones, a gap,
  // an overlap, two zero-sized ones tied at one offset, trailing bytes)
  // gives one answer, the one for the order by name, which is offset order.
  std::vector<TensorEntry> ts = {gen::tensor_entry("a", Dtype::U8, {2}, 0, 2),
                                 gen::tensor_entry("b", Dtype::U8, {1}, 2, 3),
                                 gen::tensor_entry("c", Dtype::U8, {2}, 4, 6),
                                 gen::tensor_entry("d", Dtype::U8, {3}, 5, 8),
                                 gen::tensor_entry("e", Dtype::U8, {0}, 8, 8),
                                 gen::tensor_entry("f", Dtype::U8, {0}, 8, 8)};
  std::sort(ts.begin(), ts.end(), [](const TensorEntry& x, const TensorEntry& y) { return x.name < y.name; });
  const auto findings_in = [](const std::vector<TensorEntry>& order) {
    Model m;
    m.header.tensors = order;
    m.header_length = 8;
    m.file_size = 8 + 8 + 9;
    return reference_findings(m);
  };
  const Findings sorted = findings_in(ts);
  REQUIRE(sorted.size() == 3);  // the gap before c, the overlap of d, trailing bytes
  std::size_t orders = 0;
  do {
    CHECK(findings_in(ts) == sorted);
    ++orders;
  } while (std::next_permutation(ts.begin(), ts.end(), [](const TensorEntry& x, const TensorEntry& y) { return x.name < y.name; }));
  CHECK(orders == 720);
}

namespace {
// Contiguous U8 tensors of at most 2^60 bytes each (2^63 bits, so F10 holds)
// ending at `end`.
std::vector<TensorEntry> u8_run(std::uint64_t end) {
  std::vector<TensorEntry> out;
  std::uint64_t at = 0;
  while (at < end) {
    const std::uint64_t len = std::min<std::uint64_t>(end - at, 1ull << 60);
    out.push_back(gen::tensor_entry("t" + std::to_string(out.size() + 10), Dtype::U8, {len}, at, at + len));
    at += len;
  }
  return out;
}
}  // namespace

TEST_CASE("ST-BUFFER-TRUNCATED (F13, §2.2, X14): subtraction form near 2^64-1", "[ST-BUFFER-TRUNCATED]") {
  // len = 2^64-1, N = 2: the byte buffer holds 2^64-11 bytes.
  Model m;
  m.file_size = UINT64_MAX;
  m.header_length = 2;
  m.header.tensors = u8_run(UINT64_MAX - 10);
  REQUIRE(m.header.tensors.size() == 16);
  CHECK(check_model(m, Profile::Safetensors).empty());

  // buffer_end = 2^64-1: buffer_end + 8 + N would wrap to 9.
  m.header.tensors = u8_run(UINT64_MAX);
  CHECK(lines(check_model(m, Profile::Safetensors)) ==
        std::vector<std::string>{line("ST-BUFFER-TRUNCATED", "byte 18446744073709551615",
                                      "expected a byte buffer of 18446744073709551615 bytes (the last tensor's end), found "
                                      "18446744073709551605 bytes: the file is 10 bytes short")});

  Model small;
  small.file_size = 18;
  small.header_length = 2;
  small.header.tensors = u8_run(UINT64_MAX);
  CHECK(lines(check_model(small, Profile::Safetensors)) ==
        std::vector<std::string>{line("ST-BUFFER-TRUNCATED", "byte 18",
                                      "expected a byte buffer of 18446744073709551615 bytes (the last tensor's end), found "
                                      "8 bytes: the file is 18446744073709551607 bytes short")});
}

TEST_CASE("ST-BUFFER-TRUNCATED (F13): a parsed header whose tensors end at 2^64-1", "[ST-BUFFER-TRUNCATED]") {
  std::vector<std::string> entries;
  for (const TensorEntry& t : u8_run(UINT64_MAX))
    entries.push_back(entry(t.name, "U8", std::to_string(t.shape[0]), t.begin, t.end));
  const auto f = file_of(entries, 3);
  CHECK(findings_of(f) == std::vector<std::string>{line(
                              "ST-BUFFER-TRUNCATED", "byte " + std::to_string(f.size()),
                              "expected a byte buffer of 18446744073709551615 bytes (the last tensor's end), found 3 "
                              "bytes: the file is 18446744073709551612 bytes short")});
  // A single U8 tensor of 2^64-1 byte cannot exist: its bit count overflows (F10).
  const auto one = findings_of(file_of({entry("a", "U8", "18446744073709551615", 0, UINT64_MAX)}, 3));
  REQUIRE_FALSE(one.empty());
  CHECK(one[0] == line("ST-NBITS-OVERFLOW", "tensor 'a'",
                       "expected 18446744073709551615 elements x 8 bits (U8) to fit in 64 bits, found it overflows"));
}

TEST_CASE("F12 (§2): rule functions are pure and individually callable") {
  const TensorEntry ok = gen::tensor_entry("a", Dtype::F32, {2, 2}, 0, 16);
  CHECK_FALSE(rule_offset(ok, 0).has_value());
  CHECK_FALSE(rule_size(ok).has_value());
  const auto gap = rule_offset(ok, 0);
  CHECK_FALSE(gap);
  const auto overlap = rule_offset(gen::tensor_entry("a", Dtype::F32, {2, 2}, 0, 16), 4);
  REQUIRE(overlap);
  CHECK(overlap->rule == RuleId::OffsetOverlap);
  CHECK(overlap->severity == Severity::Error);
}

TEST_CASE("ST-OFFSET-GAP (F8): a rule lists its first 1000 findings, then counts the rest", "[ST-OFFSET-GAP]") {
  Model m;
  for (std::uint64_t i = 0; i < 1003; ++i)
    m.header.tensors.push_back(gen::tensor_entry("t" + std::to_string(1000 + i), Dtype::U8, {1}, 2 * i + 1, 2 * i + 2));
  m.header_length = 8;
  m.file_size = 8 + 8 + 2 * 1003;
  const Findings f = check_model(m, Profile::Safetensors);
  REQUIRE(f.size() == 1001);
  CHECK(f[0].rule == RuleId::OffsetGap);
  CHECK(f[999].where.text() == "tensor 't1999'");
  CHECK(f[1000].rule == RuleId::OffsetGap);
  CHECK(f[1000].where.text() == "header");
  CHECK(f[1000].message == "found 3 more findings of this rule beyond the 1000 listed");
}
