// The shard index's model and rules (spec/index_rules.hpp): ShardIndex keeps
// weight_map as interned shard numbers and arena names behind one hash table,
// and check_index works from each shard's tensors located in that table,
// precomputed on the shards' threads or not. The laws: ShardIndex reads as
// the list of (tensor, shard) pairs it was given, first entries kept; and
// check_index gives exactly the findings of the rules written out plainly
// (ST-INDEX-SHARD-MISSING, -TENSOR-IN-TWO-SHARDS, -TENSOR-UNLISTED,
// -TENSOR-MISSING, -TOTAL-SIZE), whether `located` and `bytes` were given
// or not.
#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "props/catch.hpp"
#include "spec/index_rules.hpp"
#include "spec/name_hash.hpp"
#include "spec/quote.hpp"
#include "spec/rule_catalogue.hpp"
#include "src/parse/name_repeats.hpp"

using namespace safespec;

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

// Few names, so that repeats, shared tensors and unlisted ones are common.
std::string small_name(const char* prefix, int count) { return prefix + std::to_string(*rc::gen::inRange(0, count)); }

Pairs gen_pairs() {
  Pairs out;
  const int n = *rc::gen::inRange(0, 12);
  for (int i = 0; i < n; ++i) out.emplace_back(small_name("t", 8), small_name("s", 4));
  return out;
}

// The rules as the catalogue states them, over plain maps: shards in map
// order, a name's first shard its home; then weight_map in order.
std::vector<std::string> plain_findings(const Pairs& entries, std::optional<std::uint64_t> total_size,
                                        const ShardContents& shards) {
  std::vector<std::string> out;
  const auto line = [&](RuleId r, const Place& p, const std::string& m) {
    out.push_back(std::string(rule_name(r)) + " | " + p.text() + " | " + m);
  };
  std::map<std::string, std::string> listed, home;
  for (const auto& [t, s] : entries) listed.emplace(t, s);
  std::uint64_t total = 0;
  bool all_read = true;
  for (const auto& [shard, state] : shards) {
    if (!state.model) {
      all_read = false;
      line(RuleId::IndexShardMissing, Place::shard(shard), "expected a readable safetensors shard, found: " + state.problem);
      continue;
    }
    for (const TensorEntry& t : state.model->header.tensors) {
      total += t.end - t.begin;
      const std::string name = t.name.str();
      if (home.count(name)) {
        line(RuleId::IndexTensorInTwoShards, Place::tensor(name),
             "expected the tensor in one shard, found it in " + quote_name(home[name]) + " and " + quote_name(shard));
        continue;
      }
      home[name] = shard;
      if (!listed.count(name))
        line(RuleId::IndexTensorUnlisted, Place::tensor(name),
             "expected weight_map to list the tensor of shard " + quote_name(shard) + ", found no entry");
      else if (listed[name] != shard)
        line(RuleId::IndexTensorUnlisted, Place::tensor(name),
             "expected weight_map to name shard " + quote_name(shard) + " for the tensor, found " +
                 quote_name(listed[name]));
    }
  }
  for (const auto& [t, s] : entries) {
    const auto it = shards.find(s);
    if (it == shards.end() || !it->second.model) continue;
    if (!home.count(t) || home[t] != s)
      line(RuleId::IndexTensorMissing, Place::tensor(t),
           "expected the tensor in shard " + quote_name(s) + " as weight_map says, found it absent there");
  }
  if (total_size && all_read && *total_size != total)
    line(RuleId::IndexTotalSize, Place::index_total_size(),
         "expected the sum of the shards' tensor sizes, " + std::to_string(total) + " bytes, found " +
             std::to_string(*total_size));
  return out;
}

std::vector<std::string> lines(const Findings& fs) {
  std::vector<std::string> out;
  for (const Finding& f : fs) out.push_back(std::string(rule_name(f.rule)) + " | " + f.where.text() + " | " + f.message);
  return out;
}

}  // namespace

