// The conformance suite: every file of corpus/conformance/ and its
// manifest line, built from the writer, the generators and hand-written byte
// strings. Deterministic: the same bytes on every run and every compiler.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "conformance/manifest.hpp"
#include "spec/result.hpp"

namespace safespec::conformance {

struct SuiteFile {
  Case entry;                       // entry.file is the path under the suite directory
  std::vector<std::uint8_t> bytes;  // the file's contents
};

// Every file of the suite, in entry.file order (an index case may add its
// shards as further SuiteFiles whose entry has an empty description: they are
// written but get no manifest line).
std::vector<SuiteFile> build_suite();

// Writes build_suite() and manifest.jsonl into `dir` (created; files not in
// the suite are left alone). Returns the number of manifest lines.
Result<std::size_t, std::string> generate_suite(const std::filesystem::path& dir);

}  // namespace safespec::conformance
