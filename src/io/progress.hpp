// A progress line on standard error for work a user waits on: shown only
// when standard error is a terminal and the work has run past a second,
// redrawn in place ("\r") by a thread of its own while a long step runs, and
// cleared when the work ends, so nothing of it reaches a pipe, a file or a
// JSON document.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace safespec {

class Progress {
 public:
  // `what`: the work, as the line begins ("safespec vectors"). `total`: its
  // steps. `out`: where the line goes; a stream that is not a terminal
  // shows nothing (and starts no thread).
  Progress(std::string what, std::uint64_t total = 0, std::FILE* out = stderr);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // The step now under way (0-based) and what it is ("the cuda output").
  void step(std::uint64_t done, const std::string& doing);
  // For work that counts itself on other threads (bytes read): the line is
  // `what: ` and what `doing` returns, asked for at each redraw (on the
  // drawing thread, so `doing` reads only what is safe to read from there).
  void follow(std::function<std::string()> doing);

  // The line for step `done` of `total`, `doing` under way: what is drawn,
  // without the carriage return.
  static std::string line(const std::string& what, std::uint64_t done, std::uint64_t total, const std::string& doing);

 private:
  void draw_loop();

  std::string what_;
  std::uint64_t total_;
  std::FILE* out_;  // null when nothing is shown
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::string pending_;  // the line to show
  std::function<std::string()> follow_;
  std::thread drawer_;
};

}  // namespace safespec
