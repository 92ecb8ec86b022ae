#!/usr/bin/env bash
# oss_fuzz_local.sh [SECONDS [TARGET...]]: what OSS-Fuzz / ClusterFuzzLite do,
# without Docker: .clusterfuzzlite/build.sh with $CXX, $CXXFLAGS and
# $LIB_FUZZING_ENGINE pointing at clang-14 and libFuzzer (ASan + UBSan, UBSan
# not recovering) and a scratch $OUT (build/oss-fuzz/out), then every target
# it produced runs for SECONDS (default 10) from $OUT alone: its binary, its
# NAME_seed_corpus.zip, its NAME.options and NAME.dict, through scripts/fuzz.sh
# (scratch corpus, every core, fails with the reproducer on any crash, leak,
# timeout or out-of-memory). CI's fuzz stage is this script.
# Then the differential fuzzer example must find the bug planted in its toy
# parser (scripts/fuzz_planted_bug.sh; built in the same tree, not shipped to
# $OUT, since it is meant to crash). SECONDS=0 only builds.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
shift || true
root="$PWD/build/oss-fuzz"
export OUT="$root/out" WORK="$root/work"
export CXX=clang++-14 CC=clang-14
export CXXFLAGS="-O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link"
export CFLAGS="$CXXFLAGS"
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
# The project's own clang-14 is pinned, so its warnings stay errors here.
export SAFESPEC_WERROR=${SAFESPEC_WERROR:-ON}
# The libraries in unity batches (cmake/SafespecOptions.cmake) for build time;
# coverage instrumentation is per function either way.
export SAFESPEC_CMAKE_ARGS="${SAFESPEC_CMAKE_ARGS:--DSAFESPEC_UNITY_LIBRARIES=ON}"
rm -rf "$OUT" && mkdir -p "$OUT" "$WORK"
.clusterfuzzlite/build.sh
ls -l "$OUT"
cmake --build "$WORK/safespec-build" --target example_differential_fuzzer
[ "$seconds" = 0 ] && exit 0
SAFESPEC_FUZZ_OUT="$OUT" scripts/fuzz.sh "$seconds" "$@"
scripts/fuzz_planted_bug.sh "$WORK/safespec-build/examples/example_differential_fuzzer" "$seconds"
