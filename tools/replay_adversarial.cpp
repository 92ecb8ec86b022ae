// replay_adversarial SAFESPEC CORPUS GENERATED [--sanitized]: every case of
// CORPUS/MANIFEST.tsv through the real pipeline, requiring exactly its
// expected outcome (tools/adversarial_cases.hpp says what that means).
// Committed, generated and special cases run `SAFESPEC check PATH` as a child
// under RLIMIT_AS (the guaranteed bound, tools/memory_limit.hpp), RLIMIT_CPU
// and a wall-clock alarm, so a hang or a blow-up fails the case instead of the
// machine. Truncations and shrinking files run in-process through
// check_paths. --sanitized: no RLIMIT_AS (ASan reserves terabytes of address
// space for its shadow), and 60 s of CPU (180 s of wall clock) a case instead
// of 20 s (60 s).
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "src/io/byte_file.hpp"
#include "src/commands/check.hpp"
#include "src/report/report.hpp"
#include "tools/memory_limit.hpp"

using namespace safespec;

namespace {

struct Row {
  std::string name, origin, rule, where, message, what;
  int status = 0;
  std::uint64_t errors = 0;
};

std::vector<Row> read_manifest(const std::string& path) {
  std::vector<Row> rows;
  std::ifstream in(path, std::ios::binary);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string part; std::getline(ss, part, '\t');) f.push_back(part);
    if (f.size() != 8) {
      std::fprintf(stderr, "replay_adversarial: bad manifest line: %s\n", line.c_str());
      std::exit(2);
    }
    rows.push_back(Row{f[0], f[1], f[3], f[4], f[5], f[7], std::stoi(f[2]), std::stoull(f[6])});
  }
  return rows;
}

// What a run said, in the terms of the manifest.
struct Seen {
  int status = -1;
  std::string first_error;  // "RULE at WHERE: MESSAGE ...", or the I/O error
  std::uint64_t errors = 0;
  std::string note;  // how the child ended, when not by exit
};

constexpr const char* kErrorPrefix = "  error   ";

Seen run_cli(const std::string& safespec, const std::string& path, const std::string& out_file, bool sanitized) {
  struct stat st {};
  const std::uint64_t size = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_size) : 0;
  // The bound is on the header length the prefix claims (at most the file
  // and F3's limit), not on the data section, which is never read.
  std::uint64_t header = 0;
  if (size >= 8) {  // a regular file: opening a FIFO here would block the replay itself
    std::ifstream in{path, std::ios::binary};
    unsigned char prefix[8] = {};
    in.read(reinterpret_cast<char*>(prefix), 8);
    for (int i = 7; i >= 0; --i) header = header << 8 | prefix[i];
  }
  header = std::min({header, size, std::uint64_t{100'000'000}});
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(out, 1);
    ::dup2(null, 2);
    // ASan + UBSan make the command several times slower: longer limits there.
    const rlim_t seconds = sanitized ? 60 : 20;
    const rlimit cpu{seconds, seconds};
    ::setrlimit(RLIMIT_CPU, &cpu);
    if (!sanitized) {
      const bool index = path.ends_with(".index.json");
      const std::uint64_t limit = index ? tools::index_address_space_limit(size) : tools::address_space_limit(header);
      const rlimit as{limit, limit};
      ::setrlimit(RLIMIT_AS, &as);
    }
    ::alarm(static_cast<unsigned>(3 * seconds));  // survives exec: a blocked child is killed by SIGALRM
    // --verbose: every listed finding on its own line, as the bounds are counted.
    ::execl(safespec.c_str(), safespec.c_str(), "check", "--verbose", path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  Seen seen;
  if (WIFSIGNALED(status)) {
    seen.note = "killed by signal " + std::to_string(WTERMSIG(status));
    return seen;
  }
  seen.status = WEXITSTATUS(status);
  std::ifstream in(out_file, std::ios::binary);
  const std::string cannot = ": cannot check: ";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(kErrorPrefix, 0) == 0) {
      if (seen.errors++ == 0) seen.first_error = line.substr(std::string_view(kErrorPrefix).size());
    } else if (seen.first_error.empty() && line.find(cannot) != std::string::npos) {
      seen.first_error = line.substr(line.find(cannot) + cannot.size());
    }
  }
  return seen;
}

