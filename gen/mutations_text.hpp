// The mutations that break the text (F1-F6 parse errors) or trip a text
// warning (X1 leading whitespace, W5 unaligned header length): they edit a
// Layout or the final bytes. Declared here for mutation_catalogue()
// (mutations_model.cpp); definitions live in mutations_text.cpp.
#pragma once

#include "gen/layout.hpp"
#include "gen/mutations.hpp"

namespace safespec::gen::detail {

// F1-F6: parse errors
Mutant prefix_truncated(const Plan& p);
Mutant length_above_cap(const Plan& p);
Mutant length_past_end(const Plan& p);
Mutant invalid_utf8(const Plan& p);
Mutant trailing_junk(const Plan& p);
Mutant leading_junk(const Plan& p);
Mutant broken_syntax(const Plan& p);
Mutant depth_exceeded(const Plan& p);
Mutant not_object(const Plan& p);
Mutant metadata_twice(const Plan& p);
Mutant metadata_type(const Plan& p);
Mutant tensor_not_object(const Plan& p);
Mutant field_missing(const Plan& p);
Mutant field_duplicate(const Plan& p);
Mutant dtype_unknown(const Plan& p);
Mutant shape_type(const Plan& p);
Mutant offsets_type(const Plan& p);

// X1, W5: text warnings
Mutant leading_space(const Plan& p);
Mutant header_unaligned(const Plan& p);

}  // namespace safespec::gen::detail
