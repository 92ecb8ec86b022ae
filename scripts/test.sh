#!/usr/bin/env bash
# Every test, each where it proves most, in three cold builds:
# - release (g++ -O3): what ships (the command, the libraries, the Python
#   module) and the benchmarks, with the tests labelled `release`, those
#   that need an unsanitized build or prove the package (pytest, peak
#   memory, install and the shared library, byte-for-byte regeneration of
#   the conformance suite);
# - asan (clang, ASan + UBSan): every other test, unit tests, properties,
#   corpus replays and the CLI contract, one CTest test per test file;
# - fuzz: the clang-14 libFuzzer build (through .clusterfuzzlite/build.sh)
#   with a short fuzzing run per target;
# then pip install of the Python module. The dev preset (-O2 -g, a CTest
# test per TEST_CASE) runs all of it in one build for day-to-day work.
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
stage "release: the shipped programs, the benchmarks, the release-labelled tests"
cmake --workflow --preset release
stage "asan: build, every other test"
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