Seen from_reports(const std::vector<FileReport>& reports) {
  Seen seen;
  seen.status = 0;
  for (const FileReport& r : reports) {
    if (r.io_error) {
      seen.status = 2;
      if (seen.first_error.empty()) seen.first_error = *r.io_error;
    }
    for (const Finding& f : r.findings) {
      if (f.severity != Severity::Error) continue;
      if (seen.status == 0) seen.status = 1;
      if (seen.errors++ == 0 && seen.first_error.empty())
        seen.first_error = std::string(rule_name(f.rule)) + " at " + f.where.text() + ": " + f.message;
    }
  }
  return seen;
}

Seen run_in_process(const std::string& path) {
  HeaderParser parser;
  return from_reports(check_paths({path}, CheckOptions{}, parser));
}

// The shrinking cases: ByteFile's open observer truncates the file on the
// open named by the case (1: the header read, 2: the marker read).
int shrink_on_open = 0, opens_seen = 0;
off_t shrink_to = 0;
void shrink(const std::string& path) {
  if (++opens_seen == shrink_on_open && ::truncate(path.c_str(), shrink_to) != 0) std::perror("truncate");
}

Seen run_shrinking(const Row& row, const std::string& base) {
  // A copy, so the generated file stays whole for the next run.
  const std::string path = base + ".shrinking";
  std::filesystem::copy_file(base, path, std::filesystem::copy_options::overwrite_existing);
  const bool in_header = row.name == "shrinks_in_header.safetensors";
  shrink_on_open = in_header ? 1 : 2;
  opens_seen = 0;
  shrink_to = 12;
  if (!in_header) {  // keep the prefix and header, drop the data
    unsigned char prefix[8] = {};
    std::ifstream(path, std::ios::binary).read(reinterpret_cast<char*>(prefix), 8);
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = n << 8 | prefix[i];
    shrink_to = static_cast<off_t>(8 + n);
  }
  set_open_observer(shrink);
  const Seen seen = run_in_process(path);
  set_open_observer(nullptr);
  return seen;
}

bool matches(const Row& row, const Seen& seen) {
  if (seen.status != row.status) return false;
  if (row.status == 0) return seen.errors == 0;
  if (row.status == 2) return seen.first_error.find(row.message) != std::string::npos;
  const std::string head = row.rule + " at " + row.where + ": ";
  return seen.errors == row.errors && seen.first_error.rfind(head, 0) == 0 &&
         seen.first_error.find(row.message, head.size()) != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: replay_adversarial SAFESPEC CORPUS GENERATED [--sanitized]\n");
    return 2;
  }
  const std::string safespec = argv[1], corpus = argv[2], generated = argv[3];
  const bool sanitized = argc > 4 && std::string(argv[4]) == "--sanitized";
  ::signal(SIGPIPE, SIG_IGN);
  int failures = 0, cases = 0;
  for (const Row& row : read_manifest(corpus + "/MANIFEST.tsv")) {
    ++cases;
    const std::string path = row.name[0] == '/' ? row.name
                             : row.origin == "committed" ? corpus + "/" + row.name
                                                         : generated + "/" + row.name;
    Seen seen;
    if (row.origin == "truncation") seen = run_in_process(path);
    else if (row.origin == "shrinks") seen = run_shrinking(row, path);
    else seen = run_cli(safespec, path, generated + "/replay_stdout.txt", sanitized);
    if (matches(row, seen)) continue;
    ++failures;
    std::printf("FAIL %s (%s)\n  expected: status %d, %s at %s: ...%s... (%llu error lines)\n  found:    status %d, %.300s (%llu error lines) %s\n",
                row.name.c_str(), row.what.c_str(), row.status, row.rule.c_str(), row.where.c_str(),
                row.message.c_str(), static_cast<unsigned long long>(row.errors), seen.status,
                seen.first_error.c_str(), static_cast<unsigned long long>(seen.errors), seen.note.c_str());
  }
  std::printf("replay_adversarial: %d cases, %d failed\n", cases, failures);
  return failures == 0 && cases > 0 ? 0 : 1;
}
