// The C API equivalence programs' one assertion (they are plain executables,
// not Catch2, so that they link the C API as an outside program does):
// EXPECT records a failure with its place and what was compared, and goes on;
// main returns failures != 0.
#pragma once

#include <cstdio>
#include <string>

inline int failures = 0;

#define EXPECT(cond, what)                                                        \
  do {                                                                            \
    if (!(cond)) {                                                                \
      ++failures;                                                                 \
      std::fprintf(stderr, "%s:%d: FAILED %s (%s)\n", __FILE__, __LINE__, #cond, \
                   std::string(what).c_str());                                    \
    }                                                                             \
  } while (0)
