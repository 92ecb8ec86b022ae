# Warnings and sanitizers for the project's own targets (never forced onto
# imported ones).
function(safespec_target_options target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  # The numeric reference states every rounding; a compiler may not fuse a*b+c
  # into one. GCC in ISO mode already does not; clang's default (on) does, and
  # even folds such constants with one rounding, so the same source gave
  # different bytes under the two compilers.
  target_compile_options(${target} PRIVATE -ffp-contract=off)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 at -O3 reports std::string concatenation as overlapping memcpy
    # (GCC bug 105329, a false positive inside libstdc++).
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(SAFESPEC_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# Test code (props/: the unit tests and properties) is compiled for build
# speed: its run time is spent in the libraries it calls, which keep the
# build type's optimisation. Half of a cold build was these translation
# units at -O2; at -O0 with Catch2 and RapidCheck precompiled they take a
# third of that. Under the sanitizers too (clang: half the -O1 compile time,
# and the instrumented libraries still do the work).
option(SAFESPEC_PCH "Precompile the headers every test and command file includes" ON)
function(safespec_test_code_options target)
  target_compile_options(${target} PRIVATE -O0)
  safespec_unity(${target})
endfunction()
# Code no test and no user waits on: the command's option parsing (cli/;
# CLI11 is header-only, and each command file compiled some 500 of its
# functions: 17 s for cli/check.cpp at g++ -O3, 10 s at -O1), the generators
# (gen/; 19 against 12.5 s for gen/models.cpp) and the conformance suite's
# writer. -O1 in place of the build type's level; under the sanitizers the
# level stays (clang -O1): at -O0, the suite's regeneration test took 5x
# as long under ASan (measured together with coverage instrumentation).
# The code they call keeps the build type's optimisation.
function(safespec_cold_code_options target)
  if(NOT SAFESPEC_SANITIZE)
    target_compile_options(${target} PRIVATE -O1)
  endif()
  safespec_unity(${target})
endfunction()
# Unity builds for that same code: its files are compiled in batches of
# eight, so the headers (Catch2, RapidCheck, CLI11, fmt, the standard
# library) are parsed, and their templates instantiated, once per batch
# rather than once per file (with SAFESPEC_PCH the headers are already
# precompiled per target, so the saving is mostly the instantiations). The
# conformance runner and the Python bindings count as cold code here: they
# call into the libraries, whose speed is theirs. A batch is eight files in
# source order, so adding a file moves the later ones into other batches:
# two same-named helpers in anonymous namespaces then fail to compile, which
# is why the test helpers carry per-file names. Off by default: a file that forgets an include
# still compiles inside a batch, so day-to-day builds (the dev preset) keep
# one translation unit per file and catch it; the presets the test command
# runs (release, asan) turn it on.
option(SAFESPEC_UNITY "Compile test and cold code (tests, generators, CLI parsing, the conformance runner, the Python bindings) in unity batches" OFF)
# The libraries (spec/, src/, the C API) in batches too, with LIBRARY: for
# builds whose speed nobody measures (the asan tests, the fuzz targets). Off
# in the release preset, whose benchmarks measure the libraries as `app`
# builds them.
option(SAFESPEC_UNITY_LIBRARIES "Compile the libraries in unity batches too" OFF)
function(safespec_unity target)
  cmake_parse_arguments(U "LIBRARY" "" "" ${ARGN})
  if((U_LIBRARY AND SAFESPEC_UNITY_LIBRARIES) OR (NOT U_LIBRARY AND SAFESPEC_UNITY))
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON)
  endif()
endfunction()
# One precompiled header per target, when SAFESPEC_PCH is on.
function(safespec_precompile target)
  if(SAFESPEC_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()

if(SAFESPEC_SANITIZE)
  # UBSan must not recover: a recovered error prints and exits 0.
  add_compile_options(-fsanitize=${SAFESPEC_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${SAFESPEC_SANITIZE} -fno-sanitize-recover=all)
endif()

if(SAFESPEC_FUZZ)
  # Coverage instrumentation for the library too, not only the target's own
  # translation unit, or libFuzzer is blind to the parser.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
