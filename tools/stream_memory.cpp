// stream_memory SAFESPEC DIR CASE: the peak resident set of one command
// whose input or output is larger than what it should hold, against its
// bound (the child's ru_maxrss from wait4). CASE:
//   check-stdin       `check -` on a 200 MB checkpoint piped in: the header
//                     and marker tensors are held, the data counted as it
//                     streams past: at most kHeaderOnlyPeak.
//   check-stdin-data  `check --data -` on the same stream: every byte held
//                     once, in pieces: at most the stream + kOverStream.
//   dequant-npy       `dequant --out w.npy` of a 4096 x 4096 W4A8 layer
//                     (a 64 MiB F32 matrix): rows written as they are made,
//                     at most kDequantPeak, and the same data bytes as
//                     `--out w.safetensors`.
// The stream is written by this process into a pipe, so no 200 MB file is
// needed and the child cannot seek it.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
// The command alone (binary, libraries, first arenas) peaks near 10 MiB.
constexpr std::uint64_t kHeaderOnlyPeak = 32 * kMiB;
// Pieces are 1 MiB; the rest is the command's own working set.
constexpr std::uint64_t kOverStream = 16 * kMiB;
// The packed layer (8 MiB) and its scales, one 4 MiB block of rows, the
// command: under half the 64 MiB matrix it writes.
constexpr std::uint64_t kDequantPeak = 32 * kMiB;

constexpr std::uint64_t kTensors = 50, kTensorBytes = 4'000'000;  // 200 MB of F32 zeros

std::string stream_header() {
  std::string h = "{";
  for (std::uint64_t i = 0; i < kTensors; ++i)
    h += (i ? "," : "") + std::string("\"t") + std::to_string(i) + "\":{\"dtype\":\"F32\",\"shape\":[" +
         std::to_string(kTensorBytes / 4) + "],\"data_offsets\":[" + std::to_string(i * kTensorBytes) + "," +
         std::to_string((i + 1) * kTensorBytes) + "]}";
  h += "}";
  h.append((8 - h.size() % 8) % 8, ' ');
  return h;
}

struct Ran {
  int status = -1;
  std::uint64_t peak = 0;  // bytes
  bool fed = true;         // the whole stream went into the pipe: the child read it (less a pipe's buffer)
};

// `argv` with stdout to /dev/null; with `feed`, its stdin is a pipe this
// process writes the checkpoint into.
Ran run(const std::vector<std::string>& argv, bool feed) {
  int fds[2] = {-1, -1};
  if (feed && ::pipe(fds) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    if (feed) {
      ::dup2(fds[0], 0);
      ::close(fds[0]);
      ::close(fds[1]);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  bool fed = true;
  if (feed) {
    ::close(fds[0]);
    const std::string h = stream_header();
    std::string prefix(8, '\0');
    for (int i = 0; i < 8; ++i) prefix[i] = static_cast<char>(h.size() >> (8 * i));
    const std::string head = prefix + h;
    bool ok = ::write(fds[1], head.data(), head.size()) == static_cast<ssize_t>(head.size());
    const std::vector<char> zeros(kMiB, 0);
    for (std::uint64_t left = kTensors * kTensorBytes; ok && left > 0;) {
      const std::size_t n = left < zeros.size() ? static_cast<std::size_t>(left) : zeros.size();
      ok = ::write(fds[1], zeros.data(), n) == static_cast<ssize_t>(n);
      left -= n;
    }
    ::close(fds[1]);
    fed = ok;
  }
  Ran r;
  r.fed = fed;
  struct rusage usage {};
  ::wait4(pid, &r.status, 0, &usage);
  r.peak = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
  return r;
}

bool exited(const Ran& r, int code) { return WIFEXITED(r.status) && WEXITSTATUS(r.status) == code; }

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool report(const char* what, const Ran& r, std::uint64_t bound, int code) {
  std::printf("%s: exit %d, peak resident %llu bytes (%.1f MiB), bound %llu bytes (%.1f MiB)\n", what,
              WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1, static_cast<unsigned long long>(r.peak),
              static_cast<double>(r.peak) / kMiB, static_cast<unsigned long long>(bound),
              static_cast<double>(bound) / kMiB);
  if (!exited(r, code)) std::fprintf(stderr, "stream_memory: %s: expected exit %d\n", what, code);
  if (!r.fed) std::fprintf(stderr, "stream_memory: %s: the command stopped reading the stream\n", what);
  return exited(r, code) && r.fed && r.peak <= bound;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: stream_memory SAFESPEC DIR check-stdin|check-stdin-data|dequant-npy\n");
    return 2;
  }
  ::signal(SIGPIPE, SIG_IGN);  // a child that stops reading ends the feed, not this process
  const std::string safespec = argv[1], c = argv[3];
  const std::filesystem::path dir = argv[2];
  const std::uint64_t stream = 8 + stream_header().size() + kTensors * kTensorBytes;
  if (c == "check-stdin") return report("check - (200 MB stream)", run({safespec, "check", "-"}, true), kHeaderOnlyPeak, 0) ? 0 : 1;
  if (c == "check-stdin-data")
    return report("check --data - (200 MB stream)", run({safespec, "check", "--data", "-"}, true), stream + kOverStream, 0)
               ? 0 : 1;
  if (c != "dequant-npy") return 2;
  std::filesystem::create_directories(dir);
  const std::string layer = (dir / "layer").string();
  if (!exited(run({safespec, "vectors", "--m", "1", "--n", "4096", "--k", "4096", "--group-size", "128", "--seed", "1",
                   layer},
                  false),
              0)) {
    std::fprintf(stderr, "stream_memory: `safespec vectors` failed\n");
    return 1;
  }
  const std::string in = layer + "/layer.safetensors";
  const std::filesystem::path npy = dir / "w.npy", st = dir / "w.safetensors";
  bool ok = report("dequant --out w.npy (4096 x 4096 W4A8)",
                   run({safespec, "dequant", in, "--layer", "lin", "--out", npy.string()}, false), kDequantPeak, 0);
  ok &= report("dequant --out w.safetensors (4096 x 4096 W4A8)",
               run({safespec, "dequant", in, "--layer", "lin", "--out", st.string()}, false), kDequantPeak, 0);
  // The two files' data sections: the same 64 MiB of F32, each at its end.
  const std::string a = slurp(npy), b = slurp(st);
  constexpr std::size_t kData = std::size_t{4096} * 4096 * 4;
  if (a.size() < kData || b.size() < kData || a.compare(a.size() - kData, kData, b, b.size() - kData, kData) != 0) {
    std::fprintf(stderr, "stream_memory: w.npy and w.safetensors hold different data\n");
    ok = false;
  }
  std::filesystem::remove_all(dir);
  return ok ? 0 : 1;
}
