#include "spec/index_rules.hpp"

#include <numeric>
#include <string_view>
#include <vector>

#include "spec/checked_math.hpp"
#include "spec/finding_sink.hpp"
#include "spec/name_index.hpp"
#include "spec/quote.hpp"

namespace safespec {


bool is_plain_shard_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

namespace {

// Where a tensor name is listed and found. The names are the index's entries
// and the shards' tensors (owned by the index and the shard models, which
// outlive this) in one NameIndex walk (open addressing, keyed SipHash: an
// index is input too, and must not be able to make its names collide), so
// each name is hashed once for both directions of the check (index -> shard
// and shard -> index). The index of a 1,000-shard checkpoint names 64,000
// tensors; two node-based maps that copied every name were most of check's
// sequential time, and a lookup at a time, each waiting for its slot, still
// a sixth of it (issue 14). A NameIndex holds fewer than 2^32 - 1 names;
// these are the tensors of headers held in memory at once, far fewer.
struct Where {
  const std::string* listed = nullptr;  // the shard weight_map names (its first entry)
  const std::string* home = nullptr;    // the shard that holds it (the first one read)
};

}  // namespace

Findings check_index(const ShardIndex& index, const ShardContents& shards) {
  FindingSink out;
  // Names 0..W-1: the weight_map's entries; then every readable shard's
  // tensors, shards in order. first[k]: the number of name k's first
  // appearance, whose Where stands for every appearance.
  const std::size_t listed_count = index.weight_map.size();
  std::vector<std::string_view> names;
  names.reserve(listed_count);
  for (const auto& entry : index.weight_map) names.push_back(entry.first);
  for (const auto& [shard, state] : shards)
    if (state.model)
      for (const TensorEntry& t : state.model->header.tensors) names.push_back(t.name);
  std::vector<std::size_t> first(names.size());
  std::iota(first.begin(), first.end(), std::size_t{0});
  NameIndex seen;
  seen.for_each_repeat(names.size(), [&](std::size_t k) { return names[k]; }, [&](std::size_t k, std::size_t f) {
    first[k] = f;
    return true;
  });
  std::vector<Where> where(names.size());
  for (std::size_t i = 0; i < listed_count; ++i) {
    Where& w = where[first[i]];
    if (!w.listed) w.listed = &index.weight_map[i].second;
  }

  std::uint64_t total = 0;
  bool total_overflows = false;
  std::size_t k = listed_count;  // the next shard tensor's number
  for (const auto& [shard, state] : shards) {
    if (!state.model) {
      out.add(RuleId::IndexShardMissing, Place::shard(shard),
              "expected a readable safetensors shard, found: " + state.problem);
      continue;
    }
    for (const TensorEntry& t : state.model->header.tensors) {
      if (t.end >= t.begin) {
        const auto sum = checked_add(total, t.end - t.begin);
        if (!sum) total_overflows = true;
        else total = *sum;
      }
      Where& w = where[first[k++]];
      if (w.home) {
        out.add(RuleId::IndexTensorInTwoShards, Place::tensor(t.name),
                "expected the tensor in one shard, found it in " + quote_name(*w.home) + " and " +
                    quote_name(shard));
        continue;
      }
      w.home = &shard;
      if (!w.listed)
        out.add(RuleId::IndexTensorUnlisted, Place::tensor(t.name),
                "expected weight_map to list the tensor of shard " + quote_name(shard) + ", found no entry");
      else if (*w.listed != shard)
        out.add(RuleId::IndexTensorUnlisted, Place::tensor(t.name),
                "expected weight_map to name shard " + quote_name(shard) + " for the tensor, found " +
                    quote_name(*w.listed));
    }
  }
  // Consecutive entries often name the same shard (an index written shard by
  // shard lists each one's tensors together; one in tensor-name order still
  // has runs, a layer's tensors), so the shard is looked up once per run of
  // entries naming it: a lookup per entry, some ten string comparisons each,
  // was about 7% of `check` on a 1,000-shard index (issue 14).
  const std::string* run_shard = nullptr;
  const ShardState* run_state = nullptr;
  for (std::size_t i = 0; i < index.weight_map.size(); ++i) {
    const auto& [tensor, shard] = index.weight_map[i];
    if (!run_shard || *run_shard != shard) {
      const auto s = shards.find(shard);
      run_shard = &shard;
      run_state = s == shards.end() ? nullptr : &s->second;
    }
    if (!run_state || !run_state->model) continue;  // reported as a missing shard
    const Where& w = where[first[i]];
    if (!w.home || *w.home != shard)
      out.add(RuleId::IndexTensorMissing, Place::tensor(tensor),
              "expected the tensor in shard " + quote_name(shard) + " as weight_map says, found it absent there");
  }
  // Decided only with every shard read (index_total_size_unchecked says so otherwise).
  const bool total_known = !index_total_size_unchecked(index, shards);
  if (index.total_size && total_known && total_overflows)
    out.add(RuleId::IndexTotalSize, Place::index_total_size(),
            "expected the sum of the shards' tensor sizes, found that it exceeds 2^64-1 bytes");
  else if (index.total_size && total_known && *index.total_size != total)
    out.add(RuleId::IndexTotalSize, Place::index_total_size(),
            "expected the sum of the shards' tensor sizes, " + std::to_string(total) + " bytes, found " +
                std::to_string(*index.total_size));
  return std::move(out).finish(Place::index());
}

std::optional<Unchecked> index_total_size_unchecked(const ShardIndex& index, const ShardContents& shards) {
  if (!index.total_size) return std::nullopt;
  for (const auto& [shard, state] : shards)
    if (!state.model)
      return Unchecked{"ST-INDEX-TOTAL-SIZE (metadata.total_size " + std::to_string(*index.total_size) + ")",
                       "shard " + quote_name(shard) + " could not be read, so the sum of the shards' sizes is unknown",
                       {}};
  return std::nullopt;
}

}  // namespace safespec
