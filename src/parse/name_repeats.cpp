#include "src/parse/name_repeats.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "spec/limits.hpp"
#include "spec/name_hash.hpp"
#include "spec/name_index.hpp"
#include "src/io/parallel.hpp"

namespace safespec {

namespace {

// Below this many names one thread is quicker than starting others.
constexpr std::size_t kParallelFrom = 8192;

// How much of a file's kept hashes is prefetched ahead (past that, the
// hardware's own prefetcher follows the sequential reads).
constexpr std::size_t kPrefetchHashes = 128;
constexpr std::size_t kHashesPerLine = 8;

}  // namespace

RepeatWalk find_repeats(std::span<const NamedTensors> files, CheckJobs threads) {
  std::size_t n = 0, unhashed = 0;
  const auto kept = [&](std::size_t f) { return files[f].hashes.size() == files[f].tensors.size(); };
  for (std::size_t f = 0; f < files.size(); ++f) {
    n += files[f].tensors.size();
    if (!kept(f)) unhashed += files[f].tensors.size();
  }
  // Most files come with their hashes (the parse worked them out for its
  // own duplicate check): hashing 64,000 names again was half of this check
  // on a directory of 1,000 files. The others are hashed here, a
  // file at a time, split on the threads when there are many.
  std::vector<std::vector<std::uint64_t>> hashed(files.size());
  if (unhashed != 0) {
    const unsigned used = unhashed < kParallelFrom ? 1u : threads.count();
    parallel_for(files.size(), used, [&](std::size_t f, unsigned) {
      if (kept(f)) return;
      hashed[f].reserve(files[f].tensors.size());
      for (const TensorEntry& t : files[f].tensors) hashed[f].push_back(name_hash(t.name));
    });
  }
  // Each file's kept hashes are a block of their own, written on another
  // thread and cold here: waiting for each file's first hashes was half of
  // the walk over a directory of 1,000 files. Before a file is
  // walked, the next file's first kPrefetchHashes hashes are asked for.
  const auto hashes_of = [&](std::size_t f) -> std::span<const std::uint64_t> {
    return kept(f) ? files[f].hashes : std::span<const std::uint64_t>(hashed[f]);
  };
  RepeatWalk walk(n);
  for (std::size_t f = 0; f < files.size(); ++f) {
    if (f + 1 < files.size()) {
      const std::span<const std::uint64_t> h = hashes_of(f + 1);
      for (std::size_t k = 0; k < h.size() && k < kPrefetchHashes; k += kHashesPerLine) __builtin_prefetch(&h[k]);
    }
    walk.add(NamedTensors{files[f].tensors, hashes_of(f)});
  }
  return walk;
}

RepeatWalk::RepeatWalk(std::size_t expected) { index_.begin_walk(expected); }

void RepeatWalk::expect(std::size_t expected) {
  if (names() == 0) index_.begin_walk(expected);
}

void RepeatWalk::add(NamedTensors file) {
  const std::size_t from = first_of_.back();
  files_.push_back(file.tensors);
  first_of_.push_back(from + file.tensors.size());
  std::span<const std::uint64_t> hashes = file.hashes;
  if (hashes.size() != file.tensors.size()) {
    hashed_.clear();
    for (const TensorEntry& t : file.tensors) hashed_.push_back(name_hash(t.name));
    hashes = hashed_;
  }
  // A name is read only when hash tags match: its own file's, or an
  // earlier one's (a search).
  index_.walk(
      from, first_of_.back(), [&](std::size_t i) { return hashes[i - from]; },
      [&](std::size_t i) { return (i >= from ? file.tensors[i - from] : *tensor(i).second).name.view(); },
      [&](std::size_t i, std::size_t first) {
        repeats_.emplace_back(i, first);
        return true;
      });
}

std::pair<std::size_t, const TensorEntry*> RepeatWalk::tensor(std::size_t k) const {
  const auto f = static_cast<std::size_t>(std::upper_bound(first_of_.begin(), first_of_.end(), k) - first_of_.begin()) - 1;
  return {f, &files_[f][k - first_of_[f]]};
}

}  // namespace safespec
