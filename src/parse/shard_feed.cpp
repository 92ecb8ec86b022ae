#include "src/parse/shard_feed.hpp"

namespace safespec {

ShardFeed::Shard& ShardFeed::add(std::string_view name) {
  const auto node = contents_.try_emplace(std::string(name)).first;
  shards_.push_back(Shard{&node->first, &node->second, nullptr, 0, false});
  return shards_.back();
}

void ShardFeed::remove(Shard& shard) {
  contents_.erase(*shard.name);
  shard = Shard{};
}

void ShardFeed::shard_found(std::string_view name) {
  {
    const std::lock_guard lock(mutex_);
    add(name);
  }
  more_.notify_one();
}

ShardFeed::Shard* ShardFeed::take() {
  std::unique_lock lock(mutex_);
  more_.wait(lock, [&] { return dropped_ || closed_ || next_ < shards_.size(); });
  if (dropped_ || next_ == shards_.size()) return nullptr;
  return &shards_[next_++];
}

void ShardFeed::close() {
  {
    const std::lock_guard lock(mutex_);
    closed_ = true;
  }
  more_.notify_all();
}

void ShardFeed::drop() {
  {
    const std::lock_guard lock(mutex_);
    dropped_ = true;
  }
  more_.notify_all();
}

}  // namespace safespec
