// `safespec vectors`: one test vector (W4A8, W6A8 or svdquant_w4a4) for
// shapes a kernel author chooses (src/commands/vectors.hpp), replayable with
// `conformance numeric --vectors`.
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "spec/numerics/float_type.hpp"
#include "src/commands/vectors.hpp"

namespace safespec::cli {

namespace {

constexpr const char* kW4a8Name = "asym_w4a8_int8";
constexpr const char* kSvdquantName = "svdquant_w4a4";

// An option of the other format is a mistake, not something to ignore: a
// svdquant_w4a4 layer has no G, C, bits, codebook or correction, and a W4A8
// one no layout or rank.
std::optional<std::string> misplaced_option(const CLI::App& v, VectorFormat format) {
  const bool svd = format == VectorFormat::Svdquant;
  const std::vector<const char*> w4a8_only{"--group-size", "--convrot-groupsize", "--bits", "--codebook", "--correction"};
  const std::vector<const char*> svd_only{"--layout", "--rank"};
  for (const char* name : svd ? w4a8_only : svd_only)
    if (v.count(name) != 0)
      return std::string(name) + ": expected only with --format " + (svd ? kW4a8Name : kSvdquantName) +
             ", found it with --format " + (svd ? kSvdquantName : kW4a8Name);
  return std::nullopt;
}

std::string svdquant_summary(const VectorSpec& s, const std::string& out) {
  return out + ": layer '" + s.layer + "' svdquant_w4a4 N=" + std::to_string(s.n) + " K=" + std::to_string(s.k) +
         " R=" + std::to_string(s.rank) + (s.tile_packed ? " tile-packed" : " natural") + ", x [" + std::to_string(s.m) +
         ", " + std::to_string(s.k) + "] " + std::string(numerics::name(s.dtype)) +
         ", outputs: y_eager (F32; no y_cuda: the reference has one semantics)\n";
}

CommandOutcome run(const CLI::App& v, const VectorSpec& s, const std::string& out) {
  if (auto e = misplaced_option(v, s.format)) return {kExitUsage, "", "safespec vectors: " + *e + "\n", 0};
  if (auto e = vector_spec_error(s)) return {kExitUsage, "", "safespec vectors: " + *e + "\n", 0};
  auto written = write_vector(out, s);
  if (!written) return {kExitUsage, "", "safespec vectors: " + written.error() + "\n", 0};
  if (s.format == VectorFormat::Svdquant) return {kExitOk, svdquant_summary(s, out), "", 0};
  std::string text = out + ": layer '" + s.layer + "' asym_w4a8_int8 N=" + std::to_string(s.n) +
                     " K=" + std::to_string(s.k) + " G=" + std::to_string(s.group_size) +
                     " C=" + std::to_string(s.convrot_groupsize) + (s.bits == 6 ? " 6-bit (W6A8)" : "") + ", x [" + std::to_string(s.m) + ", " +
                     std::to_string(s.k) + "] " + std::string(numerics::name(s.dtype)) + ", outputs:";
  for (const std::string& o : written.value().outputs) text += " " + o;
  if (s.convrot_groupsize != 256) text += " (no y_cuda: the CUDA kernel takes only C = 256)";
  return {kExitOk, text + "\n", "", 0};
}

}  // namespace

Command register_vectors(CLI::App& app) {
  struct Args {
    VectorSpec spec;
    std::string out;
  };
  auto a = std::make_shared<Args>();
  CLI::App* v = app.add_subcommand(
      "vectors",
      "Write a W4A8 (or W6A8, or svdquant_w4a4) layer, an input and the reference outputs of its semantics into a folder");
  v->add_option("out", a->out, "the folder (created; layer.safetensors, x.safetensors, y_eager/y_cuda.safetensors)")
      ->required();
  v->add_option_function<std::string>(
       "--format",
       [a](const std::string& f) { a->spec.format = f == kSvdquantName ? VectorFormat::Svdquant : VectorFormat::W4a8; },
       "the layer's format: asym_w4a8_int8 (default) or svdquant_w4a4")
      ->check(CLI::IsMember({kW4a8Name, kSvdquantName}));
  v->add_option("--m", a->spec.m, "rows of x")->required()->check(whole_number());
  v->add_option("--n", a->spec.n, "output features")->required()->check(whole_number());
  v->add_option("--k", a->spec.k, "input features (W4A8: a multiple of 16, G and C; svdquant_w4a4: of 64)")->required()->check(whole_number());
  v->add_option("--group-size", a->spec.group_size, "G (default 16)")->check(whole_number());
  v->add_option("--convrot-groupsize", a->spec.convrot_groupsize,
                "C, a power of 4 (default 256; only 256 has a cuda output)")
      ->check(whole_number());
  v->add_option_function<std::string>(
       "--dtype",
       [a](std::string t) {
         for (char& c : t) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
         for (auto f : {numerics::FloatType::F32, numerics::FloatType::BF16, numerics::FloatType::F16})
           if (numerics::name(f) == t) a->spec.dtype = f;
       },
       "the dtype of x and y: F32, BF16 (default) or F16, in either case")
      ->check(CLI::IsMember({"F32", "BF16", "F16"}, CLI::ignore_case));
  v->add_option("--seed", a->spec.seed, "the generator's seed (default 0)")->check(whole_number());
  v->add_option("--layer", a->spec.layer, "the layer prefix (default lin)");
  v->add_option("--bits", a->spec.bits, "4 (default) or 6 (W6A8: a 3K/4-wide weight, uniform codes)");
  v->add_flag("--codebook", a->spec.codebook, "add a weight_codebook");
  v->add_flag("--correction", a->spec.correction, "add a weight_correction");
  v->add_flag("--bias", a->spec.bias, "add a bias");
  v->add_option_function<std::string>(
       "--layout", [a](const std::string& l) { a->spec.tile_packed = l == "tile"; },
       "svdquant_w4a4: natural (default) or tile (kitchen_tile_packed_w4a4; N a multiple of 128)")
      ->check(CLI::IsMember({"natural", "tile"}));
  v->add_option("--rank", a->spec.rank, "svdquant_w4a4: R, the low-rank branch's rank (default 4)")->check(whole_number());
  return Command{v, [a, v] { return run(*v, a->spec, a->out); }};
}

}  // namespace safespec::cli
