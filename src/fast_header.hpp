// The fast header parser: simdjson's DOM for the common case, the reference
// reader for everything else. It produces the same Header or the same Error as
// read_header_reference for every input (differential_fuzzer, props).
//
// The fast path only ever *accepts*: whenever the text is not a plain,
// well-formed header (any simdjson error, any key repeated, any field of the
// wrong type, an unknown field, "-0" anywhere, a header too large for the
// DOM's memory budget), it hands the text to the reference reader, which
// decides. Such texts are rare and cost what the reference reader costs,
// which is linear.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "spec/limits.hpp"
#include "spec/model.hpp"
#include "spec/result.hpp"

namespace safespec {

// Bytes simdjson may read past the end of the text; buffers handed to
// FastHeaderParser::parse must have this many readable bytes after the text.
std::size_t fast_parser_padding();


class FastHeaderParser {
 public:
  FastHeaderParser();
  ~FastHeaderParser();
  FastHeaderParser(const FastHeaderParser&) = delete;
  FastHeaderParser& operator=(const FastHeaderParser&) = delete;

  // `text` must be followed by fast_parser_padding() readable bytes.
  Result<Header> parse(std::string_view text, std::uint64_t base = 8);

  // True when the last parse() was decided by the fast path (for tests).
  bool last_was_fast() const { return last_fast_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool last_fast_ = false;
};

}  // namespace safespec
