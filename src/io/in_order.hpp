// Items finished on several threads in any order, handed on in their own
// order: done(i) from whichever thread finished item i; then `next` runs for
// every item up to the first one not finished yet, on one thread at a time,
// in order. The walk over a directory's tensor names (src/parse/name_repeats.hpp)
// follows the reads this way, while later files are still being read.
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <vector>

namespace safespec {

class InOrder {
 public:
  InOrder(std::size_t n, std::function<void(std::size_t)> next) : finished_(n, false), next_(std::move(next)) {}

  // Item i is finished. The thread that finds the next item in order
  // finished runs `next` for it and every finished item after it, outside
  // the lock (other threads go on finishing items meanwhile); any other
  // thread returns at once. An exception from `next` leaves the items after
  // it unhanded, and is the caller's (a failed check has no answer).
  void done(std::size_t i) {
    std::unique_lock lock(mutex_);
    finished_[i] = true;
    if (running_) return;  // the running thread will come to it
    running_ = true;
    struct Stop {
      std::unique_lock<std::mutex>& lock;
      bool& running;
      ~Stop() {
        if (!lock.owns_lock()) lock.lock();
        running = false;
      }
    } stop{lock, running_};
    while (next_item_ < finished_.size() && finished_[next_item_]) {
      const std::size_t item = next_item_++;
      lock.unlock();
      next_(item);
      lock.lock();
    }
  }

  // How many items have been handed on (all of them once every item is done).
  std::size_t handed() const {
    std::lock_guard lock(mutex_);
    return next_item_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<bool> finished_;
  std::size_t next_item_ = 0;
  bool running_ = false;
  std::function<void(std::size_t)> next_;
};

}  // namespace safespec
