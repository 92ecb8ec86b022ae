// The fast path of the header parser: one pass over the text straight into a
// Header, for the plain texts that nearly every checkpoint has (see
// reference::read_plain_header in
// spec/reference/reference_reader.hpp for what "plain" means). Nothing is built but
// the Header itself and a duplicate check over its names: no DOM, no copy of
// the text, no padding after it, so its memory stays in proportion to the
// header from 1 KB to 100 MB (the simdjson DOM touched about 8
// bytes per header byte, and above 16 MiB safespec had to switch to the
// streaming reader).
//
// It only ever accepts: any other text (a negative or fractional number, a
// lone surrogate escape, an unknown field, a repeated key, an array-form
// tensor, a number past u64, ...) gives nullopt, and the caller hands the text
// to the reference reader, which decides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "spec/model.hpp"
#include "spec/name_index.hpp"

namespace safespec {

// A header text that arrives a window at a time: a file read in pieces, so
// that a 100 MB header is never in memory whole (it was a third of `check`'s
// peak memory on a 1,000,000-tensor header, and most of its page faults).
// The parser needs a unit (one tensor entry, or the metadata) whole
// in the window; the source lets the window grow for a longer one.
class TextWindows {
 public:
  virtual ~TextWindows() = default;
  std::string_view window() const { return window_; }
  // The window reaches the end of the text.
  bool final() const { return final_; }
  // Drops the window's first `drop` bytes and reads on: the new window starts
  // with the bytes kept and holds more than before (it grows when they fill
  // most of it). False when the text cannot be read; the source keeps why.
  virtual bool advance(std::size_t drop) = 0;

 protected:
  void set_window(std::string_view window, bool final) {
    window_ = window;
    final_ = final;
  }

 private:
  std::string_view window_;
  bool final_ = true;
};

// `names` is scratch for the duplicate checks, kept by the caller between calls.
// keep_name_hashes: the header's name_hashes are filled (spec/model.hpp).
std::optional<Header> parse_plain_header(std::string_view text, NameIndex& names, bool keep_name_hashes = false);
// The same reading over a text of `text_size` bytes that arrives in windows;
// the same result for every window size.
std::optional<Header> parse_plain_header(TextWindows& text, std::uint64_t text_size, NameIndex& names,
                                         bool keep_name_hashes = false);

}  // namespace safespec
