#include "src/io/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <utility>

namespace safespec {

namespace {

constexpr std::chrono::milliseconds kQuiet{1000};   // work shorter than this shows nothing
constexpr std::chrono::milliseconds kRedraw{250};

}  // namespace

Progress::Progress(std::string what, std::uint64_t total, std::FILE* out)
    : what_(std::move(what)), total_(total), out_(out && ::isatty(::fileno(out)) ? out : nullptr) {
  if (out_) drawer_ = std::thread([this] { draw_loop(); });
}

Progress::~Progress() {
  if (!drawer_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  drawer_.join();
}

std::string Progress::line(const std::string& what, std::uint64_t done, std::uint64_t total, const std::string& doing) {
  return what + ": " + doing + " (" + std::to_string(done + 1) + " of " + std::to_string(total) + ")";
}

void Progress::step(std::uint64_t done, const std::string& doing) {
  if (!out_) return;
  const std::lock_guard lock(mutex_);
  pending_ = line(what_, done, total_, doing);
}

void Progress::follow(std::function<std::string()> doing) {
  if (!out_) return;
  const std::lock_guard lock(mutex_);
  follow_ = std::move(doing);
}

void Progress::draw_loop() {
  std::size_t drawn = 0;  // characters on the line now
  std::string shown;
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, kRedraw, [this] { return stop_; });
    if (stop_ || std::chrono::steady_clock::now() - start_ < kQuiet) continue;
    if (follow_) pending_ = what_ + ": " + follow_();
    if (pending_ == shown) continue;
    shown = pending_;
    std::fprintf(out_, "\r%s%*s", shown.c_str(), static_cast<int>(drawn > shown.size() ? drawn - shown.size() : 0), "");
    std::fflush(out_);
    drawn = std::max(drawn, shown.size());
  }
  if (drawn == 0) return;
  std::fprintf(out_, "\r%*s\r", static_cast<int>(drawn), "");
  std::fflush(out_);
}

}  // namespace safespec
