// How Rust and serde print the values that appear in the reference reader's
// messages: serde_json's `floating point` texts (zmij's shortest form), a
// `&str` through `{:?}`, and `core::str::Utf8Error`.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace safespec::reference {

// zmij 1.0.23 `Buffer::format(f64)`, as serde_json 1.0.150 prints a float in
// `invalid type: floating point `...``: the shortest digits that round-trip,
// plain for decimal exponents -5..=15 ("1.0", "0.001", "-0.0",
// "12340000000.0"), scientific otherwise ("1e-6", "1.8446744073709552e+19").
std::string zmij_format(double value);

// `format!("{:?}", s)` for a str: quoted, with \0 \t \r \n \\ \" escaped and
// other non-printable or grapheme-extending characters as \u{hex}.
std::string rust_str_debug(std::string_view utf8);
// Whether `{:?}` escapes a non-ASCII character (rust_debug_escapes.cpp: the
// table rustc 1.95.0 gives).
bool rust_debug_escapes(char32_t c);

// `core::str::from_utf8`'s error: the valid prefix length and, for an invalid
// sequence, its length (1-3); no length means the text ends mid-sequence.
struct Utf8Failure {
  std::size_t valid_up_to = 0;
  std::optional<std::size_t> error_len;
};
std::optional<Utf8Failure> rust_utf8_check(std::string_view bytes);
// "invalid utf-8 sequence of 1 bytes from index 4" /
// "incomplete utf-8 byte sequence from index 4"
std::string utf8_failure_text(const Utf8Failure& f);

}  // namespace safespec::reference
