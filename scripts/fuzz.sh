#!/usr/bin/env bash
# fuzz.sh SECONDS [TARGET...]: runs each libFuzzer target (all by default) of
# the fuzz preset for SECONDS, on every core. New inputs go to a scratch
# corpus in the build tree, listed first, so corpus/ is never modified. Exits
# non-zero on any crash, leak, timeout or out-of-memory, printing the
# reproducer's path.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(header_fuzzer differential_fuzzer marker_fuzzer checkpoint_fuzzer linear_fuzzer); fi
build=build/fuzz
jobs=$(nproc)
for t in "${targets[@]}"; do
  scratch="$build/scratch/$t"
  artifacts="$build/artifacts/$t/"
  mkdir -p "$scratch" "$artifacts"
  echo "fuzz: $t for ${seconds}s on $jobs cores"
  # The target's .options file ([libfuzzer] key = value) becomes -key=value.
  options=()
  if [ -f "fuzz/$t.options" ]; then
    while IFS='= ' read -r key value; do
      case "$key" in ''|'['*|'#'*) continue ;; esac
      [ "$key" = dict ] && value="fuzz/$value"
      options+=("-$key=$value")
    done < "fuzz/$t.options"
  fi
  if ! "$build/fuzz/$t" "${options[@]}" -max_total_time="$seconds" -fork="$jobs" -ignore_crashes=0 \
        -ignore_timeouts=0 -ignore_ooms=0 \
        -artifact_prefix="$artifacts" -print_final_stats=1 "$scratch" "corpus/$t" 2>"$build/$t.log"; then
    tail -n 40 "$build/$t.log"
    echo "fuzz: $t FAILED; reproducer(s):"
    ls -1 "$artifacts"
    exit 1
  fi
  grep -E "stat::number_of_executed_units|INFO: fuzzed for|cov:" "$build/$t.log" | tail -n 3 || true
done
