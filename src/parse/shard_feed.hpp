// The shards of an index handed from its reader to the threads that check
// them, as the reader meets them: on 1,000 shards the index (4 MB) took a
// third of `check`'s wall time before any shard was read. The
// reader is one thread's producer (ShardSink); every worker, the reader's
// own thread once its reading is done, takes shards until none is left.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "spec/index_rules.hpp"
#include "src/commands/check.hpp"
#include "src/parse/index_entries.hpp"

namespace safespec {

class ShardFeed final : public ShardSink {
 public:
  // One shard found: its name (the key in contents()) and its state there,
  // and its report once read, unless it could not be opened.
  struct Shard {
    const std::string* name = nullptr;
    ShardState* state = nullptr;
    std::unique_ptr<FileReport> report;
    // Its place among the index's shards in name order, once the index is
    // whole; `placed`: its report was written there, not into `report`.
    std::size_t place = 0;
    bool placed = false;
  };

  // The reader's side: a shard first named (each name comes once).
  void shard_found(std::string_view name) override;
  // The next shard nobody has taken, waiting while the reader may still find
  // one; nullptr once it is done (close) and every shard is taken, or once
  // the work is given up (drop).
  Shard* take();
  // The reader found every shard it will.
  void close();
  // No shard is taken any more: the index was refused, or a worker failed.
  void drop();

  // After the workers are done (no lock): every shard found, in the order
  // found, and their states by name (what check_index reads); `add` and
  // `remove` set both straight.
  std::deque<Shard>& shards() { return shards_; }
  ShardContents& contents() { return contents_; }
  bool has(const std::string& name) const { return contents_.count(name) != 0; }
  Shard& add(std::string_view name);
  void remove(Shard& shard);  // its name, state and report gone

 private:
  std::mutex mutex_;
  std::condition_variable more_;
  // Workers write only their own shard's state and report through the
  // pointers taken: a node of a std::map stays put, and its value is another
  // object than the links the reader's inserts rewrite.
  ShardContents contents_;
  std::deque<Shard> shards_;
  std::size_t next_ = 0;
  bool closed_ = false;
  bool dropped_ = false;
};

}  // namespace safespec
