#include "spec/consumers.hpp"

namespace safespec {

std::string_view container_reader_name(ContainerReader r) {
  switch (r) {
    case ContainerReader::RustCrate: return "the reference crate";
    case ContainerReader::SafeOpen: return "safetensors.safe_open (the reference crate)";
    case ContainerReader::ComfyuiOwn: return "comfy.utils.load_safetensors (ComfyUI's own parser)";
    case ContainerReader::ComfyuiOwnPin: return "comfy.utils.load_safetensors before its checks";
    case ContainerReader::NotAReader: return "none: handed tensors by its caller";
  }
  return "";
}

std::optional<Consumer> consumer_by_name(std::string_view name) {
  for (const ConsumerInfo& c : kConsumerTable)
    if (c.name == name) return c.id;
  return std::nullopt;
}

std::optional<std::size_t> version_by_id(Consumer c, std::string_view id) {
  const auto versions = consumer_info(c).versions;
  for (std::size_t i = 0; i < versions.size(); ++i)
    if (versions[i].id == id) return i;
  return std::nullopt;
}

}  // namespace safespec
