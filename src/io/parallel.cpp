#include "src/io/parallel.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace safespec {

std::optional<std::uint64_t> mapped_address_space() {
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char text[128];
  const ssize_t got = ::read(fd, text, sizeof text);
  ::close(fd);
  if (got <= 0) return std::nullopt;
  std::uint64_t pages = 0;
  if (std::from_chars(text, text + got, pages).ec != std::errc()) return std::nullopt;
  const long page = ::sysconf(_SC_PAGESIZE);
  if (page <= 0) return std::nullopt;
  return pages * static_cast<std::uint64_t>(page);
}

namespace {

// The helpers that may start now under this process's RLIMIT_AS.
unsigned threads_allowed_now(unsigned threads) {
  rlimit as{};
  if (threads <= 1 || ::getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY) return threads;
  const auto mapped = mapped_address_space();
  if (!mapped) return 1;  // a limit we cannot measure against: no helper
  return threads_within_address_space(threads, as.rlim_cur, *mapped, helper_address_space());
}

}  // namespace

std::uint64_t helper_address_space() {
  constexpr std::uint64_t kArenaPeak = std::uint64_t{128} << 20;  // glibc's HEAP_MAX_SIZE, mapped twice over
  std::size_t stack = 0;
  pthread_attr_t attr;
  if (::pthread_getattr_default_np(&attr) == 0) {
    if (::pthread_attr_getstacksize(&attr, &stack) != 0) stack = 0;
    ::pthread_attr_destroy(&attr);
  }
  if (stack == 0) stack = std::size_t{8} << 20;  // glibc's usual default
  return kArenaPeak + stack;
}

unsigned threads_within_address_space(unsigned threads, std::optional<std::uint64_t> limit, std::uint64_t mapped,
                                      std::uint64_t per_helper) {
  threads = std::max(threads, 1u);
  if (!limit || per_helper == 0) return threads;
  const std::uint64_t left = *limit > mapped ? *limit - mapped : 0;
  if (left <= kCallerAddressReserve) return 1;
  const std::uint64_t helpers = (left - kCallerAddressReserve) / per_helper;
  return static_cast<unsigned>(std::min<std::uint64_t>(threads, 1 + helpers));
}

void parallel_for(std::size_t n, unsigned threads, const std::function<void(std::size_t, unsigned)>& job) {
  const auto wanted = static_cast<unsigned>(std::min<std::size_t>(std::max(threads, 1u), n));
  const std::size_t workers = n == 0 ? 0 : threads_allowed_now(wanted);
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
