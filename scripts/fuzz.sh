#!/usr/bin/env bash
# fuzz.sh SECONDS [TARGET...]: runs each libFuzzer target (all by default)
# for SECONDS, on every core (-fork=$(nproc)). New inputs go to a scratch
# corpus in the build tree, listed first, so corpus/ is never modified. Exits
# non-zero on any crash, leak, timeout or out-of-memory, printing the
# reproducer: its path, size, a hex dump of its first bytes and its base64.
# fuzz.sh merge [TARGET...]: -merge=1 of each seed corpus into an empty
# directory: how many seeds add coverage, which do not, and how many of the
# scratch corpus's inputs would add more (nothing in corpus/ changes; seeds
# come from make_corpus, so a redundant one is dropped there).
#
# Targets are the fuzz/NAME.options files (fuzz/CMakeLists.txt checks its list
# against them). Binaries come from the fuzz preset (build/fuzz/fuzz/NAME), or,
# with SAFESPEC_FUZZ_OUT=DIR, from an OSS-Fuzz $OUT directory that
# .clusterfuzzlite/build.sh filled: DIR/NAME with DIR/NAME.options, its dict
# and DIR/NAME_seed_corpus.zip as seeds (scripts/oss_fuzz_local.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=fuzz
if [ "${1:-}" = merge ]; then mode=merge; shift; else seconds=${1:-60}; shift || true; fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in fuzz/*.options; do targets+=("$(basename "$f" .options)"); done
fi
out=${SAFESPEC_FUZZ_OUT:-}
build=build/fuzz
[ -n "$out" ] && build=$(realpath "$out/..")
jobs=$(nproc)

binary() { if [ -n "$out" ]; then echo "$out/$1"; else echo "$build/fuzz/$1"; fi; }

# The seed corpus: corpus/NAME, or the shipped zip unpacked.
seeds() {
  if [ -z "$out" ]; then echo "corpus/$1"; return; fi
  local dir="$build/seeds/$1" zip
  zip=$(realpath "$out/${1}_seed_corpus.zip")
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$dir" && cmake -E tar xf "$zip")
  echo "$dir"
}

# The target's .options file ([libfuzzer] key = value) as -key=value flags.
options() {
  local file dir
  if [ -n "$out" ]; then file="$out/$1.options"; dir="$out"; else file="fuzz/$1.options"; dir=fuzz; fi
  [ -f "$file" ] || return 0
  while IFS='= ' read -r key value; do
    case "$key" in ''|'['*|'#'*) continue ;; esac
    [ "$key" = dict ] && value="$dir/$value"
    echo "-$key=$value"
  done < "$file"
}

show_reproducer() {
  local f=$1
  echo "  $f ($(stat -c %s "$f") bytes)"
  od -A x -t x1z -v "$f" | head -n 16 | sed 's/^/    /'
  echo "    base64: $(head -c 4096 "$f" | base64 -w0)"
  echo "  reproduce: $(binary "$2") $f   (or build/dev/fuzz/${2}_replay $f)"
}

for t in "${targets[@]}"; do
  bin=$(binary "$t")
  [ -x "$bin" ] || { echo "fuzz: no $bin; build the fuzz preset (cmake --workflow --preset fuzz)"; exit 1; }
  mapfile -t opts < <(options "$t")
  seed_dir=$(seeds "$t")
  if [ $mode = merge ]; then
    merged="$build/merged/$t"
    rm -rf "$merged" && mkdir -p "$merged"
    "$bin" "${opts[@]}" -merge=1 "$merged" "$seed_dir" >"$build/$t.merge.log" 2>&1
    kept=$(ls "$merged" | wc -l); total=$(ls "$seed_dir" | wc -l)
    echo "merge: $t keeps $kept of $total seeds"
    declare -A keep=()
    for f in "$merged"/*; do keep[$(basename "$f")]=1; done
    for f in "$seed_dir"/*; do
      [ -n "${keep[$(sha1sum "$f" | cut -c1-40)]:-}" ] || echo "  adds no coverage: $(basename "$f")"
    done
    unset keep
    if [ -d "$build/scratch/$t" ] && [ -n "$(ls "$build/scratch/$t")" ]; then
      before=$kept
      "$bin" "${opts[@]}" -merge=1 "$merged" "$build/scratch/$t" >>"$build/$t.merge.log" 2>&1
      echo "  the scratch corpus adds $(( $(ls "$merged" | wc -l) - before )) inputs (in $merged)"
    fi
    continue
  fi
  scratch="$build/scratch/$t"
  artifacts="$build/artifacts/$t/"
  rm -rf "$artifacts" && mkdir -p "$scratch" "$artifacts"  # only this run's reproducers
  echo "fuzz: $t for ${seconds}s on $jobs cores"
  if ! "$bin" "${opts[@]}" -max_total_time="$seconds" -fork="$jobs" -ignore_crashes=0 \
        -ignore_timeouts=0 -ignore_ooms=0 \
        -artifact_prefix="$artifacts" -print_final_stats=1 "$scratch" "$seed_dir" 2>"$build/$t.log"; then
    tail -n 40 "$build/$t.log"
    echo "fuzz: $t FAILED; reproducer(s):"
    for f in "$artifacts"*; do [ -f "$f" ] && show_reproducer "$f" "$t"; done
    exit 1
  fi
  grep -E "stat::number_of_executed_units|INFO: fuzzed for|cov:" "$build/$t.log" | tail -n 3 || true
done
