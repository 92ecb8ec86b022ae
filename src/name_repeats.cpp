#include "src/name_repeats.hpp"

#include <algorithm>
#include <cstdint>

#include "spec/limits.hpp"
#include "spec/name_hash.hpp"
#include "spec/name_index.hpp"
#include "src/parallel.hpp"

namespace safespec {

namespace {

// Below this many names one thread is quicker than starting others.
constexpr std::size_t kParallelFrom = 8192;
constexpr std::size_t kHashChunk = 4096;

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> find_repeats(std::span<const std::string_view> names,
                                                               unsigned threads) {
  const std::size_t n = names.size();
  const unsigned threads_used = n < kParallelFrom ? 1u : std::clamp(threads, 1u, kMaxCheckJobs);
  std::vector<std::uint64_t> hashes(n);
  parallel_for((n + kHashChunk - 1) / kHashChunk, threads_used, [&](std::size_t c, unsigned) {
    for (std::size_t i = c * kHashChunk; i < std::min(n, (c + 1) * kHashChunk); ++i) hashes[i] = name_hash(names[i]);
  });
  // One table, on this thread: split by hash into one table a thread, the
  // inserts took longer on two threads than on one (each table's first
  // touch, faulted in at once).
  std::vector<std::pair<std::size_t, std::size_t>> out;
  NameIndex index;
  index.for_each_repeat_hashed(
      n, [&](std::size_t i) { return hashes[i]; }, [&](std::size_t i) { return names[i]; },
      [&](std::size_t i, std::size_t first) {
        out.emplace_back(i, first);
        return true;
      });
  return out;
}

}  // namespace safespec
