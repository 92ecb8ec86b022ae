// The values the reference never looks at (unknown fields of a tensor entry,
// F6.11) still go through its JSON parser, and strict still wants every key
// of every object said once (X3). This walks such a value and reports keys
// repeated within one object.
#pragma once

#include <functional>
#include <string>

#include "spec/json_text.hpp"
#include "spec/limits.hpp"
#include "spec/place.hpp"

namespace safespec {


// `report(where, same_spelling)` is called for each repeated key, `where`
// naming it below `at` (a TensorField place; steps are pushed while the
// value is walked and popped after it, so `at` comes back unchanged and no
// name is copied unless a key repeats). The cursor must be at the value's
// first byte of a validated text; it is left after the value.
void scan_ignored_value(JsonCursor& c, Place& at,
                        const std::function<void(const Place& where, bool same_spelling)>& report);

}  // namespace safespec
