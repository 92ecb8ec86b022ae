#!/usr/bin/env bash
# Every test: the g++ build with unit tests, properties and corpus replays;
# the same under ASan + UBSan; the clang-14 libFuzzer build with a short
# fuzzing run per target; the benchmark build.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --workflow --preset dev
cmake --workflow --preset asan
cmake --workflow --preset fuzz
scripts/fuzz.sh "${SAFESPEC_FUZZ_SECONDS:-60}"
cmake --workflow --preset release
