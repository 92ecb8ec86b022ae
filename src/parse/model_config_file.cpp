#include "src/parse/model_config_file.hpp"

#include <filesystem>
#include <vector>

#include "spec/limits.hpp"
#include "src/io/byte_file.hpp"

namespace safespec {

std::optional<quant::ModelConfig> read_model_config_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  auto file = ByteFile::open_local(path);
  if (!file) {
    quant::ModelConfig c;
    c.path = path;
    c.unread = "it could not be opened: " + file.error().message;
    return c;
  }
  const std::uint64_t size = file.value().size();
  if (size > kMaxModelConfigBytes) {
    quant::ModelConfig c;
    c.path = path;
    c.unread = std::to_string(size) + " bytes, over safespec's bound of " + std::to_string(kMaxModelConfigBytes);
    return c;
  }
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  if (auto read = file.value().read_at(0, bytes); !read) {
    quant::ModelConfig c;
    c.path = path;
    c.unread = "it could not be read: " + read.error().message;
    return c;
  }
  return quant::read_model_config(
      path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::optional<std::string> config_path_beside(const std::string& checkpoint_file) {
  if (checkpoint_file.empty() || checkpoint_file == "-" || is_url(checkpoint_file)) return std::nullopt;
  const std::filesystem::path dir = std::filesystem::path(checkpoint_file).parent_path();
  return (dir / "config.json").string();
}

}  // namespace safespec
