#include "src/parse/header_parser.hpp"

#include "spec/header_reader.hpp"
#include "spec/name_index.hpp"
#include "src/parse/plain_header.hpp"

namespace safespec {

struct HeaderParser::Impl {
  NameIndex names;  // scratch for the duplicate checks, reused between calls
};

HeaderParser::HeaderParser() : impl_(std::make_unique<Impl>()) {}

HeaderParser::~HeaderParser() = default;

Result<Header> HeaderParser::parse(std::string_view text, std::uint64_t base) {
  if (auto h = parse_plain(text)) return std::move(*h);
  return read_header_reference(text, base);
}

std::optional<Header> HeaderParser::parse_plain(std::string_view text) {
  auto h = parse_plain_header(text, impl_->names, keep_name_hashes_);
  last_fast_ = h.has_value();
  return h;
}

std::optional<Header> HeaderParser::parse_plain(TextWindows& text, std::uint64_t text_size) {
  auto h = parse_plain_header(text, text_size, impl_->names, keep_name_hashes_);
  last_fast_ = h.has_value();
  return h;
}

}  // namespace safespec
