#include "src/fast_header.hpp"

#include "spec/header_reader.hpp"
#include "spec/name_index.hpp"
#include "src/plain_header.hpp"

namespace safespec {

// The plain reader never reads past the text (it was simdjson's padding).
std::size_t fast_parser_padding() { return 0; }

struct FastHeaderParser::Impl {
  NameIndex names;  // scratch for the duplicate checks, reused between calls
};

FastHeaderParser::FastHeaderParser() : impl_(std::make_unique<Impl>()) {}

FastHeaderParser::~FastHeaderParser() = default;

Result<Header> FastHeaderParser::parse(std::string_view text, std::uint64_t base) {
  if (auto h = parse_plain(text)) return std::move(*h);
  return read_header_reference(text, base);
}

std::optional<Header> FastHeaderParser::parse_plain(std::string_view text) {
  auto h = parse_plain_header(text, impl_->names, keep_name_hashes_);
  last_fast_ = h.has_value();
  return h;
}

std::optional<Header> FastHeaderParser::parse_plain(TextWindows& text, std::uint64_t text_size) {
  auto h = parse_plain_header(text, text_size, impl_->names, keep_name_hashes_);
  last_fast_ = h.has_value();
  return h;
}

}  // namespace safespec
