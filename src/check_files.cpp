#include "src/check_files.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "spec/limits.hpp"
#include "src/byte_file.hpp"
#include "src/check.hpp"

namespace safespec {

unsigned default_check_jobs() {
  // 0 when the count is unknown: then one thread, as before threads.
  return std::clamp(std::thread::hardware_concurrency(), 1u, kMaxCheckJobs);
}

void for_each_file(const std::vector<std::string>& paths, unsigned jobs, FastHeaderParser& parser,
                   const std::function<void(std::size_t, FastHeaderParser&)>& work) {
  const std::size_t n = paths.size();
  const bool remote = std::any_of(paths.begin(), paths.end(), [](const std::string& p) { return is_url(p); });
  const std::size_t threads = remote ? 1 : std::min<std::size_t>(std::clamp(jobs, 1u, kMaxCheckJobs), n);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) work(i, parser);
    return;
  }
  // Each thread takes the next path until none is left.
  std::atomic<std::size_t> next{0};
  std::mutex failed_mutex;
  std::exception_ptr failed;  // the first exception a thread met
  // `mine` null: a helper thread, which makes its own parser.
  const auto run = [&](FastHeaderParser* mine) {
    try {
      std::unique_ptr<FastHeaderParser> own = mine ? nullptr : std::make_unique<FastHeaderParser>();
      FastHeaderParser& p = mine ? *mine : *own;
      for (std::size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) work(i, p);
    } catch (...) {
      const std::lock_guard lock(failed_mutex);
      if (!failed) failed = std::current_exception();
      next.store(n);
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(run, nullptr);
    } catch (const std::system_error&) {
      break;  // no more threads to be had (a tight RLIMIT_AS): the ones started, and this one, do all the files
    }
  }
  run(&parser);
  for (std::thread& h : helpers) h.join();
  if (failed) std::rethrow_exception(failed);
}

std::vector<FileReport> check_files(const std::vector<std::string>& paths, Profile profile, unsigned jobs,
                                    FastHeaderParser& parser) {
  std::vector<FileReport> reports(paths.size());
  for_each_file(paths, jobs, parser, [&](std::size_t i, FastHeaderParser& p) {
    reports[i] = check_safetensors(paths[i], profile, p);
  });
  return reports;
}

}  // namespace safespec
