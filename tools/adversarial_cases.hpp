// The adversarial corpus: hostile files, each with the
// finding or I/O error `safespec check` must give, in bounded time and memory.
// One table serves both tools: make_adversarial writes the small cases into
// corpus/adversarial/ with MANIFEST.tsv, and writes the cases too large to
// commit (or too many: every truncation) into the build tree at test time;
// replay_adversarial reads the manifest and checks every case.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace safespec::tools {

// Where a case's path comes from.
enum class Origin {
  Committed,   // corpus/adversarial/NAME, written by make_adversarial DIR
  Generated,   // BUILD/NAME, written at test time (too large to commit)
  Truncation,  // BUILD/NAME, written at test time, replayed in-process (thousands of them)
  Special,     // a directory, a FIFO (made at test time) or /dev/zero
  Shrinks,     // a file truncated between open and read (ByteFile's test seam), in-process
};

std::string_view origin_name(Origin o);

// What `safespec check PATH` (strict profile, text) must say. status 0: no
// error finding; 1: the first error finding is exactly `rule at where`, its
// message contains `message`; 2: the file cannot be read, the I/O error
// contains `message`. errors: how many error lines the report has.
struct Expect {
  int status = 0;
  std::string rule;     // "-" when status != 1
  std::string where;    // "-" when status != 1
  std::string message;  // a stable part of the message ("-": none)
  std::uint64_t errors = 0;
};

struct AdversarialCase {
  std::string name;  // file name, or the special path's name
  Origin origin;
  std::string what;  // one line for the manifest and docs/hardening.md
  Expect expect;
  // Writes the case at `path` (unused for Special and Shrinks). Returns false
  // and prints why on failure.
  std::function<bool(const std::string& path)> write;
};

std::vector<AdversarialCase> adversarial_cases();

// The parts of the table (adversarial_*.cpp).
void add_small_cases(std::vector<AdversarialCase>& out);
void add_utf8_cases(std::vector<AdversarialCase>& out);
void add_large_cases(std::vector<AdversarialCase>& out);
void add_truncation_cases(std::vector<AdversarialCase>& out);

// Writes `bytes` to `path` (mode 0644).
bool write_bytes(const std::string& path, const std::string& bytes);
// The 8-byte little-endian length, the header, then `data` (written) and
// `sparse` more zero bytes (a hole: ftruncate), so a file of several TB costs
// what its header costs on disk.
bool write_safetensors(const std::string& path, const std::string& header, const std::string& data = "",
                       std::uint64_t sparse = 0);
std::string le64(std::uint64_t n);

// One manifest line (tab-separated, no tab in any field) and its parse.
std::string manifest_line(const AdversarialCase& c);
inline constexpr const char* kManifestHeader = "# name\torigin\tstatus\trule\twhere\tmessage\terrors\twhat";

}  // namespace safespec::tools
