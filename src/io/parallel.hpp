// The one thread pool: `check` reading many files (--jobs), --data running
// layers' value rules, and the numerics' row ranges all split their work
// through parallel_for. Each caller bounds `threads` by its own memory limit
// (spec/limits.hpp: kMaxCheckJobs headers in flight, kDataThreadsMax data
// buffers); this is where threads are started, fail to start, and fail.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

namespace safespec {

// job(i, worker) once for every i < n, on at most `threads` threads (0 or 1:
// the calling thread alone, in order). The calling thread is worker 0 and
// takes items too; worker ids are below `threads` and each is one thread for
// the whole call, so a job may keep per-worker state in a slot indexed by it.
// Items are handed out one at a time as workers finish, so the order in which
// they run is not fixed: a job must write only what belongs to its i.
// A thread the system refuses to start (a tight RLIMIT_AS or RLIMIT_NPROC)
// only means fewer workers, and under a finite RLIMIT_AS no more helpers
// start than threads_within_address_space allows. An exception thrown by a
// job stops every worker after its current item and is rethrown here (the
// first one, if several).
void parallel_for(std::size_t n, unsigned threads, const std::function<void(std::size_t, unsigned)>& job);

// What one helper thread costs in address space with glibc: its stack, and
// the arena malloc gives a thread's first allocation, a 64 MiB heap that is
// aligned by mapping twice that for a moment. Counted at the peak: the
// arena's transient 128 MiB mapping plus the stack.
std::uint64_t helper_address_space();
// Bytes of address space this process has mapped (/proc/self/statm's first
// number, in pages), what the rule below is given; nullopt where it cannot
// be read.
std::optional<std::uint64_t> mapped_address_space();
// What the calling thread keeps for its own work beside the helpers.
inline constexpr std::uint64_t kCallerAddressReserve = std::uint64_t{64} << 20;  // 64 MiB

// How many of `threads` workers (the caller included, so at least 1) fit in
// an address-space limit (RLIMIT_AS; nullopt: none) of which `mapped` bytes
// are in use: each helper beyond the caller needs `per_helper` bytes, and
// kCallerAddressReserve must still be left after them. Without this, a helper
// started near the limit fails the whole process by chance: its arena's
// transient mapping makes another thread's allocation fail (the adversarial
// index of 100,000 missing shards, 1 run in 10 under 180 MB).
unsigned threads_within_address_space(unsigned threads, std::optional<std::uint64_t> limit, std::uint64_t mapped,
                                      std::uint64_t per_helper);

}  // namespace safespec
