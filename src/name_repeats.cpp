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

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> find_repeats(std::span<const std::span<const TensorEntry>> files,
                                                               unsigned threads) {
  std::vector<std::size_t> first_of(files.size() + 1, 0);  // a file's first tensor's number
  for (std::size_t f = 0; f < files.size(); ++f) first_of[f + 1] = first_of[f] + files[f].size();
  const std::size_t n = first_of.back();
  std::vector<std::string_view> names(n);
  std::vector<std::uint64_t> hashes(n);
  // Each file writes its own range: reading 1,000 models' entries (cache
  // misses) is most of the gathering, and split like the hashing.
  const unsigned used = n < kParallelFrom ? 1u : std::clamp(threads, 1u, kMaxCheckJobs);
  parallel_for(files.size(), used, [&](std::size_t f, unsigned) {
    for (std::size_t j = 0; j < files[f].size(); ++j) {
      names[first_of[f] + j] = files[f][j].name;
      hashes[first_of[f] + j] = name_hash(files[f][j].name);
    }
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
