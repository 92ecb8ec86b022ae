// The config.json that describes a checkpoint, read for the quantized-layer
// spec (spec/quant/model_config.hpp): the one in the folder of the
// checkpoint's first file, or the one given with `check --config PATH`.
#pragma once

#include <optional>
#include <string>

#include "spec/quant/model_config.hpp"

namespace safespec {

// The file at `path` read and parsed; nullopt when it does not exist. A file
// that cannot be read, is too large or is not JSON gives a config whose
// `unread` says why (the spec then reports it unchecked), never an error.
std::optional<quant::ModelConfig> read_model_config_file(const std::string& path);

// "DIR/config.json" for a checkpoint file "DIR/NAME"; nullopt for a URL or
// standard input, which have no folder.
std::optional<std::string> config_path_beside(const std::string& checkpoint_file);

}  // namespace safespec
