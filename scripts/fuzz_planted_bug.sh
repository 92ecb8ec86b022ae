#!/usr/bin/env bash
# fuzz_planted_bug.sh BINARY [SECONDS]: the differential fuzzer example
# (examples/differential_fuzzer.c) must find the bug planted in
# examples/toy_parser.c: libFuzzer runs BINARY from the example's seeds (none
# of which shows the bug) for at most SECONDS (default 60), and this fails
# unless it stops on a crash whose input, replayed, is the disagreement the
# example reports. An expected-failure run: the fuzz stage's proof that a
# differential harness over the C API finds a real parser bug in time.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: fuzz_planted_bug.sh BINARY [SECONDS]}
seconds=${2:-60}
work=$(dirname "$bin")/planted_bug_run
rm -rf "$work" && mkdir -p "$work/scratch" "$work/artifacts"
start=$(date +%s)
# Seeds are listed second, so new inputs go to the scratch corpus.
if "$bin" -max_total_time="$seconds" -artifact_prefix="$work/artifacts/" \
    "$work/scratch" examples/differential_fuzzer_seeds >"$work/log" 2>&1; then
  tail -n 20 "$work/log"
  echo "fuzz_planted_bug: no crash in ${seconds}s: the planted bug in examples/toy_parser.c was not found"
  exit 1
fi
crash=$(ls "$work"/artifacts/crash-* 2>/dev/null | head -n 1 || true)
if [ -z "$crash" ]; then
  tail -n 40 "$work/log"
  echo "fuzz_planted_bug: the run failed without a crash input"
  exit 1
fi
if ! grep -q "differential_fuzzer: the parser accepts .* bytes that safespec rejects (ST-HEADER-LENGTH)" "$work/log"; then
  tail -n 40 "$work/log"
  echo "fuzz_planted_bug: the crash is not the planted disagreement"
  exit 1
fi
echo "fuzz_planted_bug: found the planted bug in $(( $(date +%s) - start ))s: $crash ($(stat -c %s "$crash") bytes)"
