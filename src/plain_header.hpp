// The fast path of the header parser: one pass over the text straight into a
// Header, for the plain texts that nearly every checkpoint has (see
// reference::read_plain_header in
// spec/reference/reference_reader.hpp for what "plain" means). Nothing is built but
// the Header itself and a duplicate check over its names: no DOM, no copy of
// the text, no padding after it, so its memory stays in proportion to the
// header from 1 KB to 100 MB (issue 14: the simdjson DOM touched about 8
// bytes per header byte, and above 16 MiB safespec had to switch to the
// streaming reader).
//
// It only ever accepts: any other text (a negative or fractional number, a
// lone surrogate escape, an unknown field, a repeated key, an array-form
// tensor, a number past u64, ...) gives nullopt, and the caller hands the text
// to the reference reader, which decides.
#pragma once

#include <optional>
#include <string_view>

#include "spec/model.hpp"
#include "spec/name_index.hpp"

namespace safespec {

// `names` is scratch for the duplicate check, kept by the caller between calls.
std::optional<Header> parse_plain_header(std::string_view text, NameIndex& names);

}  // namespace safespec
