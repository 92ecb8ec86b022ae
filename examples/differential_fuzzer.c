/* Fuzzing your parser with safespec as the oracle: a libFuzzer target that
 * gives the same bytes to a parser (here examples/toy_parser.c, which has
 * one planted bug) and to safespec_check_bytes, and traps when they disagree
 * on whether to accept the file.
 *
 * Compare only what your parser claims to decide. The toy parser decides the
 * framing only (the 8-byte header length and its bounds), so the oracle is
 * "safespec, under the reference reader's profile, finds one of the framing
 * rules"; a full loader would compare with "safespec's file is ok". Build it
 * with clang -fsanitize=fuzzer (the fuzz preset builds
 * example_differential_fuzzer), or link a main that replays files, as
 * fuzz/replay_main.cpp does for the tests. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "safespec/safespec.h"
#include "toy_parser.h"

/* The rules the toy parser claims to decide: F1, F3 and F4. */
static const char* const kFramingRules[] = {"ST-FILE-TOO-SMALL", "ST-HEADER-TOO-LARGE", "ST-HEADER-LENGTH"};

/* The framing rule safespec finds in the bytes, or NULL when the framing is
 * valid. Any failure of the oracle itself traps: it is a bug too. */
static const char* safespec_framing_rule(const uint8_t* data, size_t size) {
  safespec_report* report = NULL;
  const char* rule = NULL;
  size_t count = 0, i, k;
  if (safespec_check_bytes(data, size, "safetensors", NULL, &report) != SAFESPEC_OK) __builtin_trap();
  if (safespec_file_finding_count(report, 0, &count) != SAFESPEC_OK) __builtin_trap();
  for (i = 0; i < count && !rule; ++i) {
    safespec_finding f;
    if (safespec_finding_get(report, 0, i, &f) != SAFESPEC_OK) __builtin_trap();
    for (k = 0; k < sizeof kFramingRules / sizeof kFramingRules[0]; ++k)
      if (strcmp(f.rule.data, kFramingRules[k]) == 0) rule = kFramingRules[k];
  }
  safespec_report_free(report);
  return rule;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  toy_header header;
  const int toy_accepts = toy_parse(data, size, &header) == 0;
  const char* rule = safespec_framing_rule(data, size);
  if (toy_accepts == (rule == NULL)) return 0;
  if (toy_accepts)
    fprintf(stderr, "differential_fuzzer: the parser accepts %zu bytes that safespec rejects (%s)\n", size, rule);
  else
    fprintf(stderr, "differential_fuzzer: the parser rejects %zu bytes whose framing safespec accepts\n", size);
  __builtin_trap();
}
