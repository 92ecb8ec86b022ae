#!/usr/bin/env bash
# Whole-process cost of `safespec check --profile safetensors FILE` against
# the in-repo stand-in for the reference reader (Python's json.loads of the
# same header), on synthetic checkpoints of 100,000 and 1,000,000 tensors
#. Users run one fresh process per checkpoint, so this is the
# number they see: start-up, page faults and first-call costs included.
#
# The two commands are run interleaved (A B A B ...) so that noise from other
# processes on a shared machine falls on both alike; min/median/max of the
# wall seconds are printed with the ratio of the medians, the minor page
# faults of each (every first touch of a 4 KiB page) and the peak resident
# size, which is the memory figure: it also counts huge pages, which a fault
# count takes for 4 KiB each.
# CPU seconds (user + system) are printed too: on a shared machine the wall
# time also counts other processes' turns, the CPU time much less so.
#
# Usage: scripts/bench_check.sh [RUNS] [TENSOR_COUNTS...]
#   SAFESPEC=path/to/safespec (default build/release/safespec)
#   BEFORE=path/to/another/safespec: also run it, interleaved (a before/after)
#   BENCH_DIR=where the synthetic files go (default /tmp/safespec-bench-check)
# The files' data regions are sparse (truncate), so no tensor bytes are written.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-7}"
shift || true
counts=("$@")
[ ${#counts[@]} -eq 0 ] && counts=(100000 1000000)
safespec="${SAFESPEC:-build/release/safespec}"
dir="${BENCH_DIR:-/tmp/safespec-bench-check}"
if [ ! -x "$safespec" ]; then
  echo "no safespec at $safespec: cmake --preset release && cmake --build build/release --target safespec" >&2
  exit 2
fi
mkdir -p "$dir"

python3 - "$dir" "$safespec" "${BEFORE:-}" "$runs" "${counts[@]}" <<'EOF'
import os, statistics, struct, sys, time

out_dir, safespec, before, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
counts = [int(c) for c in sys.argv[5:]]

def make_checkpoint(tensors):
    """The checkpoint of `tensors` tensors, written by a forked child: this
    process must stay small, since a child it spawns reports in ru_maxrss the
    resident size of this process's memory too (posix_spawn's child shares
    it until exec, and exec keeps that high-water mark)."""
    path = os.path.join(out_dir, f"moe-{tensors}.safetensors")
    if os.path.exists(path):
        return path
    pid = os.fork()
    if pid == 0:
        try:
            write_checkpoint(path, tensors)
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"could not write {path}")
    return path

def write_checkpoint(path, tensors):
    """A mixture-of-experts checkpoint in canonical order (F32 before BF16,
    then by name, as gen/synthetic.cpp writes it), about 96 header bytes a
    tensor as in the issue (a million tensors stay under the 100 MB header
    limit), written with a sparse data region of the right length."""
    entries = []
    for i in range(tensors):
        name = f"layers.{i // 16}.ffn.{i % 16}.w2"
        f32 = i % 5 == 0
        entries.append((0 if f32 else 1, name, "F32" if f32 else "BF16", [4096] if f32 else [64, 64]))
    entries.sort()
    parts = ['"__metadata__":{"format":"pt","producer":"safespec synthetic"}']
    offset = 0
    for _, name, dtype, shape in entries:
        size = (4 if dtype == "F32" else 2)
        for d in shape:
            size *= d
        parts.append(f'"{name}":{{"dtype":"{dtype}","shape":[{",".join(map(str, shape))}],'
                     f'"data_offsets":[{offset},{offset + size}]}}')
        offset += size
    text = ("{" + ",".join(parts) + "}").encode()
    text += b" " * (-len(text) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        f.truncate(8 + len(text) + offset)  # sparse: no data written
    os.rename(tmp, path)

def run(argv):
    """Wall seconds, minor page faults, peak RSS (KiB), exit status and CPU
    seconds (user + system) of one process."""
    # posix_spawn (vfork-like in glibc): no copy-on-write faults of this
    # Python process are counted as the child's.
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                                       (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_minflt, usage.ru_maxrss, code, usage.ru_utime + usage.ru_stime

stand_in = ("import json,sys\n"
            "f=open(sys.argv[1],'rb')\n"
            "n=int.from_bytes(f.read(8),'little')\n"
            "json.loads(f.read(n))\n")

def fmt(xs):
    return f"min {min(xs):.3f}  median {statistics.median(xs):.3f}  max {max(xs):.3f}"

ok = True
print(f"{runs} runs each, interleaved, after one untimed round; safespec = {safespec}")
# Every file is written, and the writes flushed, before anything is timed:
# a 96 MB header written just before the 100k runs was still being written
# back during them, and a first run of five measured 8.7x where the next
# runs measured 12x (5 December 2026, the Zen 3 VM of docs/performance.md).
paths = {tensors: make_checkpoint(tensors) for tensors in counts}
os.sync()
for tensors in counts:
    path = paths[tensors]
    with open(path, "rb") as f:
        header = struct.unpack("<Q", f.read(8))[0]
    commands = {
        "safespec": [safespec, "check", "--profile", "safetensors", path],
        "python":   [sys.executable, "-c", stand_in, path],
    }
    if before:
        commands["before"] = [before, "check", "--profile", "safetensors", path]
    results = {k: [] for k in commands}
    for argv in commands.values():
        run(argv)  # untimed: the first run after a write also reads the file into the page cache
    for _ in range(runs):
        for k, argv in commands.items():
            results[k].append(run(argv))
    print(f"\n{tensors} tensors, header {header / 1e6:.1f} MB ({path})")
    for k, rs in results.items():
        codes = sorted({r[3] for r in rs})
        faults = [r[1] for r in rs]
        touched = statistics.median(faults) * 4096
        print(f"  {k:8s} wall s: {fmt([r[0] for r in rs])}   CPU s: {fmt([r[4] for r in rs])}")
        print(f"  {'':8s} faults median {int(statistics.median(faults))}"
              f" ({touched / 2**20:.1f} MiB = {touched / header:.2f} x header)"
              f"   peak RSS {statistics.median([r[2] for r in rs]) / 1024:.1f} MiB   exit {codes}")
        if codes != [0]:
            ok = False
    s = statistics.median(r[0] for r in results["safespec"])
    p = statistics.median(r[0] for r in results["python"])
    # Memory is the peak resident size: the minor faults count a 2 MiB huge
    # page (the header buffer, src/io/header_memory.cpp) as one 4 KiB page.
    touched = statistics.median(r[2] for r in results["safespec"]) * 1024
    budget = 1.5 * header + 8 * 2**20  # the issue's "1.5 x header plus a fixed few MiB"
    pc = statistics.median(r[4] for r in results["python"]) / statistics.median(r[4] for r in results["safespec"])
    print(f"  python / safespec (medians): wall {p / s:.1f}x, CPU {pc:.1f}x   (target >= 10x: {'met' if p / s >= 10 else 'NOT met'} on wall time)")
    print(f"  safespec peak RSS {touched / 2**20:.1f} MiB, budget 1.5 x header + 8 MiB = {budget / 2**20:.1f} MiB"
          f"   ({'met' if touched <= budget else 'NOT met'})")
sys.exit(0 if ok else 1)
EOF
