// The hash NameIndex buckets names by: SipHash-1-3 under a key drawn once per
// process, as Rust's HashMap does for the reference reader. A header author
// who cannot know the key cannot make names collide; with an unkeyed hash,
// 300,000 crafted names took 30 s to index instead of milliseconds.
#pragma once

#include <cstdint>
#include <string_view>

namespace safespec {

std::uint64_t name_hash(std::string_view s);

}  // namespace safespec
