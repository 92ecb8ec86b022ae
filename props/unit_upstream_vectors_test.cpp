// §9: the upstream reference vectors (Rust tensor.rs tests and the Python
// pread-backend tests), each checked end to end through check_safetensors,
// asserting the reference reader's verdict (its error variant or "loads").
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "gen/file_bytes.hpp"
#include "props/catch.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/commands/check.hpp"

using namespace safespec;
namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<std::uint8_t>;

const std::string kVectorsTest = R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}})";

// Writes the bytes to a scratch file and checks it with the reference profile.
FileReport check_bytes(const Bytes& bytes, Profile p = Profile::Safetensors) {
  static int counter = 0;
  const fs::path path = fs::temp_directory_path() / ("safespec_unit_vec_" + std::to_string(::getpid()) + "_" +
                                                     std::to_string(++counter) + ".safetensors");
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  HeaderParser parser;
  FileReport r = check_safetensors(path.string(), p, parser);
  fs::remove(path);
  CHECK_FALSE(r.io_error.has_value());
  return r;
}

std::string first_rule(const FileReport& r) {
  return r.findings.empty() ? std::string("none") : std::string(rule_name(r.findings[0].rule));
}

void require_verdict(const Bytes& bytes, std::string_view verdict, std::string_view rule) {
  const FileReport r = check_bytes(bytes);
  INFO(first_rule(r));
  CHECK(r.reference_verdict() == verdict);
  CHECK(first_rule(r) == rule);
  CHECK(r.ok() == verdict.empty());
  if (!r.findings.empty()) CHECK(rule_info(r.findings[0].rule).reference == verdict);
}

Bytes valid_test_file() { return gen::file_with_header(kVectorsTest, 16); }

}  // namespace

TEST_CASE("F1-F13 (§9): test_deserialization, N = 60 (3C 00 ..), loads") {
  const Bytes f = valid_test_file();
  REQUIRE(f.size() == 84);
  CHECK(Bytes(f.begin(), f.begin() + 8) == Bytes{0x3C, 0, 0, 0, 0, 0, 0, 0});
  require_verdict(f, "", "none");
  const FileReport r = check_bytes(f);
  REQUIRE(r.model.has_value());
  REQUIRE(r.model->header.tensors.size() == 1);
  CHECK(r.model->header.tensors[0].dtype == Dtype::I32);
}

TEST_CASE("F9 (§9): test_empty_shapes_allowed, N = 56, I32 scalar") {
  const std::string h = R"({"test":{"dtype":"I32","shape":[],"data_offsets":[0,4]}})";
  REQUIRE(h.size() == 56);
  require_verdict(gen::file_with_header(h, 4), "", "none");
}

TEST_CASE("X6 (§9): test_zero_sized_tensor, N = 60, shape [2,0]") {
  // Upstream writes "[0, 0]" with a space, which makes N = 60.
  const std::string h = R"({"test":{"dtype":"I32","shape":[2,0],"data_offsets":[0, 0]}})";
  REQUIRE(h.size() == 60);
  require_verdict(gen::file_with_header(h), "", "none");
}

TEST_CASE("F6.1 (§9): test_whitespace_padded_header and _leading_padded_header, N = 6") {
  require_verdict(gen::file_with_header("{}\r \t\n"), "", "none");
  require_verdict(gen::file_with_header("\t\n{}\r "), "", "none");
  // The strict profile warns about the leading whitespace (X1) but passes the file.
  const FileReport strict = check_bytes(gen::file_with_header("\t\n{}\r "), Profile::Strict);
  CHECK(strict.ok());
  CHECK(strict.reference_verdict().empty());
}

TEST_CASE("ST-BUFFER-TRAILING/-TRUNCATED (F13, §9): test_metadata_incomplete_buffer, both halves",
          "[ST-BUFFER-TRAILING][ST-BUFFER-TRUNCATED]") {
  Bytes extra = valid_test_file();
  const std::string bogus = "extra_bogus_data_for_polyglot_file";
  extra.insert(extra.end(), bogus.begin(), bogus.end());
  require_verdict(extra, "MetadataIncompleteBuffer", "ST-BUFFER-TRAILING");
  Bytes shorter = valid_test_file();
  shorter.resize(shorter.size() - 2);
  require_verdict(shorter, "MetadataIncompleteBuffer", "ST-BUFFER-TRUNCATED");
}

TEST_CASE("ST-HEADER-TOO-LARGE (F3, §9): test_header_too_large, 3C 00 00 00 00 FF FF FF", "[ST-HEADER-TOO-LARGE]") {
  Bytes f = valid_test_file();
  for (std::size_t i = 5; i < 8; ++i) f[i] = 0xFF;
  require_verdict(f, "HeaderTooLarge", "ST-HEADER-TOO-LARGE");
  const FileReport r = check_bytes(f);
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].message == "expected a header length of at most 100000000 bytes, found 18446742974197923900");
}

