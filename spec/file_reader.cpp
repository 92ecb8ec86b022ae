#include "spec/file_reader.hpp"

#include <string_view>

#include "spec/file_prefix.hpp"
#include "spec/header_reader.hpp"

namespace safespec {

Result<Model> read_model_reference(std::span<const std::uint8_t> file) {
  auto n = check_prefix(file);
  if (!n) return n.error();
  const std::string_view text(reinterpret_cast<const char*>(file.data()) + 8, n.value());
  auto header = read_header_reference(text);
  if (!header) return header.error();
  return Model{file.size(), n.value(), std::move(header).value()};
}

}  // namespace safespec
