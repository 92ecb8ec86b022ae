#include "src/name_repeats.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "spec/limits.hpp"
#include "spec/name_hash.hpp"
#include "spec/name_index.hpp"
#include "src/parallel.hpp"

namespace safespec {

namespace {

// Below this many names one thread is quicker than starting others.
constexpr std::size_t kParallelFrom = 8192;

// How much of a file's kept hashes is prefetched ahead (past that, the
// hardware's own prefetcher follows the sequential reads).
constexpr std::size_t kPrefetchHashes = 128;
constexpr std::size_t kHashesPerLine = 8;

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> find_repeats(std::span<const NamedTensors> files, unsigned threads) {
  std::vector<std::size_t> first_of(files.size() + 1, 0);  // a file's first tensor's number
  std::size_t unhashed = 0;
  const auto kept = [&](std::size_t f) { return files[f].hashes.size() == files[f].tensors.size(); };
  for (std::size_t f = 0; f < files.size(); ++f) {
    first_of[f + 1] = first_of[f] + files[f].tensors.size();
    if (!kept(f)) unhashed += files[f].tensors.size();
  }
  const std::size_t n = first_of.back();
  // Most files come with their hashes (the parse worked them out for its
  // own duplicate check): hashing 64,000 names again was half of this check
  // on a directory of 1,000 files (issue 14). The others are hashed here, a
  // file at a time, split on the threads when there are many.
  std::vector<std::vector<std::uint64_t>> hashed(files.size());
  if (unhashed != 0) {
    const unsigned used = unhashed < kParallelFrom ? 1u : std::clamp(threads, 1u, kMaxCheckJobs);
    parallel_for(files.size(), used, [&](std::size_t f, unsigned) {
      if (kept(f)) return;
      hashed[f].reserve(files[f].tensors.size());
      for (const TensorEntry& t : files[f].tensors) hashed[f].push_back(name_hash(t.name));
    });
  }
  // Name i and hash i: the walk asks for each hash in order (a cursor that
  // moves on), for a name only when hash tags match: its own, or an earlier
  // one's (a search).
  // Each file's kept hashes are a block of their own, written on another
  // thread and cold here: waiting for each file's first hashes was half of
  // the walk over a directory of 1,000 files (issue 14). On entering a file,
  // the next file's first kPrefetchHashes hashes are asked for. (In a lambda
  // of its own that returns nothing, gcc took the prefetching for a function
  // without effects and dropped its calls.)
  std::size_t hash_file = 0;
  const auto hash_at = [&](std::size_t i) {
    while (first_of[hash_file + 1] <= i) {
      const std::size_t next = ++hash_file + 1;
      if (next < files.size() && kept(next)) {
        const std::span<const std::uint64_t> h = files[next].hashes;
        for (std::size_t k = 0; k < h.size() && k < kPrefetchHashes; k += kHashesPerLine) __builtin_prefetch(&h[k]);
      }
    }
    const std::size_t j = i - first_of[hash_file];
    return kept(hash_file) ? files[hash_file].hashes[j] : hashed[hash_file][j];
  };
  std::size_t file = 0;
  const auto name_at = [&](std::size_t i) -> std::string_view {
    while (file + 1 < first_of.size() && first_of[file + 1] <= i) ++file;
    if (i < first_of[file]) {
      const auto f = static_cast<std::size_t>(std::upper_bound(first_of.begin(), first_of.end(), i) - first_of.begin()) - 1;
      return files[f].tensors[i - first_of[f]].name;
    }
    return files[file].tensors[i - first_of[file]].name;
  };
  // One table, on this thread: split by hash into one table a thread, the
  // inserts took longer on two threads than on one (each table's first
  // touch, faulted in at once).
  std::vector<std::pair<std::size_t, std::size_t>> out;
  NameIndex index;
  index.for_each_repeat_hashed(n, hash_at, name_at, [&](std::size_t i, std::size_t first) {
    out.emplace_back(i, first);
    return true;
  });
  return out;
}

}  // namespace safespec
