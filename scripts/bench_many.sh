#!/usr/bin/env bash
# Whole-process cost of `safespec check` over many small files: a
# directory of 1,000 checkpoints and an index of 1,000
# shards, 64 BF16 tensors each (about 6 KB of header, as
# bench/bench_many_files.cpp writes them), checked with --jobs 1 and with
# --jobs N (default: the CPU count), interleaved so that noise from other
# processes falls on both alike. Prints min/median/max of wall and CPU
# seconds (user + system, all threads) and the ratio of the wall medians.
# The in-process ratio against the sum of the per-file parse times is
# bench_many_files' (it times each file alone, which a process cannot show).
#
# Usage: scripts/bench_many.sh [RUNS] [JOBS]
#   SAFESPEC=path/to/safespec (default build/release/safespec)
#   BENCH_DIR=where the files go (default /tmp/safespec-bench-many)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-7}"
jobs="${2:-$(nproc)}"
safespec="${SAFESPEC:-build/release/safespec}"
dir="${BENCH_DIR:-/tmp/safespec-bench-many}"
if [ ! -x "$safespec" ]; then
  echo "no safespec at $safespec: cmake --preset release && cmake --build build/release --target safespec" >&2
  exit 2
fi
mkdir -p "$dir"

python3 - "$dir" "$safespec" "$runs" "$jobs" <<'PY'
import json, os, statistics, struct, sys, time

out_dir, safespec, runs, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
FILES, TENSORS = 1000, 64

def write_checkpoint(path, i):
    """File i: TENSORS BF16 [2, 2] tensors named as layer i's, data zero."""
    names = sorted(f"model.layers.{i}.block.{t}.weight" for t in range(TENSORS))  # as our writer orders them
    header = {n: {"dtype": "BF16", "shape": [2, 2], "data_offsets": [8 * t, 8 * t + 8]} for t, n in enumerate(names)}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + bytes(8 * TENSORS))
    return names

many = os.path.join(out_dir, "many")
sharded = os.path.join(out_dir, "sharded")
index = os.path.join(sharded, "model.safetensors.index.json")
# The index as transformers' save_pretrained writes it: sorted keys, indent 2,
# metadata.total_size (an index written another way by an older version of
# this script is written again).
def written_as_transformers(path):
    try:
        with open(path) as f:
            return f.read(14) == '{\n  "metadata"'
    except OSError:
        return False

if not written_as_transformers(index):
    os.makedirs(many, exist_ok=True)
    os.makedirs(sharded, exist_ok=True)
    for i in range(FILES):
        write_checkpoint(os.path.join(many, f"f{i:04d}.safetensors"), i)
    weight_map = {}
    for i in range(FILES):
        shard = f"model-{i + 1:05d}-of-{FILES:05d}.safetensors"
        for n in write_checkpoint(os.path.join(sharded, shard), i):
            weight_map[n] = shard
    with open(index + ".tmp", "w") as f:
        total = FILES * TENSORS * 8
        f.write(json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map}, indent=2, sort_keys=True) + "\n")
    os.rename(index + ".tmp", index)

def run(argv):
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                                       (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
    _, status, usage = os.wait4(pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)

def fmt(xs):
    return f"min {min(xs):.3f}  median {statistics.median(xs):.3f}  max {max(xs):.3f}"

ok = True
print(f"{runs} runs each, interleaved; safespec = {safespec}; {os.cpu_count()} CPUs")
for label, path in (("directory of 1,000 files", many), ("index of 1,000 shards", index)):
    commands = {f"--jobs 1": [safespec, "check", "--jobs", "1", path],
                f"--jobs {jobs}": [safespec, "check", "--jobs", str(jobs), path]}
    results = {k: [] for k in commands}
    for _ in range(runs):
        for k, argv in commands.items():
            results[k].append(run(argv))
    print(f"\n{label} ({path})")
    for k, rs in results.items():
        codes = sorted({r[2] for r in rs})
        print(f"  {k:10s} wall s: {fmt([r[0] for r in rs])}   CPU s: {fmt([r[1] for r in rs])}   exit {codes}")
        ok = ok and codes == [0]
    one, many_ = (statistics.median(r[0] for r in rs) for rs in results.values())
    print(f"  --jobs 1 / --jobs {jobs} (wall medians): {one / many_:.2f}x")
sys.exit(0 if ok else 1)
PY
