// `safespec linear` and `safespec dequant`: one
// layer of a checkpoint through the reference numerics, with every
// intermediate written out on request so a kernel author can find the first
// stage where a kernel departs.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "spec/numerics/matrix.hpp"
#include "spec/numerics/w4a8_reference.hpp"
#include "spec/result.hpp"
#include "src/commands/command_outcome.hpp"
#include "src/io/writer.hpp"

namespace safespec {

struct LinearRequest {
  std::string checkpoint;
  std::string layer;
  std::string input;
  std::string input_tensor;  // empty: the file's only tensor
  // For an .npy input: the dtype its array holds. .npy has no bfloat16, so
  // '<u2' bit patterns are read as BF16 only when this says so.
  std::optional<numerics::FloatType> input_dtype;
  std::string out;
  numerics::Semantics semantics = numerics::Semantics::Cuda;
  std::string dump_dir;  // empty: no dump
  // A W4A8 layer without weight_codebook decodes through
  // numerics::kW4a8FrozenCodebook instead of uniform codes (--codebook frozen).
  bool frozen_codebook = false;
};

CommandOutcome run_linear(const LinearRequest& r);

struct DequantRequest {
  std::string checkpoint;
  std::string layer;
  std::string out;
  bool frozen_codebook = false;  // as LinearRequest's
};

CommandOutcome run_dequant(const DequantRequest& r);

// numerics::w4a8_dequant (§5.10 with T = F32: eager.C2-eager.C3) as a
// matrix [N, K] in the original basis, computed by the fast path.
Result<deq::Mat<float>> w4a8_dequant_f32(const numerics::W4a8Layer& l);

// One tensor in its own file, for --out and --dump.
struct NamedTensor {
  std::string name;
  Dtype dtype;
  std::vector<std::uint64_t> shape;
  std::vector<std::uint8_t> bytes;
};

// The intermediates of one traced W4A8 call as `--dump` writes them (and the
// C API hands them out): names, dtypes and shapes of docs/spec/numerics.md,
// little-endian bytes, ending with y and y_ideal (F64). Empty without a trace.
Result<std::vector<NamedTensor>> w4a8_dump_tensors(const numerics::W4a8Layer& w, const numerics::Activations& a,
                                                   const numerics::W4a8Output& y, numerics::Semantics semantics);
// The same tensors from a given y_ideal [M, N]: what w4a8_dump_tensors
// returns with the fast w4a8_ideal_fast, and a test with the reference's.
std::vector<NamedTensor> w4a8_trace_tensors(const numerics::W4a8Layer& w, const numerics::Activations& a,
                                            const numerics::W4a8Output& y, numerics::Semantics semantics,
                                            std::span<const double> y_ideal);
// ... as views (what `linear --dump` writes, copying nothing it need not):
// the trace's tensors (all but y_ideal) and y_ideal's, each of the values'
// own bytes where they already are the file's, else of bytes encoded into
// `owned`, which must outlive the views.
using OwnedBytes = std::vector<std::vector<std::uint8_t>>;
std::vector<TensorView> w4a8_trace_views(const numerics::W4a8Layer& w, const numerics::Activations& a,
                                         const numerics::W4a8Output& y, numerics::Semantics semantics,
                                         OwnedBytes& owned);
TensorView y_ideal_view(const numerics::W4a8Layer& w, const numerics::Activations& a, std::span<const double> y_ideal,
                        OwnedBytes& owned);
// Writes a safetensors file of the tensors (canonical writer); an error
// message on failure.
std::optional<std::string> write_tensors(const std::string& path, const std::vector<NamedTensor>& tensors);
// The same for one tensor (not copied).
std::optional<std::string> write_tensor(const std::string& path, const NamedTensor& tensor);
// --out: an .npy file when the path ends in .npy (F32 as '<f4', F16 as '<f2',
// BF16 as '<u2' bit patterns), else a safetensors file of the one tensor.
std::optional<std::string> write_output(const std::string& path, const NamedTensor& tensor);

}  // namespace safespec
