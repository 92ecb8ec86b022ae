/* A plausible first attempt at the safetensors framing (safespec's rules F1,
 * F3, F4: at least 8 bytes, N at most 100,000,000, 8 + N within the file),
 * with ONE bug planted on purpose, for examples/differential_fuzzer.c to
 * find: the last bound compares N with the whole file, forgetting the 8
 * bytes the length itself takes, so a header that runs up to 8 bytes past
 * the end of the file is accepted. The fix: `n > size - 8`. */
#include "toy_parser.h"

#define TOY_MAX_HEADER 100000000u

int toy_parse(const uint8_t* data, size_t size, toy_header* out) {
  uint64_t n = 0;
  int i;
  if (size < 8) return -1;
  for (i = 0; i < 8; ++i) n |= (uint64_t)data[i] << (8 * i);
  if (n > TOY_MAX_HEADER) return -1;
  if (n > size) return -1; /* the planted bug (see above) */
  out->json = data + 8;
  out->length = n;
  return 0;
}
