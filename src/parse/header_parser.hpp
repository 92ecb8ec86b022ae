// The header parser: the plain reader (src/parse/plain_header.hpp) for the common
// case, the reference reader for everything else. It produces the same Header
// or the same Error as read_header_reference for every input
// (differential_fuzzer, props).
//
// The fast path only ever *accepts*: whenever the text is not a plain,
// well-formed header (any JSON the plain reader does not read as written,
// any key repeated, any field of the wrong type, an unknown field, a
// negative number), it hands the text to the reference reader, which
// decides. Such texts are rare and cost what the reference reader costs,
// which is linear. Both keep memory in proportion to the header at every
// size, so there is one path from 1 KB to 100 MB.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "spec/limits.hpp"
#include "spec/model.hpp"
#include "spec/result.hpp"
#include "src/parse/plain_header.hpp"

namespace safespec {

class HeaderParser {
 public:
  HeaderParser();
  ~HeaderParser();
  HeaderParser(const HeaderParser&) = delete;
  HeaderParser& operator=(const HeaderParser&) = delete;

  Result<Header> parse(std::string_view text, std::uint64_t base = 8);

  // The fast path alone: the header when the text is plain (as
  // reference::read_plain_header requires), else nullopt and the caller asks
  // a reader that decides.
  std::optional<Header> parse_plain(std::string_view text);
  // The fast path over a text that arrives in windows (src/parse/plain_header.hpp).
  std::optional<Header> parse_plain(TextWindows& text, std::uint64_t text_size);

  // True when the last parse() was decided by the fast path (for tests).
  bool last_was_fast() const { return last_fast_; }

  // Whether a header the fast path reads keeps its name_hashes (spec/model.hpp):
  // for files checked together, whose names the collision check hashes
  // otherwise a second time. Off by default: a single file does not need them.
  void keep_name_hashes(bool keep) { keep_name_hashes_ = keep; }
  bool keeps_name_hashes() const { return keep_name_hashes_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool last_fast_ = false;
  bool keep_name_hashes_ = false;
};

// keep_name_hashes(keep) on a parser for this object's life; then the
// parser's setting is what it was.
class NameHashesKept {
 public:
  NameHashesKept(HeaderParser& parser, bool keep) : parser_(parser), was_(parser.keeps_name_hashes()) {
    parser.keep_name_hashes(keep);
  }
  ~NameHashesKept() { parser_.keep_name_hashes(was_); }
  NameHashesKept(const NameHashesKept&) = delete;
  NameHashesKept& operator=(const NameHashesKept&) = delete;

 private:
  HeaderParser& parser_;
  bool was_;
};

}  // namespace safespec
