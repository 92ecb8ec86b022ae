// The safetensors model rules (F7-F13) and the strict rules, as pure functions
// from a parsed Model to findings. Parse-level rules (F1-F6) are decided by the
// readers and arrive as an Error; these run on headers that parsed.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "spec/finding.hpp"
#include "spec/model.hpp"
#include "spec/rule_catalogue.hpp"

namespace safespec {

// One rule each, in the reference's per-tensor order (F8 → F12).
std::optional<Finding> rule_offset(const TensorEntry& t, std::uint64_t cursor);       // F8
std::optional<Finding> rule_shape_overflow(const TensorEntry& t);                     // F9
std::optional<Finding> rule_nbits_overflow(const TensorEntry& t);                     // F10
std::optional<Finding> rule_misaligned_bits(const TensorEntry& t);                    // F11
std::optional<Finding> rule_size(const TensorEntry& t);                               // F12
std::optional<Finding> rule_buffer_coverage(const Model& m, std::uint64_t buffer_end); // F13

// F7 with the X13 tie-break: (begin, end, name), so the reported tensor of a
// tie is the same on every run.
std::vector<const TensorEntry*> sorted_by_offsets(std::span<const TensorEntry> tensors);

// F7-F13 in the reference's order: the first error finding is the one the
// reference reader reports.
Findings reference_findings(const Model& m);

// What the written spec forbids or warns about beyond the reference (X1, X3,
// X8, X19, §6).
Findings strict_findings(const Model& m);

// All findings the profile applies: reference order first, then strict.
Findings check_model(const Model& m, Profile p);

// The byte size of a tensor by F9-F11, or nullopt if one of them fails.
std::optional<std::uint64_t> tensor_byte_size(std::span<const std::uint64_t> shape, Dtype d);

}  // namespace safespec
