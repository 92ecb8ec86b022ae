// Helpers shared by the unit tests (props/unit_*_test.cpp). Tests that build
// TensorEntry values use gen::tensor_entry (gen/layout.hpp) directly.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "spec/file_reader.hpp"

namespace safespec::test {

// A whole .safetensors file as the readers take it.
using Bytes = std::vector<std::uint8_t>;

// A parse result as one comparable line, "ok: N tensors" or
// "RULE | where | message", so a disagreement or failure prints readably.
std::string describe(const Result<Model>& r);

// Both readers, which must agree exactly (CHECKed); returns the reference's
// answer. Every parse-level unit test goes through this, so each hand-built
// file also pins the fast parser to the reference one.
Result<Model> parse_both(const Bytes& file);

// The file must be rejected (by both readers) with exactly this rule id,
// where and message.
void require_error(const Bytes& file, std::string_view rule, std::string_view where, std::string_view message);

// The file must parse (in both readers); returns the model.
Model require_model(const Bytes& file);

// The built `safespec` command run with `args` (shell words), stdin empty,
// stderr captured through a file in `scratch`: its exit status and output.
struct Run {
  int code = -1;
  std::string out, err;
};
std::string cli_path();

// The committed conformance suite (corpus/conformance/).
std::filesystem::path suite_dir();

// A fresh directory under the system's temporary directory, named after the
// test file, this process and a counter; removed with everything in it.
struct TempDir {
  std::filesystem::path dir;
  explicit TempDir(const std::string& tag);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

// corpus/vectors (from CMake, else relative to the source tree ctest runs in).
std::filesystem::path vectors_dir();
// The conformance runners' test implementations (props/impls/).
std::string impls_dir();
// One word for a POSIX shell (popen's, and the conformance --impl template),
// whatever the text holds.
std::string shell_word(const std::string& s);
// How many times `part` occurs in `text` (overlaps counted).
std::size_t occurrences(const std::string& text, const std::string& part);
Run run_cli(const std::string& scratch, const std::string& args);

// A TempDir with files written into it and the CLI run from it (the report
// tests, props/unit_reports_test.cpp).
struct CliScratch : TempDir {
  explicit CliScratch(const std::string& tag) : TempDir(tag) {}
  std::string file(const std::string& name, const Bytes& bytes) const;
  std::string text(const std::string& name, std::string_view t) const;
  Run run(const std::string& args) const { return run_cli(dir.string(), args); }
};

// Pads a header text with spaces to a multiple of 8 bytes, as the writer
// does (W5), so a hand-built file raises no ST-HEADER-UNALIGNED warning.
std::string pad8(std::string header);

}  // namespace safespec::test
