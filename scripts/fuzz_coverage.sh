#!/usr/bin/env bash
# fuzz_coverage.sh [TARGET...]: clang-14 source-based coverage of spec/ and
# src/ reached by the fuzz corpora alone: each target's NAME_replay (coverage
# preset) runs over corpus/NAME and, when present, the scratch corpus of the
# last fuzzing run (build/fuzz/scratch/NAME, or build/oss-fuzz/scratch/NAME
# after scripts/oss_fuzz_local.sh). Prints each target's own line and region
# coverage, then the union's per-file summary; HTML in
# build/coverage/fuzz-html/. scripts/coverage.sh covers the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in fuzz/*.options; do targets+=("$(basename "$f" .options)"); done
fi
cmake --preset coverage >/dev/null
cmake --build --preset coverage --target "${targets[@]/%/_replay}"
profiles=build/coverage/fuzz-profiles
rm -rf "$profiles" && mkdir -p "$profiles"
objects=()
for t in "${targets[@]}"; do
  inputs=("corpus/$t")
  for s in build/fuzz/scratch/$t build/oss-fuzz/scratch/$t; do
    [ -d "$s" ] && [ -n "$(ls "$s")" ] && inputs+=("$s")
  done
  LLVM_PROFILE_FILE="$PWD/$profiles/$t.profraw" build/coverage/fuzz/${t}_replay "${inputs[@]}" >/dev/null
  llvm-profdata-14 merge -sparse "$profiles/$t.profraw" -o "$profiles/$t.profdata"
  line=$(llvm-cov-14 report -instr-profile="$profiles/$t.profdata" "build/coverage/fuzz/${t}_replay" \
           "$PWD/spec" "$PWD/src" | tail -n 1)
  # TOTAL regions missed cover% functions missed executed% lines missed cover% ...
  echo "$t (${inputs[*]}): regions $(echo "$line" | awk '{print $4}'), lines $(echo "$line" | awk '{print $10}')"
  if [ ${#objects[@]} -eq 0 ]; then objects+=("build/coverage/fuzz/${t}_replay")
  else objects+=(-object "build/coverage/fuzz/${t}_replay"); fi
done
llvm-profdata-14 merge -sparse "$profiles"/*.profraw -o "$profiles/all.profdata"
llvm-cov-14 report -ignore-filename-regex="/(fuzz|props)/" -instr-profile="$profiles/all.profdata" "${objects[@]}" "$PWD/spec" "$PWD/src"
llvm-cov-14 show -format=html -output-dir=build/coverage/fuzz-html -instr-profile="$profiles/all.profdata" \
  "${objects[@]}" "$PWD/spec" "$PWD/src" >/dev/null
echo "fuzz coverage: HTML report in build/coverage/fuzz-html/index.html"
