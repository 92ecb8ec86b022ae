#include "spec/index_rules.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "spec/checked_math.hpp"
#include "spec/finding_sink.hpp"
#include "spec/name_index.hpp"
#include "spec/quote.hpp"

namespace safespec {


bool is_plain_shard_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

ShardIndex::ShardIndex(std::initializer_list<std::pair<std::string_view, std::string_view>> entries,
                       std::optional<std::uint64_t> total)
    : total_size(total) {
  reserve(entries.size());
  for (const auto& [tensor, shard] : entries)
    if (add(tensor, shard) != npos) throw std::invalid_argument("ShardIndex: a tensor listed twice");
}

void ShardIndex::reserve(std::size_t n) { entries_.reserve(n); }

std::size_t ShardIndex::add(std::string_view tensor, std::string_view shard) {
  // NameIndex numbers below 2^32 - 1 (an index is at most kMaxIndexBytes).
  if (entries_.size() >= kUnlisted) throw std::length_error("ShardIndex: 2^32 - 1 entries");
  const auto tensor_at = [&](std::size_t i) { return entries_[i].tensor.view(); };
  if (const std::size_t earlier = tensors_.find_or_insert(tensor, entries_.size(), tensor_at); earlier != npos)
    return earlier;
  append(tensor, shard);
  return npos;
}

void ShardIndex::append(std::string_view tensor, std::string_view shard) {
  if (entries_.size() >= kUnlisted) throw std::length_error("ShardIndex: 2^32 - 1 entries");
  entries_.push_back(Entry{Name::borrowed(text_.store(tensor)), intern(shard)});
}

std::size_t ShardIndex::seal() {
  std::size_t repeat = npos;
  tensors_.for_each_repeat(entries_.size(), [&](std::size_t i) { return entries_[i].tensor.view(); },
                           [&](std::size_t i, std::size_t) {
                             repeat = i;
                             return false;
                           });
  return repeat;
}

std::uint32_t ShardIndex::intern(std::string_view shard) {
  // Entries of one shard come in runs (an index is written shard by shard,
  // or in name order, a layer's tensors together): the last shard first.
  if (!entries_.empty() && shards_[entries_.back().shard] == shard) return entries_.back().shard;
  const auto shard_at = [&](std::size_t i) -> std::string_view { return shards_[i]; };
  const std::size_t known = shard_names_.find_or_insert(shard, shards_.size(), shard_at);
  if (known != npos) return static_cast<std::uint32_t>(known);
  shards_.emplace_back(shard);
  return static_cast<std::uint32_t>(shards_.size() - 1);
}

std::size_t ShardIndex::find(std::string_view tensor) const {
  return tensors_.find(tensor, [&](std::size_t i) { return entries_[i].tensor.view(); });
}

std::size_t ShardIndex::find_shard(std::string_view name) const {
  return shard_names_.find(name, [&](std::size_t i) -> std::string_view { return shards_[i]; });
}

bool operator==(const ShardIndex& a, const ShardIndex& b) {
  if (a.size() != b.size() || a.total_size != b.total_size) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a.tensor(i) != b.tensor(i) || a.shard(i) != b.shard(i)) return false;
  return true;
}

std::vector<std::uint32_t> locate_tensors(const ShardIndex& index, const Model& model) {
  std::vector<std::uint32_t> out;
  out.reserve(model.header.tensors.size());
  // A shard's entries are mostly listed in its header's order (transformers
  // writes weight_map sorted by name, a shard's header is sorted by name
  // within a dtype): the entry after the last one found is tried first, a
  // compare instead of a hash and a probe. Names are unique in the index, so
  // a guess that compares equal is the entry find() would return.
  std::size_t guess = ShardIndex::npos;
  for (const TensorEntry& t : model.header.tensors) {
    const std::size_t e = guess < index.size() && index.tensor(guess) == t.name ? guess : index.find(t.name);
    out.push_back(e == ShardIndex::npos ? ShardIndex::kUnlisted : static_cast<std::uint32_t>(e));
    guess = e == ShardIndex::npos ? ShardIndex::npos : e + 1;
  }
  return out;
}

ShardBytes shard_bytes(const Model& model) {
  ShardBytes out;
  for (const TensorEntry& t : model.header.tensors)
    if (t.end >= t.begin) {
      const auto sum = checked_add(out.sum, t.end - t.begin);
      if (!sum) out.overflows = true;
      else out.sum = *sum;
    }
  return out;
}

