// The whole reference pipeline over a file held in memory: F1-F4 on the
// prefix, then the reference header reader. Tests and fuzzers use it as the
// definition the fast path (src/) must match.
#pragma once

#include <cstdint>
#include <span>

#include "spec/model.hpp"
#include "spec/result.hpp"

namespace safespec {

Result<Model> read_model_reference(std::span<const std::uint8_t> file);

}  // namespace safespec
