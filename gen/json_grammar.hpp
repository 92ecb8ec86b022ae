// RapidCheck generators of JSON-ish text for the differential properties:
// tokens on both sides of every F6 rule (escapes and surrogates, -0, 1.0,
// 1e400, 2^64, leading zeros, raw control characters), values nested around
// serde_json's recursion limit, and header-shaped objects whose members are
// mostly valid tensor entries, so the fast parser's accepting path is reached.
#pragma once

#include <rapidcheck.h>

#include <string>

namespace safespec::gen {

// JSON whitespace (SP, TAB, LF, CR), usually empty.
rc::Gen<std::string> json_space();
// A quoted string token. valid_only: always a valid JSON string token.
rc::Gen<std::string> json_string_token(bool valid_only);
// A number token, often at a boundary. valid_only: finite JSON numbers only.
rc::Gen<std::string> json_number_token(bool valid_only);
// A value nested at most max_depth containers deep (0: scalars only).
rc::Gen<std::string> json_value(int max_depth, bool valid_only);
// A valid value nested exactly `depth` containers deep (arrays and objects).
std::string nested_value(int depth, bool objects, const std::string& core);
// A header-shaped object text: tensor entries with possibly odd spellings,
// types and extra fields, metadata, deep nesting, occasional junk.
rc::Gen<std::string> header_like_text();

}  // namespace safespec::gen