// Each shard's tensors are located in the index (an entry's number, found by
// the index's own table: read where the shard was read, or here), so no name
// is hashed twice; only tensors no entry lists are tracked by name here, to
// find one in two shards. A name's first shard (in ShardContents order) is
// its home: every later one is a second shard.
Findings check_index(const ShardIndex& index, const ShardContents& shards) {
  FindingSink out;
  using Slot = ShardContents::value_type;
  // Per shard number of the index: its state, if it was read at all.
  std::vector<const Slot*> slot_of(index.shards().size(), nullptr);
  for (const Slot& s : shards)
    if (const std::size_t n = index.find_shard(s.first); n != ShardIndex::npos) slot_of[n] = &s;
  std::vector<const std::string*> home(index.size(), nullptr);  // per entry
  NameIndex unlisted;                                          // tensors no entry lists, by name
  std::vector<std::string_view> unlisted_names;
  std::vector<const std::string*> unlisted_home;

  std::uint64_t total = 0;
  bool total_overflows = false;
  for (const auto& [shard, state] : shards) {
    if (!state.model) {
      out.add(RuleId::IndexShardMissing, Place::shard(shard),
              "expected a readable safetensors shard, found: " + state.problem);
      continue;
    }
    const std::vector<TensorEntry>& tensors = state.model->header.tensors;
    const bool usable = state.located.size() == tensors.size() &&
                        std::all_of(state.located.begin(), state.located.end(), [&](std::uint32_t e) {
                          return e == ShardIndex::kUnlisted || e < index.size();
                        });
    const std::vector<std::uint32_t> worked_out = usable ? std::vector<std::uint32_t>{} : locate_tensors(index, *state.model);
    const std::vector<std::uint32_t>& located = usable ? state.located : worked_out;
    const std::size_t number = index.find_shard(shard);
    // The sum only matters beside a total_size.
    if (index.total_size) {
      const ShardBytes b = state.bytes ? *state.bytes : shard_bytes(*state.model);
      const auto sum = checked_add(total, b.sum);
      if (b.overflows || !sum) total_overflows = true;
      else total = *sum;
    }
    for (std::size_t j = 0; j < tensors.size(); ++j) {
      // A located tensor's name is its entry's: its own entry is read only
      // when no entry lists it.
      const std::uint32_t e = located[j];
      const std::string_view name = e == ShardIndex::kUnlisted ? std::string_view(tensors[j].name) : index.tensor(e);
      const std::string** first_home;
      if (e == ShardIndex::kUnlisted) {
        const std::size_t earlier = unlisted.find_or_insert(name, unlisted_names.size(),
                                                            [&](std::size_t i) { return unlisted_names[i]; });
        if (earlier == NameIndex::npos) {
          unlisted_names.push_back(name);
          unlisted_home.push_back(nullptr);
        }
        first_home = &unlisted_home[earlier == NameIndex::npos ? unlisted_home.size() - 1 : earlier];
      } else {
        first_home = &home[e];
      }
      if (*first_home) {
        out.add(RuleId::IndexTensorInTwoShards, Place::tensor(name),
                "expected the tensor in one shard, found it in " + quote_name(**first_home) + " and " +
                    quote_name(shard));
        continue;
      }
      *first_home = &shard;
      if (e == ShardIndex::kUnlisted)
        out.add(RuleId::IndexTensorUnlisted, Place::tensor(name),
                "expected weight_map to list the tensor of shard " + quote_name(shard) + ", found no entry");
      else if (index.shard_number(e) != number)
        out.add(RuleId::IndexTensorUnlisted, Place::tensor(name),
                "expected weight_map to name shard " + quote_name(shard) + " for the tensor, found " +
                    quote_name(index.shard(e)));
    }
  }
  for (std::size_t i = 0; i < index.size(); ++i) {
    const Slot* slot = slot_of[index.shard_number(i)];
    if (!slot || !slot->second.model) continue;  // reported as a missing shard
    // Map keys are unique: the same key is the same shard.
    if (home[i] != &slot->first)
      out.add(RuleId::IndexTensorMissing, Place::tensor(index.tensor(i)),
              "expected the tensor in shard " + quote_name(index.shard(i)) + " as weight_map says, found it absent there");
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
