#include "src/oracles/oracles_index.hpp"

#include <algorithm>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "spec/quote.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/io/index_writer.hpp"
#include "src/parse/shard_index.hpp"

namespace safespec {

namespace {

using RulePlace = std::pair<RuleId, std::string>;  // a finding's rule and readable place

std::string text_of(const Findings& fs) {
  std::string out;
  for (const Finding& f : fs) out += "\n  " + std::string(rule_name(f.rule)) + " at " + f.where.text() + ": " + f.message;
  return out.empty() ? " none" : out;
}

// check_index on `shards` gives exactly the findings at `expected` (in any
// order), each an error with a message, and the same findings twice, and
// again with each shard's tensors located and summed beforehand (as the
// shards' threads of check_shard_index do).
std::optional<std::string> findings_differ(const ShardIndex& index, const ShardContents& shards,
                                           std::vector<RulePlace> expected, std::string_view case_name) {
  const Findings got = check_index(index, shards);
  if (check_index(index, shards) != got) return std::string(case_name) + ": check_index is not deterministic";
  ShardContents located = shards;
  for (auto& [name, state] : located)
    if (state.model) {
      state.located = locate_tensors(index, *state.model);
      state.bytes = shard_bytes(*state.model);
    }
  if (check_index(index, located) != got)
    return std::string(case_name) + ": check_index differs with the shards' tensors located and summed beforehand:" + text_of(got);
  std::vector<RulePlace> places;
  for (const Finding& f : got) {
    if (f.severity != Severity::Error || f.where.empty() || f.message.empty())
      return std::string(case_name) + ": a finding without a place, message or error severity:" + text_of(got);
    places.emplace_back(f.rule, f.where.text());
  }
  std::sort(places.begin(), places.end());
  std::sort(expected.begin(), expected.end());
  if (places == expected) return std::nullopt;
  std::string want;
  for (const auto& [rule, where] : expected) want += "\n  " + std::string(rule_name(rule)) + " at " + where;
  return std::string(case_name) + ": expected findings" + (want.empty() ? " none" : want) + "\nfound" + text_of(got);
}

}  // namespace

std::optional<std::string> index_breaks_laws(std::span<const std::uint8_t> bytes) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const Result<ShardIndex> parsed = parse_shard_index(text);
  const Result<ShardIndex> again = parse_shard_index(text);
  if (!(parsed == again)) return "parse_shard_index is not deterministic";
  // The plain reader decides only what simdjson's DOM would decide the same.
  if (!(parsed == parse_shard_index_dom(text)))
    return "the plain index reader and simdjson's DOM disagree: " +
           (parsed ? std::string("the plain reader accepts") : "the plain reader: " + parsed.error().message);
  if (!parsed) {
    const Error& e = parsed.error();
    if (e.rule != RuleId::IndexJson || e.where.empty() || e.message.empty())
      return "a refusal that is not an ST-INDEX-JSON error with a place and message: " +
             std::string(rule_name(e.rule)) + " at '" + e.where.text() + "': " + e.message;
    return std::nullopt;
  }
  const ShardIndex& index = parsed.value();
  std::unordered_set<std::string_view> tensors;
  for (std::size_t i = 0; i < index.size(); ++i) {
    const std::string_view tensor = index.tensor(i);
    const std::string& shard = index.shard(i);
    if (!is_plain_shard_name(shard)) return "accepted the shard path " + quote_name(shard);
    if (!tensors.insert(tensor).second) return "accepted the tensor " + quote_name(tensor) + " twice";
  }
  const std::string canonical = canonical_index_json(index);
  const Result<ShardIndex> back = parse_shard_index(canonical);
  if (!back) return "canonical text does not parse: " + back.error().message + "\n" + canonical;
  if (back.value() != index) return "canonical text parses to another index:\n" + canonical;

  // The shards, in memory: each holds exactly the tensors weight_map gives it,
  // U8 tensors of 0-4 bytes laid end to end.
  ShardContents shards;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < index.size(); ++i) {
    const std::string_view tensor = index.tensor(i);
    std::optional<Model>& slot = shards[index.shard(i)].model;
    Model& m = slot ? *slot : slot.emplace();
    const std::uint64_t begin = m.header.tensors.empty() ? 0 : m.header.tensors.back().end;
    const std::uint64_t size = tensor.size() % 5;
    m.header.tensors.push_back(TensorEntry{tensor, Dtype::U8, {size}, begin, begin + size});
    total += size;
  }
  std::vector<RulePlace> expected;
  if (index.total_size && *index.total_size != total) expected.emplace_back(RuleId::IndexTotalSize, Place::index_total_size().text());
  if (auto why = findings_differ(index, shards, expected, "consistent shards")) return why;
  if (shards.empty()) return std::nullopt;

  const std::string& first = shards.begin()->first;
  ShardContents missing = shards;
  missing[first] = ShardState{std::nullopt, "cannot open: not in the in-memory view", {}, std::nullopt};
  if (auto why = findings_differ(index, missing, {{RuleId::IndexShardMissing, "shard " + quote_name(first)}},
                                 "first shard missing"))
    return why;

  std::string unlisted = "unlisted";
  while (tensors.count(unlisted)) unlisted += '_';
  ShardContents extra = shards;
  TensorEntry& last = extra[first].model->header.tensors.back();
  extra[first].model->header.tensors.push_back(TensorEntry{unlisted, Dtype::U8, {0}, last.end, last.end});
  expected.emplace_back(RuleId::IndexTensorUnlisted, Place::tensor(unlisted).text());
  if (auto why = findings_differ(index, extra, expected, "an unlisted tensor")) return why;

  if (shards.size() < 2) return std::nullopt;
  const TensorEntry copy = shards.begin()->second.model->header.tensors.front();
  ShardContents twice = extra;
  std::next(twice.begin())->second.model->header.tensors.push_back(TensorEntry{copy.name, Dtype::U8, {0}, 0, 0});
  expected.emplace_back(RuleId::IndexTensorInTwoShards, Place::tensor(copy.name).text());
  return findings_differ(index, twice, expected, "a tensor in two shards");
}

}  // namespace safespec
