/* The C tests' one assertion: CHECK records a failure with its place and
 * goes on, so a run reports every broken expectation; main returns
 * failures != 0. Each test file includes this once. expect_error: a
 * numeric call's refusal, its status, rule and the start of its message. */
#ifndef SAFESPEC_PROPS_C_CHECK_H
#define SAFESPEC_PROPS_C_CHECK_H

#include <stdio.h>
#include <string.h>

#include <safespec/safespec.h>

static int failures = 0;

#define CHECK(cond)                                                             \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                               \
    }                                                                           \
  } while (0)

static inline void expect_error(safespec_status got, const safespec_error* err, safespec_status status,
                                const char* rule, const char* message) {
  CHECK(got == status);
  CHECK(strcmp(err->rule, rule) == 0);
  CHECK(strncmp(err->message, message, strlen(message)) == 0);
  CHECK(err->message_size == strlen(err->message));
  if (got != status || strcmp(err->rule, rule) != 0 || strncmp(err->message, message, strlen(message)) != 0)
    fprintf(stderr, "  got status %d, rule '%s', message '%s'\n", (int)got, err->rule, err->message);
}

#endif
