#!/usr/bin/env bash
# Every test: the g++ -O3 build with unit tests, properties, corpus replays
# and the benchmarks; the same tests under ASan + UBSan; the clang-14
# libFuzzer build (through .clusterfuzzlite/build.sh) with a short fuzzing
# run per target; pip install of the Python module.
# Three cold builds, not four: the unsanitized tests run in the release
# build the benchmarks and pip need anyway (the dev preset, -O2 -g, is the
# same tests for day-to-day work).
set -euo pipefail
cd "$(dirname "$0")/.."
stage() { echo "test.sh: $1 ($(date +%T), ${SECONDS}s in)"; }
# ccache (Debian's), in build/ccache unless CCACHE_DIR says otherwise: within
# one run it serves the shared-library smoke test's library from the release
# build's objects (cmake/SharedSmoke.cmake); across runs, all that did not
# change. A clean clone starts with an empty cache, so its timing is a cold one.
# No CCACHE_BASEDIR: it rewrites paths relative to each build folder, and the
# smoke test's folder is deeper than the release build's, so no command would
# match.
if command -v ccache >/dev/null; then
  export CCACHE_DIR="${CCACHE_DIR:-$PWD/build/ccache}"
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
stage "release: build, tests, benchmarks"
cmake --workflow --preset release
# The asan test preset leaves out four tests that only repeat the release
# stage's work under a sanitizer: building against the installed package
# (install.smoke, install.shared_smoke: a compiler's run, 100 s under ASan),
# regenerating the conformance suite byte for byte, and writing and reading
# a 100,000,000-byte header (the parser's bounds are the fuzzers' and the
# other header tests'). Together they were a fifth of the stage's test time.
stage "asan: build, tests"
cmake --workflow --preset asan
# The fuzz stage: the clang-14 libFuzzer targets built the way OSS-Fuzz and
# ClusterFuzzLite build them (.clusterfuzzlite/build.sh, so CI proves that
# script), each fuzzed from what it shipped for a smoke run (10 s each on
# every core; long runs are ClusterFuzzLite's, .clusterfuzzlite/).
stage "fuzz: build.sh, a smoke run per target"
scripts/oss_fuzz_local.sh "${SAFESPEC_FUZZ_SECONDS:-10}"
# pip install of the Python module, from the release build just made.
stage "pip install"
scripts/pip_smoke.sh
stage "done"
