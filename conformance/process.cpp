#include "conformance/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>

extern char** environ;

namespace safespec::conformance {

namespace {

using Clock = std::chrono::steady_clock;

// The self-pipe: SIGCHLD and the stop signals write a byte so that poll()
// wakes at once instead of the loop polling on a short timer.
int g_wake_write = -1;
volatile sig_atomic_t g_stop_signal = 0;

extern "C" void on_signal(int sig) {
  const int saved = errno;
  if (sig != SIGCHLD) g_stop_signal = sig;
  const char byte = 0;
  if (g_wake_write >= 0) (void)!::write(g_wake_write, &byte, 1);
  errno = saved;
}

constexpr int kHandled[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP};

// Installs the handlers and the self-pipe for one batch; restores the
// previous dispositions when the batch ends, however it ends.
class SignalScope {
 public:
  SignalScope() {
    if (::pipe2(pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
      pipe_[0] = pipe_[1] = -1;
      return;
    }
    g_wake_write = pipe_[1];
    g_stop_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_NOCLDSTOP;
    for (std::size_t i = 0; i < std::size(kHandled); ++i) ::sigaction(kHandled[i], &sa, &old_[i]);
  }
  ~SignalScope() {
    if (pipe_[0] < 0) return;
    for (std::size_t i = 0; i < std::size(kHandled); ++i) ::sigaction(kHandled[i], &old_[i], nullptr);
    g_wake_write = -1;
    ::close(pipe_[0]);
    ::close(pipe_[1]);
  }
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;
  bool ok() const { return pipe_[0] >= 0; }
  int wake_fd() const { return pipe_[0]; }
  void drain() const {
    char buf[64];
    while (::read(pipe_[0], buf, sizeof buf) > 0) {
    }
  }

 private:
  int pipe_[2]{-1, -1};
  struct sigaction old_[std::size(kHandled)] {};
};

struct Running {
  std::size_t index = 0;
  pid_t pid = -1;
  int fd = -1;  // read end of the child's stdout+stderr pipe; -1 after EOF
  Clock::time_point start, deadline;
  ChildResult result;
};

// Reads what is there without blocking; closes the pipe at end of file.
void read_output(Running& r) {
  char buf[4096];
  while (r.fd >= 0) {
    const ssize_t n = ::read(r.fd, buf, sizeof buf);
    if (n > 0) {
      const std::size_t room = kOutputLimit - std::min(kOutputLimit, r.result.output.size());
      r.result.output.append(buf, std::min(room, static_cast<std::size_t>(n)));
      if (static_cast<std::size_t>(n) > room) r.result.output_truncated = true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    ::close(r.fd);  // end of file, or an error: nothing more to read
    r.fd = -1;
  }
}

// Starts one child in a new process group. Returns 0 or an errno value.
int spawn(const std::vector<std::string>& argv, Running& r) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return errno;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, out[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  // Default dispositions for everything (the runner's own handlers, and any
  // signal its parent left ignored, such as SIGPIPE), an empty mask.
  sigset_t all, none;
  sigemptyset(&all);
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) (void)sigaddset(&all, s);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  r.start = Clock::now();
  const int rc = ::posix_spawnp(&r.pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  if (rc != 0) {
    ::close(out[0]);
    return rc;
  }
  r.fd = out[0];
  ::fcntl(r.fd, F_SETFL, ::fcntl(r.fd, F_GETFL) | O_NONBLOCK);
  return 0;
}

// Kills the child's whole group and collects the child. `timed_out`: the
// runner's time limit ended it, whatever status SIGKILL left.
ChildResult finish(Running& r, bool timed_out) {
  // The child is still a zombie here (waitid WNOWAIT), so its process group
  // id cannot have been reused: the kill reaches only what it started.
  ::kill(-r.pid, SIGKILL);
  int status = 0;
  while (::waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
  }
  read_output(r);
  if (r.fd >= 0) ::close(r.fd), r.fd = -1;  // a descendant outside the group may hold it open
  ChildResult out = std::move(r.result);
  out.seconds = std::chrono::duration<double>(Clock::now() - r.start).count();
  if (timed_out) {
    out.end = ChildResult::End::TimedOut;
  } else if (WIFSIGNALED(status)) {
    out.end = ChildResult::End::Signaled;
    out.signal = WTERMSIG(status);
  } else {
    out.end = ChildResult::End::Exited;
    out.code = WEXITSTATUS(status);
  }
  return out;
}

bool has_exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

void stop_all(std::vector<Running>& running) {
  for (Running& r : running) (void)finish(r, true);
  running.clear();
}

}  // namespace

std::string signal_name(int signal) {
  if (const char* abbrev = ::sigabbrev_np(signal)) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(signal);
}

Result<std::vector<ChildResult>, BatchError> run_batch(const std::vector<std::vector<std::string>>& commands,
                                                       const BatchOptions& options,
                                                       const std::function<void(std::size_t)>& progress) {
  const SignalScope signals;
  if (!signals.ok()) return BatchError{std::string("cannot create a pipe: ") + std::strerror(errno)};
  std::vector<ChildResult> results(commands.size());
  std::vector<Running> running;
  const auto limit = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.timeout_s));
  const std::size_t jobs = std::max(1u, options.jobs);
  std::size_t next = 0, done = 0;
  while (done < commands.size()) {
    while (running.size() < jobs && next < commands.size()) {
      Running r;
      r.index = next;
      if (const int err = spawn(commands[next], r); err != 0) {
        stop_all(running);
        return BatchError{"cannot run '" + commands[next][0] + "': " + std::strerror(err)};
      }
      r.deadline = r.start + limit;
      running.push_back(std::move(r));
      ++next;
    }
    // Sleep until output, a child's end (SIGCHLD), a stop signal or the
    // nearest deadline.
    std::vector<pollfd> fds{{signals.wake_fd(), POLLIN, 0}};
    for (const Running& r : running)
      if (r.fd >= 0) fds.push_back({r.fd, POLLIN, 0});
    Clock::time_point nearest = Clock::time_point::max();
    for (const Running& r : running) nearest = std::min(nearest, r.deadline);
    const double wait_ms = std::chrono::duration<double, std::milli>(nearest - Clock::now()).count();
    const int timeout_ms = static_cast<int>(std::clamp(std::ceil(wait_ms), 0.0, 60000.0));
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) {
      const int err = errno;
      stop_all(running);
      return BatchError{std::string("poll: ") + std::strerror(err)};
    }
    signals.drain();
    if (const int sig = g_stop_signal; sig != 0) {
      stop_all(running);
      return BatchError{"stopped by " + signal_name(sig), sig};
    }
    for (Running& r : running) read_output(r);
    const Clock::time_point now = Clock::now();
    for (auto it = running.begin(); it != running.end();) {
      const bool exited = has_exited(it->pid);
      if (!exited && now < it->deadline) {
        ++it;
        continue;
      }
      results[it->index] = finish(*it, !exited);
      it = running.erase(it);
      ++done;
      if (progress) progress(done);
    }
  }
  return results;
}

}  // namespace safespec::conformance
