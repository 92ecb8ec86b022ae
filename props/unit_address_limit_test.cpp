// Running out of address space (RLIMIT_AS, the memory bound of docs/hardening.md): the
// pool starts no helper thread that the limit has no room for
// (threads_within_address_space, src/io/parallel.hpp), and `safespec` ends an
// allocation that fails anyway as an error (exit 2, one line), never an abort.
// The limit is set in a child process only: this test binary keeps its own.
// Sanitized builds skip the children (ASan's shadow needs terabytes of
// address space).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "props/catch.hpp"
#include "props/unit_support.hpp"
#include "src/io/parallel.hpp"
#include "src/io/writer.hpp"

using namespace safespec;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// The number of distinct workers parallel_for(64, 2) used, in a child under
// RLIMIT_AS = what it has mapped + `room` (its exit status; 100 if the limit
// could not be measured or set).
int workers_in_child(std::uint64_t room) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const auto mapped = mapped_address_space();
    if (!mapped) ::_exit(100);
    const std::uint64_t limit = *mapped + room;
    const rlimit as{limit, limit};
    if (::setrlimit(RLIMIT_AS, &as) != 0) ::_exit(100);
    // Item 0 waits (up to a second) for another worker, which a started
    // helper always is: the caller would otherwise take every item first.
    std::atomic<unsigned> seen{0};
    parallel_for(64, 2, [&](std::size_t i, unsigned worker) {
      seen.fetch_or(1u << worker);
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
      while (i == 0 && std::popcount(seen.load()) < 2 && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
    });
    ::_exit(static_cast<int>(std::popcount(seen.load())));
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("threads_within_address_space: a helper starts only with room for it and the caller's reserve", "[jobs]") {
  constexpr std::uint64_t per = 136 * kMiB;
  constexpr std::uint64_t mapped = 100 * kMiB;
  constexpr std::uint64_t base = mapped + kCallerAddressReserve;  // the limit that leaves the caller alone
  CHECK(threads_within_address_space(4, std::nullopt, mapped, per) == 4);  // no limit
  CHECK(threads_within_address_space(0, std::nullopt, mapped, per) == 1);
  CHECK(threads_within_address_space(4, mapped - 1, mapped, per) == 1);  // already past it
  CHECK(threads_within_address_space(4, base, mapped, per) == 1);
  CHECK(threads_within_address_space(4, base + per - 1, mapped, per) == 1);
  CHECK(threads_within_address_space(4, base + per, mapped, per) == 2);
  CHECK(threads_within_address_space(4, base + 3 * per, mapped, per) == 4);
  CHECK(threads_within_address_space(4, base + 30 * per, mapped, per) == 4);  // never more than asked
  CHECK(threads_within_address_space(1, base + 30 * per, mapped, per) == 1);
  CHECK(threads_within_address_space(4, UINT64_MAX, UINT64_MAX, per) == 1);
  // The adversarial index of 100,000 missing shards: about 110 MB mapped when
  // its shards are read, under its 208 MiB limit: no helper.
  CHECK(threads_within_address_space(2, 208 * kMiB, 110 * kMiB, helper_address_space()) == 1);
}

TEST_CASE("helper_address_space: glibc's arena peak (twice its 64 MiB heap) and a thread's stack", "[jobs]") {
  CHECK(helper_address_space() > 128 * kMiB);
  CHECK(helper_address_space() < 128 * kMiB + 1024 * kMiB);
}

TEST_CASE("parallel_for under RLIMIT_AS: one worker without room for a helper, two with it", "[jobs]") {
  if (kSanitized) {
    WARN("not run: ASan's shadow needs more address space than any RLIMIT_AS here");
    return;
  }
  CHECK(workers_in_child(kCallerAddressReserve + helper_address_space() / 2) == 1);
  CHECK(workers_in_child(kCallerAddressReserve + 2 * helper_address_space()) == 2);
}

TEST_CASE("safespec under a tight RLIMIT_AS: out of memory is exit 2 with one line, not an abort", "[jobs][cli]") {
  if (kSanitized) {
    WARN("not run: ASan's shadow needs more address space than any RLIMIT_AS here");
    return;
  }
  // An index naming 100,000 shards, none present (the adversarial corpus's
  // case): it needs about 150 MiB, and gets 80.
  const test::TempDir dir("address_limit");
  const std::string index = (dir.dir / "model.safetensors.index.json").string();
  {
    std::ofstream out(index, std::ios::binary);
    out << "{\"weight_map\":{";
    for (int i = 0; i < 100'000; ++i)
      out << (i ? "," : "") << "\"w" << i << "\":\"model-" << i << "-of-100000.safetensors\"";
    out << "}}";
  }
  const std::string cmd = "ulimit -v 81920 && exec '" + test::cli_path() + "' check '" + index + "' 2>&1 >/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string err;
  char buf[512];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) err.append(buf, n);
  const int status = ::pclose(p);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  CHECK(err ==
        "safespec: out of memory: an allocation failed (std::bad_alloc) under this process's memory or "
        "address-space limit; nothing was decided\n");
}

// The collision walk of a directory sizes its table from the first file
// with tensors as if every file held as many (src/commands/check.cpp), capped at
// kWalkExpectedNames: a first file of 50,000 tensors beside 400 files of one
// would otherwise reserve a table for 20 million names (512 MiB), here
// under a 320 MiB limit. The whole directory needs far less.
TEST_CASE("ST-INDEX-TENSOR-IN-TWO-SHARDS: a directory's collision walk does not size itself past its names", "[ST-INDEX-TENSOR-IN-TWO-SHARDS][jobs][cli]") {
  if (kSanitized) {
    WARN("not run: ASan's shadow needs more address space than any RLIMIT_AS here");
    return;
  }
  const test::TempDir dir("address_limit");
  const auto write = [&](const std::string& name, std::size_t tensors) {
    static const std::vector<std::uint8_t> one{1};
    std::vector<TensorView> views;
    for (std::size_t t = 0; t < tensors; ++t) views.push_back(TensorView{name + "." + std::to_string(t), Dtype::U8, {1}, one});
    const auto bytes = serialize(views, std::nullopt);
    REQUIRE(bytes.ok());
    std::ofstream((dir.dir / (name + ".safetensors")).string(), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.value().data()), static_cast<std::streamsize>(bytes.value().size()));
  };
  write("a000", 50'000);
  for (int i = 1; i <= 400; ++i) write("b" + std::to_string(1000 + i), 1);
  const std::string cmd = "ulimit -v 327680 && '" + test::cli_path() + "' check --jobs 2 '" + dir.dir.string() +
                          "' >/dev/null 2>&1; echo $?";
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[64];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  ::pclose(p);
  CHECK(out == "0\n");
}
