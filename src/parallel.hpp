// The one thread pool: `check` reading many files (--jobs), --data running
// layers' value rules, and the numerics' row ranges all split their work
// through parallel_for. Each caller bounds `threads` by its own memory limit
// (spec/limits.hpp: kMaxCheckJobs headers in flight, kDataThreadsMax data
// buffers); this is where threads are started, fail to start, and fail.
#pragma once

#include <cstddef>
#include <functional>

namespace safespec {

// job(i, worker) once for every i < n, on at most `threads` threads (0 or 1:
// the calling thread alone, in order). The calling thread is worker 0 and
// takes items too; worker ids are below `threads` and each is one thread for
// the whole call, so a job may keep per-worker state in a slot indexed by it.
// Items are handed out one at a time as workers finish, so the order in which
// they run is not fixed: a job must write only what belongs to its i.
// A thread the system refuses to start (a tight RLIMIT_AS or RLIMIT_NPROC)
// only means fewer workers. An exception thrown by a job stops every worker
// after its current item and is rethrown here (the first one, if several).
void parallel_for(std::size_t n, unsigned threads, const std::function<void(std::size_t, unsigned)>& job);

}  // namespace safespec
