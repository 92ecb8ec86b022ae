#include "src/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace safespec {

void parallel_for(std::size_t n, unsigned threads, const std::function<void(std::size_t, unsigned)>& job) {
  const std::size_t workers = std::min<std::size_t>(std::max(threads, 1u), n);
  if (workers <= 1) {
    for (std::size_t i = 0; i < n; ++i) job(i, 0);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::mutex failed_mutex;
  std::exception_ptr failed;
  const auto work = [&](unsigned worker) {
    try {
      for (std::size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) job(i, worker);
    } catch (...) {
      const std::lock_guard lock(failed_mutex);
      if (!failed) failed = std::current_exception();
      next.store(n);  // the others stop after their current item
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(workers - 1);
  for (unsigned w = 1; w < workers; ++w) {
    try {
      helpers.emplace_back(work, w);
    } catch (const std::system_error&) {
      break;  // the threads started so far, and this one, take every item
    }
  }
  work(0);
  for (std::thread& h : helpers) h.join();
  if (failed) std::rethrow_exception(failed);
}

}  // namespace safespec
