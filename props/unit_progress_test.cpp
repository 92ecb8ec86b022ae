// The progress line (src/io/progress.hpp): its text, and that it never reaches
// a stream that is not a terminal (a pipe, a file, a JSON document).
#include <pty.h>
#include <unistd.h>

#include <atomic>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "src/io/progress.hpp"

using namespace safespec;

TEST_CASE("progress: the line says the work, the step and how many", "[progress]") {
  CHECK(Progress::line("safespec vectors", 0, 2, "computing the eager output") ==
        "safespec vectors: computing the eager output (1 of 2)");
}

TEST_CASE("progress: nothing is drawn on a stream that is not a terminal", "[progress]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  {
    Progress p("work", 2, f);
    p.step(0, "one");
    std::this_thread::sleep_for(std::chrono::milliseconds(1300));  // past the quiet second
    p.step(1, "two");
  }
  CHECK(std::ftell(f) == 0);
  std::fclose(f);
  // Nor through the command, whose standard error is a file here.
  const test::TempDir t("progress-cli");
  const test::Run r = test::run_cli(t.dir.string(), "vectors " + test::shell_word((t.dir / "v").string()) +
                                                        " --m 2 --n 8 --k 256");
  CHECK(r.code == 0);
  CHECK(r.err.empty());
}

TEST_CASE("progress: work that counts itself is redrawn from what it reports, then cleared", "[progress]") {
  int master = -1, slave = -1;
  REQUIRE(::openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
  std::FILE* out = ::fdopen(slave, "w");
  REQUIRE(out);
  std::atomic<int> read{0};
  {
    Progress p("safespec check --data", 0, out);
    p.follow([&read] { return std::to_string(read.load()) + " MB read"; });
    read = 7;
    std::this_thread::sleep_for(std::chrono::milliseconds(1400));  // past the quiet second, a redraw or more
  }
  std::fclose(out);
  std::string shown;
  char buf[512];
  for (ssize_t n; (n = ::read(master, buf, sizeof buf)) > 0;) shown.append(buf, static_cast<std::size_t>(n));
  ::close(master);
  const std::string line = "safespec check --data: 7 MB read";
  CHECK(shown.starts_with("\r" + line));
  // Cleared: spaces over the line, the cursor back at its start.
  CHECK(shown.ends_with("\r" + std::string(line.size(), ' ') + "\r"));
}
