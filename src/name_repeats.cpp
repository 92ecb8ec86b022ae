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
  // Only the hashes are gathered (8 bytes a name): names are read where the
  // models hold them. A vector of views beside them was a megabyte for a
  // directory of 1,000 files, faulted in and written on every check.
  std::vector<std::uint64_t> hashes(n);
  // Each file writes its own range: reading 1,000 models' entries (cache
  // misses) is most of the gathering, and split like the hashing.
  const unsigned used = n < kParallelFrom ? 1u : std::clamp(threads, 1u, kMaxCheckJobs);
  parallel_for(files.size(), used, [&](std::size_t f, unsigned) {
    for (std::size_t j = 0; j < files[f].size(); ++j) hashes[first_of[f] + j] = name_hash(files[f][j].name);
  });
  // Name i: the walk asks for each name in order (a cursor that moves on),
  // and for an earlier one only when hash tags match (a search).
  std::size_t file = 0;
  const auto name_at = [&](std::size_t i) -> std::string_view {
    while (file + 1 < first_of.size() && first_of[file + 1] <= i) ++file;
    if (i < first_of[file]) {
      const auto f = static_cast<std::size_t>(std::upper_bound(first_of.begin(), first_of.end(), i) - first_of.begin()) - 1;
      return files[f][i - first_of[f]].name;
    }
    return files[file][i - first_of[file]].name;
  };
  // One table, on this thread: split by hash into one table a thread, the
  // inserts took longer on two threads than on one (each table's first
  // touch, faulted in at once).
  std::vector<std::pair<std::size_t, std::size_t>> out;
  NameIndex index;
  index.for_each_repeat_hashed(n, [&](std::size_t i) { return hashes[i]; }, name_at,
                               [&](std::size_t i, std::size_t first) {
                                 out.emplace_back(i, first);
                                 return true;
                               });
  return out;
}

}  // namespace safespec
