#include "src/commands/check_files.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <thread>

#include "spec/limits.hpp"
#include "src/io/byte_file.hpp"
#include "src/commands/check.hpp"
#include "src/io/in_order.hpp"
#include "src/io/parallel.hpp"

namespace safespec {

CheckJobs default_check_jobs() {
  // 0 when the count is unknown: then one thread, as before threads.
  return CheckJobs(std::thread::hardware_concurrency());
}

namespace {

// Worker 0 is the calling thread, with `parser`; every other worker makes its
// own on its first item (a slot only that worker touches).
class WorkerParsers {
 public:
  WorkerParsers(unsigned threads, HeaderParser& parser) : parser_(parser), own_(threads) {}
  HeaderParser& of(unsigned worker) {
    if (worker == 0) return parser_;
    if (!own_[worker]) {
      own_[worker] = std::make_unique<HeaderParser>();
      own_[worker]->keep_name_hashes(parser_.keeps_name_hashes());
    }
    return *own_[worker];
  }

 private:
  HeaderParser& parser_;
  std::vector<std::unique_ptr<HeaderParser>> own_;
};

}  // namespace

void for_each_file(const std::vector<std::string>& paths, CheckJobs jobs, HeaderParser& parser,
                   const std::function<void(std::size_t, HeaderParser&)>& work) {
  const bool remote = std::any_of(paths.begin(), paths.end(), [](const std::string& p) { return is_url(p); });
  // A URL's threads wait on round trips, not on cores: kHttpParallelRequests
  // of them, each file its own connection.
  const unsigned threads = remote ? CheckJobs(kHttpParallelRequests).count() : jobs.count();
  WorkerParsers parsers(threads, parser);
  parallel_for(paths.size(), threads, [&](std::size_t i, unsigned worker) { work(i, parsers.of(worker)); });
}

void for_each_worker(CheckJobs jobs, HeaderParser& parser,
                     const std::function<void(std::size_t, HeaderParser&)>& work) {
  const unsigned threads = jobs.count();
  WorkerParsers parsers(threads, parser);
  parallel_for(threads, threads, [&](std::size_t item, unsigned worker) { work(item, parsers.of(worker)); });
}

std::vector<FileReport> check_files(const std::vector<std::string>& paths, Profile profile, CheckJobs jobs,
                                    HeaderParser& parser,
                                    const std::function<void(std::size_t, const FileReport&)>& ready) {
  std::vector<FileReport> reports(paths.size());
  // Files that may be one checkpoint keep the hashes their parse worked out,
  // for the collision check across them (src/parse/name_repeats.hpp).
  const NameHashesKept keep(parser, paths.size() > 1);
  std::optional<InOrder> order;
  if (ready) order.emplace(paths.size(), [&](std::size_t i) { ready(i, reports[i]); });
  for_each_file(paths, jobs, parser, [&](std::size_t i, HeaderParser& p) {
    reports[i] = check_safetensors(paths[i], profile, p);
    if (order) order->done(i);
  });
  return reports;
}

}  // namespace safespec
