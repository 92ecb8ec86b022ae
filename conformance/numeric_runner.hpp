// `safespec conformance numeric`: runs an
// implementation of the W4A8 linear over the golden vectors of
// corpus/vectors/ (tools/make_vectors.cpp: per vector a directory with
// layer.safetensors holding the marked layer "lin", x.safetensors, and
// y_eager.safetensors / y_cuda.safetensors, tensor "y") and compares what it
// writes with the expected output of the chosen semantics. The directory may
// also be one such vector itself, as `safespec vectors` writes it; {layer} is
// each layer file's one marked layer, whatever its prefix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "conformance/runner.hpp"
#include "spec/numerics/w4a8_reference.hpp"

namespace safespec::conformance {

// The golden vectors' layer prefix, and the fallback when a layer file has
// no single marker.
inline constexpr const char* kVectorLayer = "lin";

struct NumericRequest {
  std::filesystem::path vectors_dir = "corpus/vectors";
  // "COMMAND {checkpoint} {layer} {input} {output}": {checkpoint}, {input}
  // and {output} are required, {layer} (the vector's marked layer, "lin" in
  // corpus/vectors) is optional.
  std::string impl;
  numerics::Semantics semantics = numerics::Semantics::Cuda;
  std::uint64_t ulps = 0;  // accepted distance in ulps of T; 0: bit-exact
  // Also accepted, as numpy.isclose: |got - expected| <= atol + rtol * |expected|
  // (src/commands/compare.hpp's Tolerance).
  double atol = 0, rtol = 0;
  unsigned jobs = 1;
  double timeout_s = 60;
};

// One line per vector that has an output for the semantics, in name order:
//   g16_c256_f32_bias: F32 [3, 8]: bit-exact: ok
//   g4_c256_bf16_correction: BF16 [3, 8]: within 1 ulp: 2/24 elements differ, first at [0, 5]: expected …, got …: FAIL
//   g8_c256_bf16_plain: BF16 [3, 8]: max 7 ulps, max abs err 0.03125, max rel err 0.01: …, first at …;
//     ulps 0: 20, 1: 1, 2-3: 2, 4-15: 1, 16+: 0; 4/24 beyond the tolerance: FAIL
//   g16_c256_f16_codebook: exit status 1: FAIL
// then a summary line. Exit 0 when every vector is within `ulps` (and was
// written), 1 otherwise, 2 for a usage error (template, vectors directory).
// The implementation writes into a scratch directory removed afterwards.
CommandOutcome run_numeric(const NumericRequest& request,
                        const std::function<void(std::size_t done, std::size_t total)>& progress);

}  // namespace safespec::conformance