TEST_CASE("ST-FILE-TOO-SMALL (F1, §9): test_header_too_small, empty input", "[ST-FILE-TOO-SMALL]") {
  require_verdict({}, "HeaderTooSmall", "ST-FILE-TOO-SMALL");
}

TEST_CASE("ST-HEADER-LENGTH (F4, §9): test_invalid_header_length, only the 8 length bytes", "[ST-HEADER-LENGTH]") {
  require_verdict(Bytes{0x3C, 0, 0, 0, 0, 0, 0, 0}, "InvalidHeaderLength", "ST-HEADER-LENGTH");
}

TEST_CASE("ST-HEADER-UTF8 (F5, §9): test_invalid_header_non_utf8, N = 1, FF", "[ST-HEADER-UTF8]") {
  require_verdict(gen::file_with_header("\xFF"), "InvalidHeader", "ST-HEADER-UTF8");
}

TEST_CASE("ST-JSON-SYNTAX (F6, §9): test_invalid_header_not_json, N = 1, {", "[ST-JSON-SYNTAX]") {
  require_verdict(gen::file_with_header("{"), "InvalidHeaderDeserialization", "ST-JSON-SYNTAX");
}

TEST_CASE("ST-SIZE-MISMATCH (F12, §9): test_invalid_info, I32 [2,2] at [0,4], no data", "[ST-SIZE-MISMATCH]") {
  const Bytes f = gen::file_with_header(R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,4]}})");
  require_verdict(f, "TensorInvalidInfo", "ST-SIZE-MISMATCH");
  const FileReport r = check_bytes(f);
  REQUIRE(r.findings.size() == 2);  // then F13: 4 bytes named, none present
  CHECK(r.findings[1].rule == RuleId::BufferTruncated);
}

TEST_CASE("ST-SHAPE-OVERFLOW / ST-NBITS-OVERFLOW (F9, F10, §9): test_validation_overflow, both",
          "[ST-SHAPE-OVERFLOW][ST-NBITS-OVERFLOW]") {
  require_verdict(gen::file_with_header(R"({"test":{"dtype":"I32","shape":[2,18446744073709551614],"data_offsets":[0,16]}})", 16),
                  "ValidationOverflow", "ST-SHAPE-OVERFLOW");
  require_verdict(gen::file_with_header(R"({"test":{"dtype":"I32","shape":[2,9223372036854775807],"data_offsets":[0,16]}})", 16),
                  "ValidationOverflow", "ST-NBITS-OVERFLOW");
}

TEST_CASE("ST-OFFSET-OVERLAP (F8, X13, §9): test_json_attack, 10 F32 [2,2] all at [0,16]", "[ST-OFFSET-OVERLAP]") {
  std::string h = "{";
  for (int i = 0; i < 10; ++i)
    h += (i ? "," : "") + std::string("\"weight_") + std::to_string(i) +
         R"(":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]})";
  h += "}";
  const Bytes f = gen::file_with_header(h, 16);
  require_verdict(f, "InvalidOffset", "ST-OFFSET-OVERLAP");
  const FileReport r = check_bytes(f);
  REQUIRE_FALSE(r.findings.empty());
  CHECK(r.findings[0].where.text() == "tensor 'weight_1'");  // X13: deterministic tie name
}

TEST_CASE("ST-HEADER-LENGTH (F4, §9): pread test_truncated_header_is_rejected", "[ST-HEADER-LENGTH]") {
  Bytes f = valid_test_file();
  f.resize(8 + kVectorsTest.size() / 2);
  require_verdict(f, "InvalidHeaderLength", "ST-HEADER-LENGTH");
}

TEST_CASE("ST-BUFFER-TRUNCATED (F13, §9): pread test_data_offset_overflow_is_rejected", "[ST-BUFFER-TRUNCATED]") {
  const Bytes f = gen::file_with_header(R"({"liar":{"dtype":"F32","shape":[1024,1024],"data_offsets":[0,4194304]}})", 1);
  require_verdict(f, "MetadataIncompleteBuffer", "ST-BUFFER-TRUNCATED");
  const FileReport r = check_bytes(f);
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].message ==
        "expected a byte buffer of 4194304 bytes (the last tensor's end), found 1 byte: the file is 4194303 bytes short");
}

TEST_CASE("F6.7 (§9): test_simple.py test_deserialization_metadata, N = 102 with 7 padding spaces") {
  const std::string h =
      R"({"__metadata__":{"framework":"pt"},"test1":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}})";
  const std::string padded = h + std::string(102 - h.size(), ' ');
  REQUIRE(padded.size() == 102);
  const FileReport r = check_bytes(gen::file_with_header(padded, 4));
  CHECK(r.reference_verdict().empty());
  REQUIRE(r.model.has_value());
  CHECK(r.model->header.metadata == std::vector<std::pair<std::string, std::string>>{{"framework", "pt"}});
}