TEST_CASE("ShardIndex reads as the pairs it was given, first entries kept", "[prop][index]") {
  rc::prop("add, find, shards, find_shard, copies", [] {
    const Pairs given = gen_pairs();
    std::optional<ShardIndex> index(std::in_place);
    Pairs kept;
    std::vector<std::string> shards;
    for (const auto& [t, s] : given) {
      std::size_t earlier = ShardIndex::npos;
      for (std::size_t i = 0; i < kept.size(); ++i)
        if (kept[i].first == t) earlier = i;
      RC_ASSERT(index->add(t, s) == earlier);
      if (earlier != ShardIndex::npos) continue;
      kept.emplace_back(t, s);
      if (std::find(shards.begin(), shards.end(), s) == shards.end()) shards.push_back(s);
    }
    const ShardIndex copy = *index;
    index.reset();  // the copy owns its names
    RC_ASSERT(copy.size() == kept.size());
    RC_ASSERT(copy.shards() == shards);
    for (std::size_t i = 0; i < kept.size(); ++i) {
      RC_ASSERT(copy.tensor(i) == kept[i].first);
      RC_ASSERT(copy.shard(i) == kept[i].second);
      RC_ASSERT(copy.find(kept[i].first) == i);
      RC_ASSERT(copy.shards()[copy.shard_number(i)] == kept[i].second);
    }
    RC_ASSERT(copy.find("absent") == ShardIndex::npos);
    for (std::size_t k = 0; k < shards.size(); ++k) RC_ASSERT(copy.find_shard(shards[k]) == k);
    RC_ASSERT(copy.find_shard("absent") == ShardIndex::npos);
    ShardIndex rebuilt;
    for (const auto& [t, s] : kept) RC_ASSERT(rebuilt.add(t, s) == ShardIndex::npos);
    RC_ASSERT(rebuilt == copy);
    // append + seal, as the parser builds it: the first repeat of the pairs
    // as given, or (none) the index add() built.
    ShardIndex bulk;
    std::size_t first_repeat = ShardIndex::npos;
    for (std::size_t i = 0; i < given.size() && first_repeat == ShardIndex::npos; ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (given[j].first == given[i].first) first_repeat = i;
    for (const auto& [t, s] : given) bulk.append(t, s);
    RC_ASSERT(bulk.seal() == first_repeat);
    if (first_repeat == ShardIndex::npos) {
      RC_ASSERT(bulk == copy);
      RC_ASSERT(bulk.shards() == shards);
      for (std::size_t i = 0; i < kept.size(); ++i) RC_ASSERT(bulk.find(kept[i].first) == i);
    }
    const ShardIndex moved = std::move(bulk);  // NOLINT: a moved-from index is empty and takes adds
    RC_ASSERT(moved.size() == given.size());
    RC_ASSERT(bulk.add("t0", "s0") == ShardIndex::npos && bulk.find("t0") == 0 && bulk.size() == 1);
    RC_ASSERT(bulk.shards() == std::vector<std::string>{"s0"});
    rebuilt.total_size = 1;
    RC_ASSERT(rebuilt != copy);
  });
}

TEST_CASE("check_index gives the findings of the ST-INDEX rules written out plainly", "[prop][index]") {
  rc::prop("any index and shards, located given, not given, or out of range, summed or not", [] {
    const Pairs given = gen_pairs();
    ShardIndex index;
    Pairs kept;
    for (const auto& [t, s] : given)
      if (index.add(t, s) == ShardIndex::npos) kept.emplace_back(t, s);
    if (*rc::gen::arbitrary<bool>()) index.total_size = static_cast<std::uint64_t>(*rc::gen::inRange(0, 12));
    ShardContents shards;
    const int count = *rc::gen::inRange(0, 5);
    for (int k = 0; k < count; ++k) {
      ShardState& state = shards[small_name("s", 5)];  // s4: a shard the index never names
      state = ShardState{};
      if (*rc::gen::inRange(0, 5) == 0) {
        state.problem = "cannot open: gone";
        continue;
      }
      Model& m = state.model.emplace();
      const int tensors = *rc::gen::inRange(0, 6);
      for (int j = 0; j < tensors; ++j) {  // a name twice in one shard too
        const std::uint64_t begin = m.header.tensors.empty() ? 0 : m.header.tensors.back().end;
        m.header.tensors.push_back(TensorEntry{small_name("t", 10), Dtype::U8, {1}, begin, begin + 1});
      }
      switch (*rc::gen::inRange(0, 3)) {
        case 0: break;  // check_index locates them
        case 1: state.located = locate_tensors(index, m); break;
        case 2: state.located.assign(m.header.tensors.size(), static_cast<std::uint32_t>(index.size() + 3)); break;  // no entry: ignored
      }
      if (*rc::gen::arbitrary<bool>()) state.bytes = shard_bytes(m);  // summed where the shard was read
    }
    RC_ASSERT(lines(check_index(index, shards)) == plain_findings(kept, index.total_size, shards));
  });
}

// find_repeats and RepeatWalk (src/parse/name_repeats.hpp) take each file's kept hashes (one per
// tensor) or hashes the file's names itself, on several threads when many
// names need it, then indexes them in order: the law is
// NameIndex::for_each_repeat's answer over the names in file order, on one
// thread, for any thread count, any split into files (empty ones too) and any
// mix of kept and missing hash lists; a list that does not fit its file, of
// wrong values here, is not used. Half the runs keep no hashes, so the
// threads start past 8,192 names.
TEST_CASE("find_repeats and RepeatWalk report what for_each_repeat does, on any number of threads", "[prop][name-index]") {
  rc::prop("names i -> (a*i + b) mod m in files of any size, around the threading size", [] {
    const std::size_t n = static_cast<std::size_t>(*rc::gen::inRange(0, 12000));
    const std::size_t m = static_cast<std::size_t>(*rc::gen::inRange(1, 16000));
    const std::size_t a = static_cast<std::size_t>(*rc::gen::inRange(1, 7)), b = static_cast<std::size_t>(*rc::gen::inRange(0, 99));
    std::vector<std::string> text(n);
    for (std::size_t i = 0; i < n; ++i) text[i] = "layer." + std::to_string((a * i + b) % m);
    // Files end at a few cut points (a cut repeated: an empty file).
    auto cuts = *rc::gen::container<std::vector<std::size_t>>(rc::gen::inRange<std::size_t>(0, n + 1));
    std::sort(cuts.begin(), cuts.end());
    cuts.push_back(n);
    std::vector<std::vector<TensorEntry>> files;
    std::size_t from = 0;
    for (const std::size_t cut : cuts) {
      files.emplace_back();
      for (; from < cut; ++from) files.back().push_back(TensorEntry{text[from], Dtype::U8, {0}, 0, 0});
    }
    std::vector<std::pair<std::size_t, std::size_t>> expected;
    NameIndex index;
    index.for_each_repeat(n, [&](std::size_t i) { return std::string_view(text[i]); }, [&](std::size_t i, std::size_t first) {
      expected.emplace_back(i, first);
      return true;
    });
    // Each file with its hashes kept (1), or none (0: hashed there), or a
    // list one longer (2) or shorter (3) than its tensors, every value wrong.
    const bool none_kept = *rc::gen::arbitrary<bool>();
    std::vector<std::vector<std::uint64_t>> hashes(files.size());
    std::vector<NamedTensors> named;
    for (std::size_t f = 0; f < files.size(); ++f) {
      const int kept = none_kept ? 0 : *rc::gen::inRange(0, 4);
      for (const TensorEntry& t : files[f]) hashes[f].push_back(kept >= 2 ? ~name_hash(t.name) : name_hash(t.name));
      if (kept == 2) hashes[f].push_back(0);
      if (kept == 3 && !hashes[f].empty()) hashes[f].pop_back();
      named.push_back(NamedTensors{files[f], kept == 0 ? std::span<const std::uint64_t>{} : hashes[f]});
    }
    const RepeatWalk found = find_repeats(named, static_cast<unsigned>(*rc::gen::inRange(0, 4)));
    RC_ASSERT(found.repeats() == expected);
    // The same a file at a time (RepeatWalk, as a directory's files are
    // walked while they are read), its table sized for any number of names
    // up front, so that it also grows, from their text, past that.
    RepeatWalk walk(static_cast<std::size_t>(*rc::gen::inRange(0, 64)));
    for (const NamedTensors& f : named) walk.add(f);
    RC_ASSERT(walk.names() == n);
    RC_ASSERT(walk.repeats() == expected);
    // tensor(k) is the k-th tensor in file order, in the file it came in.
    for (std::size_t f = 0, k = 0; f < files.size(); ++f)
      for (const TensorEntry& t : files[f]) {
        const auto [file, entry] = walk.tensor(k++);
        RC_ASSERT(file == f);
        RC_ASSERT(entry == &t);
      }
  });
}
