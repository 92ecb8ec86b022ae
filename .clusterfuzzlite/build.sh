#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build: every fuzz target (fuzz/NAME.options marks
# one) built with CMake using the engine's $CXX, $CXXFLAGS (sanitizers and
# -fsanitize=fuzzer-no-link) and $LIB_FUZZING_ENGINE, and shipped to $OUT as
#   $OUT/NAME  $OUT/NAME_seed_corpus.zip  $OUT/NAME.dict  $OUT/NAME.options
# the layout both engines read. Outside their containers, set the same
# variables (scripts/oss_fuzz_local.sh does) and it builds here.
# Source: $SRC/safespec in the container (the Dockerfile copies it there),
# else the checkout this script is in. Build tree: $WORK/safespec-build when
# $WORK is set, else build/oss-fuzz in the checkout.
set -o pipefail
if [ -n "${SRC:-}" ] && [ -f "$SRC/safespec/CMakeLists.txt" ]; then
  src="$SRC/safespec"
else
  src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fi
: "${OUT:?set OUT to the directory that receives the fuzz targets}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
: "${CXX:=clang++}"
build="${WORK:-$src/build/oss-fuzz}/safespec-build"
mkdir -p "$OUT" "$build"

# C: the C API's example fuzzer (examples/) and tests are C; the engines set $CC too.
: "${CC:=clang}"
# CMake reads $CXX, $CXXFLAGS, $CC and $CFLAGS itself. No -Werror (unless SAFESPEC_WERROR=ON): the engines' clang is
# newer than the one the project's warnings are pinned to. No CMake build type
# either, so the engine's optimisation flags in $CXXFLAGS are the ones used.
# $SAFESPEC_CMAKE_ARGS: more -D options (scripts/oss_fuzz_local.sh batches the
# libraries for build speed); the engines set none.
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_C_COMPILER="$CC" \
  -DSAFESPEC_FUZZ=ON -DSAFESPEC_TESTS=OFF -DSAFESPEC_WERROR="${SAFESPEC_WERROR:-OFF}" -DSAFESPEC_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" \
  ${SAFESPEC_CMAKE_ARGS:-}

targets=()
for options in "$src"/fuzz/*.options; do targets+=("$(basename "$options" .options)"); done
cmake --build "$build" --target "${targets[@]}"

for t in "${targets[@]}"; do
  cp "$build/fuzz/$t" "$OUT/$t"
  cp "$src/fuzz/$t.dict" "$src/fuzz/$t.options" "$OUT/"
  rm -f "$OUT/${t}_seed_corpus.zip"
  # Flat zip of the seeds; cmake -E tar needs no zip binary.
  (cd "$src/corpus/$t" && cmake -E tar cf "$OUT/${t}_seed_corpus.zip" --format=zip -- *)
done
echo "build.sh: ${#targets[@]} targets in $OUT: ${targets[*]}"
