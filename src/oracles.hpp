// Postconditions the fuzz targets and properties check. Each returns a
// description of the violated law, or nullopt when it holds. They live here so
// fuzzers, the replay tests and the properties share one definition.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "spec/model.hpp"
#include "src/fast_header.hpp"

namespace safespec {

// A header reduced to what survives canonical writing: tensors in W1 order,
// metadata sorted, null metadata as absent, no duplicate records, no leading
// whitespace, no unknown fields.
Header normalized(const Header& h);

// The fast parser and the reference reader give the same Model or the same
// Error (rule, where and message) for these bytes.
std::optional<std::string> parsers_disagree(std::span<const std::uint8_t> file, FastHeaderParser& parser);

// If the bytes parse: the canonical header text of the model parses back to
// the same normalized header. If the reference reader accepts the whole file:
// serializing its tensors and metadata gives a file that is accepted, holds
// the same tensors and bytes, and serializes to itself again.
std::optional<std::string> roundtrip_fails(std::span<const std::uint8_t> file, FastHeaderParser& parser);

}  // namespace safespec
