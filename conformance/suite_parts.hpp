// Internal to the suite (suite*.cpp): a draft file before its expectations
// are derived, the parts that produce drafts, and the small helpers they
// share. Nothing outside conformance/ includes this.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/rule_id.hpp"

namespace safespec::conformance::detail {

using Bytes = std::vector<std::uint8_t>;

struct Draft {
  // Path under the suite directory. Its accept_/reject_ is what the author
  // means (accept_: every consumer reads it; reject_: strict rejects it),
  // checked when the suite is built; the file's final prefix comes from the
  // verdicts (conformance::name_prefix). impldef_ is kept as written.
  std::string name;
  std::string description;
  Bytes bytes;
  // Index cases: further files beside `name` (paths relative to its folder).
  std::vector<std::pair<std::string, Bytes>> beside;
  // What the file is built to break: the strict findings (errors and
  // warnings) must be exactly these (checked when the suite is built).
  std::vector<RuleId> rules;
  // Rules the file illustrates that no reader can report (a writer-side
  // rule such as ST-TENSOR-NAME-RESERVED): listed in the manifest beside the
  // findings, never among them.
  std::vector<RuleId> writer_only;
};

// The parts, each a list of drafts in no particular order.
std::vector<Draft> container_drafts();  // the container mutation catalogue, valid random files, every dtype
std::vector<Draft> tricky_drafts();     // hand-written byte strings: the format reference's corners
std::vector<Draft> quant_drafts();      // quantized checkpoints: the quant mutation catalogue, every format
std::vector<Draft> data_drafts();       // the --data rules: valid layers with one bad value
std::vector<Draft> index_drafts();      // shard indexes with their shards
std::vector<Draft> legacy_int8_drafts();  // legacy INT8 checkpoints with their config.json

// The rules `safespec check --profile strict` reports for files in memory
// (the header-level pipeline: check_memory), distinct, in RuleId order.
std::vector<RuleId> strict_rules(const std::vector<std::pair<std::string, Bytes>>& files);
std::vector<RuleId> strict_rules(const Bytes& file);
// strict_rules without the findings that only versions other than their
// consumers' defaults act on (an older sglang's refusal of a mix the
// current one takes): what a file breaks for the versions most users run.
std::vector<RuleId> default_rules(const Bytes& file);

// A value drawn from `gen` with a fixed key: the same on every run.
template <class T>
T sample(const rc::Gen<T>& gen, std::uint64_t key, int size = 20) {
  return gen(rc::Random(key), size).value();
}

// Key for the attempt-th draw of sample `s` of item `item` in a part.
std::uint64_t key_of(std::string_view part, std::uint64_t item, std::uint64_t s, std::uint64_t attempt);

// 8-byte little-endian N, then the header text, then the data bytes.
Bytes with_length(std::uint64_t n, std::string_view header, const Bytes& data = {});
Bytes with_header(std::string_view header, const Bytes& data = {});
Bytes zeros(std::size_t n);
Bytes f32_bytes(const std::vector<float>& values);

std::string rule_text(RuleId r);  // its catalogue name
bool has_error(const std::vector<RuleId>& rules);  // any of severity Error

}  // namespace safespec::conformance::detail
