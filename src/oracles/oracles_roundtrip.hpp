// The roundtrip fuzzer's oracle: a model described in memory, written
// by the canonical writer, read back and checked. Kept apart from
// src/oracles/oracles.cpp so each file stays small.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/parse/header_parser.hpp"
#include "src/io/writer.hpp"

namespace safespec {

struct OwnedTensor {
  std::string name;
  Dtype dtype = Dtype::U8;
  std::vector<std::uint64_t> shape;
  std::vector<std::uint8_t> data;
};

// What a producer wants written: tensors in any order (marker tensors
// "P.comfy_quant" among them) and __metadata__ (with _quantization_metadata
// when the model is quantized), or none.
struct ModelDescription {
  std::vector<OwnedTensor> tensors;
  std::optional<Metadata> metadata;
};

// The rules of the writer's refusals (writer.hpp) that `d` breaks: empty
// exactly when the writer must accept it.
std::vector<RuleId> description_violations(const ModelDescription& d);

// The model the canonical writer must produce for an acceptable `d` (W1-W5):
// tensors in W1 order with contiguous offsets, metadata sorted, the padded
// canonical header's length and the whole file's size.
Model expected_model(const ModelDescription& d);

// Laws: serialize refuses `d` exactly when description_violations is
// non-empty, and then with one of those rules. When it writes: the file has
// expected_model's size; the fast parser and the reference reader both give
// expected_model; every tensor's bytes are its data. Verdicts: under every
// profile, the spec functions on the model in memory (check_model, the
// container verdicts, quant::analyze over the description's marker bytes,
// judge, apply_profile) give the same report (findings with their verdicts,
// consumer outcomes) as check_memory on the written bytes.
std::optional<std::string> model_roundtrip_fails(const ModelDescription& d, HeaderParser& parser);

}  // namespace safespec
