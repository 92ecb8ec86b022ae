// The hand-made five-file suite the `conformance run` tests hold the test
// programs of props/impls/ to (unit_conformance_run_test.cpp,
// unit_conformance_select_test.cpp).
#pragma once

#include <unistd.h>

#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "conformance/manifest.hpp"
#include "props/unit_support.hpp"

namespace safespec::test {

namespace fs = std::filesystem;
using conformance::Expect;

inline constexpr Expect A = Expect::Accept, R = Expect::Reject;

inline conformance::Case entry(std::string file, std::string description, std::vector<std::string> rules,
                               std::array<Expect, 5> expect, std::string sglang_message) {
  conformance::Case c;
  c.file = std::move(file);
  c.description = std::move(description);
  c.rules = std::move(rules);
  c.expect = expect;  // safetensors, sglang, comfyui, kitchen, strict
  c.sglang_message = std::move(sglang_message);
  return c;
}

inline const std::string kGapMessage = "SafetensorError: Error while deserializing header: invalid offset for tensor `a`";

// Five files whose names carry what the test programs key on: _segv and
// _abort (crash_some), _slow (sleep_some), and the accept_/reject_/impldef_
// prefixes (by_name). The directory name has a space, so {file} must stay
// one word.
struct Suite {
  fs::path root, dir;
  Suite() {
    static int counter = 0;
    root = fs::temp_directory_path() /
           ("safespec_conformance_run_" + std::to_string(::getpid()) + "_" + std::to_string(++counter));
    fs::remove_all(root);
    dir = root / "suite dir";
    fs::create_directories(dir);
    const std::vector<conformance::Case> cases{
        entry("accept_segv_metadata.safetensors", "one tensor and string metadata", {}, {A, A, A, A, A}, ""),
        entry("accept_zero_tensors.safetensors", "no tensors at all", {}, {A, A, A, A, A}, ""),
        entry("impldef_leading_space.safetensors", "a space before the header's {", {"ST-HEADER-LEADING-SPACE"},
              {A, A, A, A, R}, ""),
        entry("reject_abort_gap.safetensors", "a gap of one byte before the first tensor", {"ST-OFFSET-GAP"},
              {R, R, R, R, R}, kGapMessage),
        entry("loader-reject_slow_no_convrot.safetensors", "a W4A8 layer\nwithout convrot", {"CQ-W4A8-CONVROT"},
              {A, R, A, A, R}, "ValueError: Serialized W4A8 layer 'lin' must set convrot=true"),
    };
    std::ofstream manifest(dir / "manifest.jsonl", std::ios::binary);
    for (const conformance::Case& c : cases) {
      manifest << conformance::render_case(c) << "\n";
      std::ofstream(dir / c.file, std::ios::binary) << "bytes the test programs never read";
    }
  }
  ~Suite() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  Run run(const std::string& args) const { return run_cli(root.string(), args); }
  // `conformance run` on this suite with one of the test programs.
  Run run_impl(const std::string& impl, const std::string& more) const {
    return run("conformance run --suite " + shell_word(dir.string()) + " --impl " + shell_word(shell_word(impls_dir() + "/" + impl) + " {file}") +
               " " + more);
  }
};

// Durations are the one thing that differs between runs: every
// "seconds":1.234 becomes "seconds":S. (No std::regex: GCC 12 warns inside
// it under -O1 with sanitizers.)
inline std::string without_seconds(std::string doc) {
  const std::string key = "\"seconds\":";
  for (std::size_t at = doc.find(key); at != std::string::npos; at = doc.find(key, at + 1)) {
    const std::size_t begin = at + key.size();
    std::size_t end = begin;
    while (end < doc.size() && (std::isdigit(static_cast<unsigned char>(doc[end])) || doc[end] == '.')) ++end;
    doc.replace(begin, end - begin, "S");
  }
  return doc;
}

}  // namespace safespec::test
