// `safespec linear` and `safespec dequant`: one quantized layer through the
// reference numerics (src/commands/linear.hpp).
#include <memory>

#include "cli/command.hpp"
#include "src/commands/linear.hpp"

namespace safespec::cli {

namespace {
// asym_w4a8_int8 without a weight_codebook: uniform codes (the eager
// reference), or comfy-kitchen's frozen Lloyd-Max table, which its CUDA
// stream kernel is said to have built in (unverified: docs/spec/numerics.md).
void add_codebook_option(CLI::App* cmd, bool& frozen) {
  cmd->add_option_function<std::string>(
         "--codebook", [&frozen](const std::string& v) { frozen = v == "frozen"; },
         "a W4A8 layer without weight_codebook: uniform (codes - 8, the eager backend; the default) or frozen "
         "(comfy-kitchen's built-in 16-level table)")
      ->check(CLI::IsMember({"uniform", "frozen"}));
}
}  // namespace

Command register_linear(CLI::App& app) {
  auto req = std::make_shared<LinearRequest>();
  CLI::App* linear = app.add_subcommand(
      "linear", "Run one quantized layer's reference linear on an input (exit 1: the layer fails its invariants)");
  linear->add_option("checkpoint", req->checkpoint, "a safetensors checkpoint file")->required();
  linear->add_option("--layer", req->layer, "the layer prefix P (marker P.comfy_quant)")->required();
  linear->add_option("--input", req->input,
                     "x [M, K] in F32, BF16 or F16: a safetensors file, or an .npy file ('<f4', '<f2', or '<u2' "
                     "bf16 bit patterns with --input-dtype BF16)")
      ->required();
  linear->add_option_function<std::string>(
            "--input-dtype",
            [req](const std::string& t) {
              for (auto f : {numerics::FloatType::F32, numerics::FloatType::BF16, numerics::FloatType::F16})
                if (numerics::name(f) == t) req->input_dtype = f;
            },
            "the dtype of an .npy input's values: F32, F16, or BF16 for '<u2' bit patterns (.npy has no bfloat16)")
      ->check(CLI::IsMember({"F32", "BF16", "F16"}));
  linear->add_option("--input-tensor", req->input_tensor, "the tensor of --input to use (default: its only one)");
  linear->add_option("--out", req->out,
                     "where to write y [M, N] (dtype of x): safetensors, or .npy (BF16 as '<u2' bit patterns)")
      ->required();
  add_semantics_option(linear, req->semantics, "cuda (comfy-kitchen's CUDA kernels, the default) or eager");
  linear->add_option("--dump", req->dump_dir, "write every intermediate as NAME.safetensors into this directory");
  add_codebook_option(linear, req->frozen_codebook);
  return Command{linear, [req] { return run_linear(*req); }};
}

Command register_dequant(CLI::App& app) {
  auto req = std::make_shared<DequantRequest>();
  CLI::App* dequant = app.add_subcommand("dequant", "Write a quantized layer's weight as F32 in the original basis");
  dequant->add_option("checkpoint", req->checkpoint, "a safetensors checkpoint file")->required();
  dequant->add_option("--layer", req->layer, "the layer prefix P")->required();
  dequant->add_option("--out", req->out, "where to write `weight` [N, K] F32: safetensors, or .npy ('<f4')")->required();
  add_codebook_option(dequant, req->frozen_codebook);
  return Command{dequant, [req] { return run_dequant(*req); }};
}

}  // namespace safespec::cli
