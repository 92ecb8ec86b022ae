#!/usr/bin/env bash
# Source-based coverage (clang-14) of spec/ and src/ by the whole test suite,
# the fuzz corpora replays included. Prints the per-file summary and writes
# an HTML report to build/coverage/html/.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset coverage >/dev/null
cmake --build --preset coverage
rm -rf build/coverage/profiles && mkdir -p build/coverage/profiles
LLVM_PROFILE_FILE="$PWD/build/coverage/profiles/%p.profraw" ctest --test-dir build/coverage -j"$(nproc)" >/dev/null
llvm-profdata-14 merge -sparse build/coverage/profiles/*.profraw -o build/coverage/all.profdata
objects=(build/coverage/safespec)
for exe in build/coverage/props/safespec_props build/coverage/fuzz/header_fuzzer_replay \
           build/coverage/fuzz/differential_fuzzer_replay; do objects+=(-object "$exe"); done
llvm-cov-14 report -instr-profile=build/coverage/all.profdata "${objects[@]}" "$PWD/spec" "$PWD/src"
llvm-cov-14 show -format=html -output-dir=build/coverage/html -instr-profile=build/coverage/all.profdata \
  "${objects[@]}" "$PWD/spec" "$PWD/src" >/dev/null
echo "coverage: HTML report in build/coverage/html/index.html"
