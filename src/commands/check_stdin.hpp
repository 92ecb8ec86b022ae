// What `check -` holds of standard input (src/io/held_stream.hpp). Without
// --data the check reads the header, the marker tensors and the first 64
// bytes (for the hint on bytes that are no checkpoint), and of the data
// section only its length (the size rules): those bytes are held, and the
// rest is counted as it streams past, so a 700 MB shard costs what its header
// costs. With --data the value rules may read any tensor, and the whole
// stream is held, once (at most kMaxStdinBytes). Spooling it to a temporary
// file instead was not chosen: it would move the bound to a TMPDIR that may
// be a tmpfs (memory again) or full, and add an I/O error of its own.
#pragma once

#include "src/io/held_stream.hpp"

namespace safespec {

// The header (when the prefix names one within kMaxHeaderSize) and every
// marker tensor within kMaxMarkerReadBytes, as the strict reader or, for a
// header it refuses, the reference reader lists them: the header is parsed
// here once more than by the check, which costs its parse time and no more
// memory than the check's own parse.
HoldPlan check_stdin_plan();

}  // namespace safespec
