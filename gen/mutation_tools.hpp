// What the mutations share: random picks, plan edits that keep a plan valid,
// raw header surgery, and second spellings of a key. Internal to the mutation
// files (mutations_text.cpp, mutations_model.cpp); definitions live in
// mutation_tools.cpp. Functions that draw with `*gen` may only be called
// inside a property or rc::gen::exec.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gen/layout.hpp"
#include "gen/mutations.hpp"
#include "spec/model.hpp"

namespace safespec::gen::detail {

// A random index in [0, n).
std::size_t pick(std::size_t n);

// `base`, with '~' appended until no tensor of p has that name.
std::string fresh_name(const Plan& p, std::string base);

// Appends a U8 tensor of `size` bytes at the end of the buffer.
std::size_t append_u8(Plan& p, std::uint64_t size, const std::string& base = "added");

std::uint64_t span(const TensorEntry& t);

// Indices of p.tensors in (begin, end, name) order, the F7 order.
std::vector<std::size_t> offset_order(const Plan& p);

// Makes sure some tensor exists; returns a random tensor index.
std::size_t any_tensor(Plan& p);

Mutant done(const Plan& p, std::string what);
Mutant done(const Layout& l, std::string what);

std::string name_of(const Plan& p, std::size_t i);

// Replaces the value of tensor i's member with raw text.
Mutant with_tensor_value(const Plan& p, std::size_t i, std::string value, const std::string& what);
// Replaces the value of tensor i's member with an object of these fields.
Mutant with_fields(const Plan& p, std::size_t i, const std::vector<Member>& fields, const std::string& what);

// A file from a verbatim header text and a byte buffer; N = the text's size.
std::vector<std::uint8_t> raw_file(const std::string& h, const std::vector<std::uint8_t>& data);

// h with spaces to the next multiple of 8.
std::string padded(std::string h);

// Inserts raw text into the header at a position in [lo, hi], adjusting N.
Mutant insert_in_header(const Plan& p, const std::string& piece, std::size_t lo, std::size_t hi,
                        const std::string& what);

// bytes with the 8-byte prefix N replaced.
std::vector<std::uint8_t> set_length(std::vector<std::uint8_t> bytes, std::uint64_t n);

// A key spelling of `name` that differs from json_string(name) but decodes to
// the same text (F6.5): one character written as a \u escape. None when no
// character has a second spelling (e.g. "\u0000" is the only one for NUL).
std::optional<std::string> escaped_spelling(const std::string& name);

}  // namespace safespec::gen::detail
