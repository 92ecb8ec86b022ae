// The command line's word on which layers are Linear and which embeddings
// (--layer NAME=KIND, --layers FILE, --all-linear), as quant::LayerKinds.
#pragma once

#include <string>
#include <vector>

#include "spec/quant/layer_kinds.hpp"
#include "spec/result.hpp"
#include "src/io/byte_file.hpp"

namespace safespec {

// layer_args: "NAME=linear" or "NAME=embedding" (the last '=' splits, so a
// name may hold '='); layers_file: "" or a JSON object {"NAME": "linear"|
// "embedding", ...}. --layer wins over the file for the same name.
Result<quant::LayerKinds, IoError> layer_kinds_option(const std::vector<std::string>& layer_args,
                                                      const std::string& layers_file, bool all_linear);

}  // namespace safespec
