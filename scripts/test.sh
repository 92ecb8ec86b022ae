#!/usr/bin/env bash
# Every test: the g++ build with unit tests, properties and corpus replays;
# the same under ASan + UBSan; the clang-14 libFuzzer build (through
# .clusterfuzzlite/build.sh) with a short fuzzing run per target; the
# benchmark build.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --workflow --preset dev
cmake --workflow --preset asan
# The fuzz stage: the clang-14 libFuzzer targets built the way OSS-Fuzz and
# ClusterFuzzLite build them (.clusterfuzzlite/build.sh, so CI proves that
# script), each fuzzed from what it shipped (about a minute each).
scripts/oss_fuzz_local.sh "${SAFESPEC_FUZZ_SECONDS:-60}"
cmake --workflow --preset release
# pip install of the Python module, from the release build just made.
scripts/pip_smoke.sh
