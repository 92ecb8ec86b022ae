/* A toy safetensors reader standing in for a user's own parser: it reads
 * the 8-byte little-endian header length and hands back the header's bytes.
 * examples/differential_fuzzer.c holds it to safespec. */
#ifndef SAFESPEC_EXAMPLES_TOY_PARSER_H
#define SAFESPEC_EXAMPLES_TOY_PARSER_H

#include <stddef.h>
#include <stdint.h>

typedef struct toy_header {
  const uint8_t* json; /* the header's first byte, inside the caller's buffer */
  uint64_t length;     /* its length N, as the file declares it */
} toy_header;

/* 0: the framing is valid and *out is set; -1: the file is rejected. */
int toy_parse(const uint8_t* data, size_t size, toy_header* out);

#endif
