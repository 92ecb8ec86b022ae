/* The C tests' one assertion: CHECK records a failure with its place and
 * goes on, so a run reports every broken expectation; main returns
 * failures != 0. Each test file includes this once. */
#ifndef SAFESPEC_PROPS_C_CHECK_H
#define SAFESPEC_PROPS_C_CHECK_H

#include <stdio.h>

static int failures = 0;

#define CHECK(cond)                                                             \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                               \
    }                                                                           \
  } while (0)

#endif
