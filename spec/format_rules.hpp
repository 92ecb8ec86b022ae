// The safetensors model rules (F7-F13) and the strict rules, as pure functions
// from a parsed Model to findings. Parse-level rules (F1-F6) are decided by the
// readers and arrive as an Error; these run on headers that parsed.
#pragma once

#include <algorithm>
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
bool offset_less(const TensorEntry& a, const TensorEntry& b);
std::vector<const TensorEntry*> sorted_by_offsets(std::span<const TensorEntry> tensors);

// visit(const TensorEntry&) for each tensor in sorted_by_offsets's order. A
// header already in that order (as writers emit it) is walked as it is, with
// no list of pointers built: an allocation for every file checked, 6 MB to
// fault in for a 100 MB header.
template <class Visit>
void for_each_by_offsets(std::span<const TensorEntry> tensors, Visit&& visit) {
  if (std::is_sorted(tensors.begin(), tensors.end(), offset_less))
    for (const TensorEntry& t : tensors) visit(t);
  else
    for (const TensorEntry* t : sorted_by_offsets(tensors)) visit(*t);
}

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
