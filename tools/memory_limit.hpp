// The memory bound safespec guarantees for `safespec check` on one file (docs/hardening.md,
// "The memory bound"): address space at most 3 x the header length plus a fixed
// allowance for the binary, its shared libraries, the stacks and the
// allocator's arenas. memory_bound and replay_adversarial run the command
// under exactly this RLIMIT_AS, so exceeding it fails the test.
#pragma once

#include <cstdint>

namespace safespec::tools {

// The command alone (binary, libraries, stacks, first arena) maps under
// 10 MiB; the rest of 64 MiB is margin for other libc and allocator builds.
inline constexpr std::uint64_t kFixedAllowance = std::uint64_t{64} << 20;  // 64 MiB

inline constexpr std::uint64_t address_space_limit(std::uint64_t header_length) {
  return 3 * header_length + kFixedAllowance;
}

// A shard index is read whole (at most 256 MiB) into simdjson's DOM, and each
// shard it names costs a report: 32 x the index's size bounds both (an index
// naming 100,000 missing shards, 4.5 MB, peaks at 100 MB resident).
inline constexpr std::uint64_t index_address_space_limit(std::uint64_t index_size) {
  return 32 * index_size + kFixedAllowance;
}

}  // namespace safespec::tools
