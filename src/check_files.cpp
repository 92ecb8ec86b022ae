#include "src/check_files.hpp"

#include <algorithm>
#include <memory>
#include <thread>

#include "spec/limits.hpp"
#include "src/byte_file.hpp"
#include "src/check.hpp"
#include "src/parallel.hpp"

namespace safespec {

unsigned default_check_jobs() {
  // 0 when the count is unknown: then one thread, as before threads.
  return std::clamp(std::thread::hardware_concurrency(), 1u, kMaxCheckJobs);
}

void for_each_file(const std::vector<std::string>& paths, unsigned jobs, FastHeaderParser& parser,
                   const std::function<void(std::size_t, FastHeaderParser&)>& work) {
  const bool remote = std::any_of(paths.begin(), paths.end(), [](const std::string& p) { return is_url(p); });
  const unsigned threads = remote ? 1u : std::clamp(jobs, 1u, kMaxCheckJobs);
  // Worker 0 is this thread, with `parser`; each other worker makes its own
  // on its first file (a slot only that worker touches).
  std::vector<std::unique_ptr<FastHeaderParser>> own(threads);
  parallel_for(paths.size(), threads, [&](std::size_t i, unsigned worker) {
    if (worker == 0) return work(i, parser);
    if (!own[worker]) {
      own[worker] = std::make_unique<FastHeaderParser>();
      own[worker]->keep_name_hashes(parser.keeps_name_hashes());
    }
    work(i, *own[worker]);
  });
}

std::vector<FileReport> check_files(const std::vector<std::string>& paths, Profile profile, unsigned jobs,
                                    FastHeaderParser& parser) {
  std::vector<FileReport> reports(paths.size());
  // Files that may be one checkpoint keep the hashes their parse worked out,
  // for the collision check across them (src/name_repeats.hpp).
  const NameHashesKept keep(parser, paths.size() > 1);
  for_each_file(paths, jobs, parser, [&](std::size_t i, FastHeaderParser& p) {
    reports[i] = check_safetensors(paths[i], profile, p);
  });
  return reports;
}

}  // namespace safespec
