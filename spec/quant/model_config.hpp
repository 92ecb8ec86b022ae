// What the quantized-layer spec needs of the config.json beside a checkpoint:
// the quantization declaration sglang's MiniMax-H3 loader reads to recognise
// a legacy marker-less INT8 ConvRot checkpoint (docs/spec/quant-layers.md
// LI1-LI6). src/ reads the file; read_model_config is a pure function of its
// bytes, so spec/ never touches the file system.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace safespec::quant {

struct ModelConfig {
  std::string path{};  // as the findings name it
  // Non-empty: why the file gave no declaration that safespec could read (over
  // kMaxModelConfigBytes, not UTF-8, not JSON: Python's exception line); every
  // field below is then unset and the legacy rules are unchecked.
  std::string unread{};
  // resolve_checkpoint_quant_spec's TypeError when the config or the value it
  // selects is no JSON object ("quantization_config must be a mapping or
  // transformers.PretrainedConfig, got list"): the name it gives that value
  // ("HF config", "text_config", or a source below) and its Python type;
  // both empty when none.
  std::string type_error_source{};
  std::string type_error_type{};
  // Where the quantization metadata was found: "quantization_config",
  // "text_config.quantization_config", "compression_config"; empty: none.
  std::string source{};
  // Its "quant_method" when that is a JSON string (declared_method).
  std::optional<std::string> quant_method{};
  // repr() of its "convrot" when present; convrot_true: it is JSON true.
  std::optional<std::string> convrot_repr{};
  bool convrot_true = false;

  // is_legacy_minimax_h3_int8_config would return True or raise: the
  // declaration names quant_method "int8".
  bool declares_legacy_int8() const { return type_error_source.empty() && quant_method == "int8"; }
  // It returns True: the checkpoint is read as a legacy INT8 checkpoint.
  bool legacy_int8() const { return declares_legacy_int8() && convrot_true; }
};

// The config.json at `path` whose bytes are `bytes`, read as
// json.load(open(path, encoding="utf-8")) and resolve_checkpoint_quant_spec.
ModelConfig read_model_config(std::string path, std::string_view bytes);

}  // namespace safespec::quant
