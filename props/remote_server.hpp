// The HTTP server of the remote-checkpoint tests (props/http_range_server.py)
// on 127.0.0.1, over a scratch directory, and the command run against it
// with the environment's proxies bypassed: shared by the files that test
// reading URLs (props/unit_remote_test.cpp, props/unit_remote_requests_test.cpp).
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "props/catch.hpp"
#include "props/unit_support.hpp"

namespace safespec::test {

#ifndef SAFESPEC_HTTP_SERVER
#define SAFESPEC_HTTP_SERVER "props/http_range_server.py"
#endif

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// The server over a scratch directory, stopped (SIGTERM) with the test.
struct RemoteServer : TempDir {
  pid_t pid = -1;
  std::string base;  // "http://127.0.0.1:PORT"

  RemoteServer() : TempDir("remote") {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const std::string root = (dir / "files").string(), log = (dir / "log.txt").string();
    std::filesystem::create_directories(root);
    pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::dup2(fds[1], STDOUT_FILENO);
      ::close(fds[0]);
      ::close(fds[1]);
      ::execlp("python3", "python3", SAFESPEC_HTTP_SERVER, root.c_str(), log.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    std::string port;
    char c = 0;
    while (::read(fds[0], &c, 1) == 1 && c != '\n') port += c;
    ::close(fds[0]);
    REQUIRE(!port.empty());
    base = "http://127.0.0.1:" + port;
  }
  ~RemoteServer() {
    ::kill(pid, SIGTERM);
    ::waitpid(pid, nullptr, 0);
  }
  RemoteServer(const RemoteServer&) = delete;
  RemoteServer& operator=(const RemoteServer&) = delete;

  std::string file(const std::string& name, const std::vector<std::uint8_t>& bytes) const {
    const auto p = dir / "files" / name;
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return p.string();
  }
  std::string copy(const std::string& from, const std::string& name) const {
    const auto p = dir / "files" / name;
    std::filesystem::copy_file(from, p);
    return p.string();
  }
  std::string url(const std::string& mode, const std::string& name) const { return base + "/" + mode + "/" + name; }
  // The requests so far, one "GET PATH RANGE" line each.
  std::vector<std::string> log() const { return lines("GET "); }
  // The log's lines that start with `what`.
  std::vector<std::string> lines(const std::string& what) const {
    std::vector<std::string> out;
    std::istringstream in(read_text(dir / "log.txt"));
    for (std::string l; std::getline(in, l);)
      if (l.starts_with(what)) out.push_back(l);
    return out;
  }
  // The most requests the server was answering at one moment.
  int max_inflight() const {
    int most = 0;
    for (const std::string& l : lines("inflight ")) most = std::max(most, std::stoi(l.substr(9)));
    return most;
  }
  // The body bytes the server's socket writes accepted for the answers to
  // PATH ("/range/a.safetensors") logged so far, and how many were logged.
  std::pair<std::uint64_t, std::size_t> sent(const std::string& path) const {
    std::uint64_t bytes = 0;
    std::size_t answers = 0;
    for (const std::string& l : lines("sent " + path + " ")) {
      bytes += std::stoull(l.substr(l.rfind(' ') + 1));
      ++answers;
    }
    return {bytes, answers};
  }
  // `safespec ARGS` (shell words; may redirect stdin) without any proxy.
  Run run(const std::string& args, const std::string& env = "") const {
    return shell("env no_proxy=127.0.0.1 NO_PROXY=127.0.0.1 " + env + " '" + cli_path() + "' " + args);
  }
  // A shell command, its standard error kept apart.
  Run shell(const std::string& command) const {
    const std::string err = (dir / "stderr.txt").string();
    const std::string cmd = command + " 2>'" + err + "'";
    INFO(cmd);
    Run r;
    FILE* p = ::popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
    const int status = ::pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = read_text(err);
    return r;
  }
};

}  // namespace safespec::test
