#include "src/commands/layer_kinds_option.hpp"

#include "spec/limits.hpp"
#include "spec/python/python_json.hpp"

namespace safespec {

namespace {


Result<Unit, IoError> add_file(const std::string& path, quant::LayerKinds& kinds) {
  auto file = ByteFile::open(path);
  if (!file) return IoError{"--layers " + path + ": " + file.error().message};
  if (file.value().size() > kMaxLayersFileBytes)
    return IoError{"--layers " + path + ": over " + std::to_string(kMaxLayersFileBytes) + " bytes"};
  std::string text(file.value().size(), '\0');
  auto read = file.value().read_at(0, std::span(reinterpret_cast<std::uint8_t*>(text.data()), text.size()));
  if (!read) return IoError{"--layers " + path + ": " + read.error().message};
  auto parsed = py::loads(text, py::LoadLimits{kMaxLayersFileBytes, kPythonJsonDepth});
  if (!parsed) return IoError{"--layers " + path + ": not JSON: " + parsed.error().what()};
  const auto* dict = std::get_if<py::Dict>(&parsed.value().data);
  if (!dict) return IoError{"--layers " + path + ": expected a JSON object mapping layer names to \"linear\" or \"embedding\""};
  for (const py::DictEntry& e : dict->items) {
    const auto* name = std::get_if<std::string>(&e.key.data);
    const auto* kind_text = std::get_if<std::string>(&e.value.data);
    const auto kind = kind_text ? quant::parse_layer_kind(*kind_text) : std::nullopt;
    if (!name || !kind)
      return IoError{"--layers " + path + ": expected \"linear\" or \"embedding\" for " + py::repr(e.key) + ", found " +
                     py::repr(e.value)};
    kinds.named.insert_or_assign(*name, *kind);
  }
  return Unit{};
}

}  // namespace

Result<quant::LayerKinds, IoError> layer_kinds_option(const std::vector<std::string>& layer_args,
                                                      const std::string& layers_file, bool all_linear) {
  quant::LayerKinds kinds;
  kinds.all_linear = all_linear;
  if (!layers_file.empty())
    if (auto r = add_file(layers_file, kinds); !r) return r.error();
  for (const std::string& arg : layer_args) {
    const std::size_t eq = arg.rfind('=');
    const auto kind = eq == std::string::npos ? std::nullopt : quant::parse_layer_kind(std::string_view(arg).substr(eq + 1));
    if (!kind || eq == 0) return IoError{"--layer " + arg + ": expected NAME=linear or NAME=embedding"};
    kinds.named.insert_or_assign(arg.substr(0, eq), *kind);
  }
  return kinds;
}

}  // namespace safespec
