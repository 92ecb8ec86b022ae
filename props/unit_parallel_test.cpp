// parallel_for (src/io/parallel.hpp) on its own: every item once, each worker one
// thread, and a job's exception reaching the caller.
#include <algorithm>
#include <cstddef>
#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "props/catch.hpp"
#include "src/io/parallel.hpp"

using namespace safespec;

// parallel_for (src/io/parallel.hpp), the one pool behind --jobs, --data's
// layers and the numerics' row ranges.
TEST_CASE("parallel_for: every item runs once, on workers below the count, each worker one thread", "[jobs]") {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{5000}}) {
    for (const unsigned threads : {0u, 1u, 2u, 3u, 16u}) {
      CAPTURE(n, threads);
      std::vector<std::atomic<int>> runs(n);
      std::vector<unsigned> worker_of(n, ~0u);
      std::mutex m;
      std::vector<std::set<std::thread::id>> thread_of(std::max(threads, 1u));
      parallel_for(n, threads, [&](std::size_t i, unsigned worker) {
        ++runs[i];
        worker_of[i] = worker;
        const std::lock_guard lock(m);
        if (worker < thread_of.size()) thread_of[worker].insert(std::this_thread::get_id());
      });
      for (std::size_t i = 0; i < n; ++i) {
        REQUIRE(runs[i] == 1);
        REQUIRE(worker_of[i] < std::max(threads, 1u));
      }
      for (const auto& ids : thread_of) CHECK(ids.size() <= 1);
      // The calling thread is worker 0; one thread runs the items in order.
      if (!thread_of[0].empty()) CHECK(*thread_of[0].begin() == std::this_thread::get_id());
      if (threads <= 1)
        for (std::size_t i = 0; i < n; ++i) CHECK(worker_of[i] == 0);
    }
  }
}

TEST_CASE("parallel_for: a job's exception stops the workers and reaches the caller", "[jobs]") {
  constexpr std::size_t n = 10'000'000;
  std::atomic<std::size_t> ran{0};
  std::atomic<bool> thrown{false};
  const auto call = [&] {
    parallel_for(n, 2, [&](std::size_t, unsigned) {
      ++ran;
      if (!thrown.exchange(true)) throw std::runtime_error("the first item fails");
    });
  };
  CHECK_THROWS_WITH(call(), "the first item fails");
  CHECK(ran < n);  // the others stopped after their current item
}
