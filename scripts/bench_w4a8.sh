#!/usr/bin/env bash
# The W4A8 fast path end to end, against an
# older build of the same benchmark, interleaved round by round so that
# noise from other processes falls on both alike. Each round runs
# bench/bench_w4a8's fast path (vector lanes on) and its register-only
# peak loops, then BEFORE's fast path; every Google Benchmark measurement
# of the fast path is one sample (the mean over its iterations). Prints
# min/median/max per side, the ratio of the medians (and of the minima),
# and the share of the VNNI int8 peak (the largest peak measured, AVX2
# where the CPU has no VNNI) at the median and at the fastest sample.
#
# Usage: scripts/bench_w4a8.sh [ROUNDS]
#   AFTER=path/to/bench_w4a8  (default build/release/bench/bench_w4a8)
#   BEFORE=path/to/bench_w4a8 of an older commit (optional), built as
#     git worktree add /tmp/before COMMIT && cmake -S /tmp/before -B /tmp/before/build -G Ninja \
#       -DCMAKE_BUILD_TYPE=Release -DSAFESPEC_TESTS=OFF -DSAFESPEC_BENCH=ON && ninja -C /tmp/before/build bench_w4a8
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
after="${AFTER:-build/release/bench/bench_w4a8}"
before="${BEFORE:-}"
if [ ! -x "$after" ]; then
  echo "no benchmark at $after: cmake --preset release && cmake --build build/release --target bench_w4a8" >&2
  exit 2
fi
if [ -n "$before" ] && [ ! -x "$before" ]; then
  echo "BEFORE=$before is not an executable" >&2
  exit 2
fi

python3 - "$rounds" "$after" "$before" <<'PY'
import json, statistics, subprocess, sys

rounds, after, before = int(sys.argv[1]), sys.argv[2], sys.argv[3]
OPS = 2.0 * 512 * 3072 * 3072  # the benchmark's M, N, K

def run(binary, pattern):
    out = subprocess.run([binary, f"--benchmark_filter={pattern}", "--benchmark_format=json"],
                         check=True, capture_output=True, text=True).stdout
    report = json.loads(out[out.index("{"):out.rindex("}") + 1])
    fast, peaks = [], {}
    for b in report["benchmarks"]:
        name = b["name"]
        if name.startswith("BM_W4a8Fast") and "/0/" not in name:  # vector lanes on (older builds have no argument)
            fast.append(b["real_time"] * {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1.0}[b["time_unit"]])
        elif name.startswith("BM_Peak"):
            peaks[name.split("<")[1].split(",")[0]] = b["int_ops_per_s"]
    return fast, peaks

samples = {"after": [], "before": []}
peak = 0.0
for r in range(1, rounds + 1):
    fast, peaks = run(after, "W4a8Fast/1|BM_Peak")
    samples["after"] += fast
    peak = max([peak] + list(peaks.values()))
    line = f"round {r}: after " + " ".join(f"{t * 1e3:.1f}" for t in fast) + " ms"
    if before:
        old, _ = run(before, "W4a8Fast")
        samples["before"] += old
        line += " | before " + " ".join(f"{t * 1e3:.1f}" for t in old) + " ms"
    print(line, flush=True)

def summary(name, ts):
    print(f"{name:7} min {min(ts) * 1e3:7.1f} ms  median {statistics.median(ts) * 1e3:7.1f} ms  "
          f"max {max(ts) * 1e3:7.1f} ms  ({len(ts)} samples)")

print(f"\nW4A8 fast path, M=512 K=3072 N=3072 BF16 cuda; {rounds} rounds, interleaved")
summary("after", samples["after"])
if before:
    summary("before", samples["before"])
    print(f"speed-up: median {statistics.median(samples['before']) / statistics.median(samples['after']):.2f}x, "
          f"fastest {min(samples['before']) / min(samples['after']):.2f}x")
med = statistics.median(samples["after"])
print(f"int8 peak measured: {peak / 1e9:.1f} Gop/s; fast path at median {OPS / med / 1e9:.1f} Gop/s "
      f"({100 * OPS / med / peak:.0f}% of peak), fastest {OPS / min(samples['after']) / 1e9:.1f} Gop/s "
      f"({100 * OPS / min(samples['after']) / peak:.0f}%)")
PY
