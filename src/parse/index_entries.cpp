#include "src/parse/index_entries.hpp"

#include <utility>

#include "spec/quote.hpp"

namespace safespec {

Error index_json_error(Place where, std::string message) {
  return Error{RuleId::IndexJson, std::move(where), std::move(message)};
}

void IndexEntries::add(std::string_view tensor, std::string_view shard) {
  if (stopped()) return;
  const std::size_t known = index_.shards().size();
  index_.append(tensor, shard);
  if (index_.shards().size() == known) return;
  if (!is_plain_shard_name(shard)) not_plain_ = shard;
  else if (sink_) sink_->shard_found(shard);
}

void IndexEntries::not_a_string(std::string_view tensor) {
  if (!stopped()) not_string_ = tensor;
}

Result<ShardIndex> IndexEntries::finish() && {
  if (const std::size_t repeat = index_.seal(); repeat != ShardIndex::npos)
    return index_json_error(Place::index_entry(index_.tensor(repeat)), "expected each tensor once, found it twice");
  if (not_plain_)
    return index_json_error(Place::index_entry(index_.tensor(index_.size() - 1)),
                            "expected a file name beside the index, found the path " + quote_name(*not_plain_));
  if (not_string_) return index_json_error(Place::index_entry(*not_string_), "expected a shard file name string");
  return std::move(index_);
}

}  // namespace safespec
