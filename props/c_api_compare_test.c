/* The C API's comparison of two tensors and its rule catalogue, from C:
 * distances in ulps pinned on hand-made pairs (one element per kind of
 * distance), where they first and worst differ, the tolerance, bytes
 * compared as stored for sub-byte dtypes, every refusal, and the rule
 * catalogue's JSON (python/tests holds it to `safespec rules --json`). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "props/c_api_numerics_cases.h"

#include "c_check.h"

static float float_at_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* The summary, distances and differences of one F32 [2, 3] pair: three
 * equal elements, one 1 ulp apart, one 3 ulps, and a NaN against 6. */
static void distances_and_differences(void) {
  const float expected[6] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
  const float actual[6] = {1.0f, float_at_bits(0x40000001u), 3.0f, float_at_bits(0x40800003u), 5.0f, NAN};
  const safespec_tensor e = case_tensor(expected, sizeof expected, SAFESPEC_DTYPE_F32, 2, 2, 3);
  const safespec_tensor a = case_tensor(actual, sizeof actual, SAFESPEC_DTYPE_F32, 2, 2, 3);
  const safespec_tolerance three = {3, 0.0, 0.0};
  const uint64_t want_ulps[3] = {0, 1, 3}, want_elements[4] = {3, 1, 1, 1};
  safespec_comparison* c = NULL;
  safespec_comparison_summary s;
  safespec_difference d;
  safespec_error err;
  size_t n = 0, i;
  CHECK(safespec_compare(&e, &a, &three, &c, &err) == SAFESPEC_OK && c != NULL);
  if (!c) return;
  CHECK(safespec_comparison_get(c, &s) == SAFESPEC_OK);
  CHECK(s.count == 6 && s.bit_exact == 3 && s.max_ulps_infinite == 1 && s.within == 0 && s.beyond == 1);
  CHECK(safespec_comparison_distance_count(c, &n) == SAFESPEC_OK && n == 4);
  for (i = 0; i < n && i < 4; ++i) {
    int infinite = -1;
    uint64_t ulps = 99, elements = 0;
    CHECK(safespec_comparison_distance(c, i, &infinite, &ulps, &elements) == SAFESPEC_OK);
    CHECK(infinite == (i == 3) && elements == want_elements[i] && (i == 3 || ulps == want_ulps[i]));
  }
  {
    int infinite;
    uint64_t ulps, elements;
    CHECK(safespec_comparison_distance(c, 4, &infinite, &ulps, &elements) == SAFESPEC_OUT_OF_RANGE);
  }
  CHECK(safespec_comparison_difference(c, SAFESPEC_DIFFERENCE_FIRST, &d) == SAFESPEC_OK);
  CHECK(d.present == 1 && d.index == 1 && d.differing == 3 && strcmp(d.position.data, "[0, 1]") == 0);
  CHECK(d.expected.data != NULL && strstr(d.expected.data, "0x40000000") != NULL);
  CHECK(d.actual.data != NULL && strstr(d.actual.data, "0x40000001") != NULL);
  CHECK(safespec_comparison_difference(c, SAFESPEC_DIFFERENCE_WORST, &d) == SAFESPEC_OK);
  CHECK(d.present == 1 && d.index == 5 && d.differing == 0 && strcmp(d.position.data, "[1, 2]") == 0);
  CHECK(safespec_comparison_difference(c, (safespec_difference_kind)2, &d) == SAFESPEC_INVALID_ARGUMENT);
  safespec_comparison_free(c);

  /* Equal tensors: one distance (0), no difference, and no tolerance needed. */
  CHECK(safespec_compare(&e, &e, NULL, &c, &err) == SAFESPEC_OK && c != NULL);
  if (!c) return;
  CHECK(safespec_comparison_get(c, &s) == SAFESPEC_OK);
  CHECK(s.count == 6 && s.bit_exact == 6 && s.max_ulps_infinite == 0 && s.max_ulps == 0 && s.within == 1);
  CHECK(safespec_comparison_distance_count(c, &n) == SAFESPEC_OK && n == 1);
  CHECK(safespec_comparison_difference(c, SAFESPEC_DIFFERENCE_FIRST, &d) == SAFESPEC_OK && d.present == 0);
  safespec_comparison_free(c);
}

/* atol and rtol as numpy.isclose; integers |a - b| apart; F4 as its bytes. */
static void tolerance_integers_and_bytes(void) {
  const float one = 1.0f, near_one = 1.001f;
  const int32_t five = 5, nine = 9;
  const uint8_t f4_expected[2] = {0x12, 0x34}, f4_actual[2] = {0x12, 0x35};
  const safespec_tolerance loose = {0, 0.002, 0.0};
  safespec_tensor e = case_tensor(&one, 4, SAFESPEC_DTYPE_F32, 1, 1, 0);
  safespec_tensor a = case_tensor(&near_one, 4, SAFESPEC_DTYPE_F32, 1, 1, 0);
  safespec_comparison* c = NULL;
  safespec_comparison_summary s;
  safespec_error err;
  size_t n = 0;
  CHECK(safespec_compare(&e, &a, &loose, &c, &err) == SAFESPEC_OK);
  CHECK(safespec_comparison_get(c, &s) == SAFESPEC_OK && s.within == 1 && s.max_ulps > 8000);
  CHECK(fabs(s.max_abs - 0.001) < 1e-6);
  safespec_comparison_free(c);

  e = case_tensor(&five, 4, SAFESPEC_DTYPE_I32, 0, 0, 0);
  a = case_tensor(&nine, 4, SAFESPEC_DTYPE_I32, 0, 0, 0);
  CHECK(safespec_compare(&e, &a, NULL, &c, &err) == SAFESPEC_OK);
  CHECK(safespec_comparison_get(c, &s) == SAFESPEC_OK && s.count == 1 && s.max_ulps == 4 && s.beyond == 1);
  safespec_comparison_free(c);

  /* Four F4 values in two bytes: the two bytes, equal only all together. */
  e = case_tensor(f4_expected, 2, SAFESPEC_DTYPE_F4, 1, 4, 0);
  a = case_tensor(f4_actual, 2, SAFESPEC_DTYPE_F4, 1, 4, 0);
  CHECK(safespec_compare(&e, &a, NULL, &c, &err) == SAFESPEC_OK);
  CHECK(safespec_comparison_get(c, &s) == SAFESPEC_OK && s.count == 2 && s.bit_exact == 0 && s.max_ulps_infinite == 1);
  CHECK(safespec_comparison_distance_count(c, &n) == SAFESPEC_OK && n == 1);
  safespec_comparison_free(c);
}

static void refusals(void) {
  const float x[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  const uint16_t h[4] = {0, 0, 0, 0};
  const safespec_tensor f32_2x2 = case_tensor(x, 16, SAFESPEC_DTYPE_F32, 2, 2, 2);
  const safespec_tensor f32_4 = case_tensor(x, 16, SAFESPEC_DTYPE_F32, 1, 4, 0);
  const safespec_tensor bf16_2x2 = case_tensor(h, 8, SAFESPEC_DTYPE_BF16, 2, 2, 2);
  const safespec_tensor short_one = case_tensor(x, 12, SAFESPEC_DTYPE_F32, 2, 2, 2);
  safespec_tolerance bad = {0, -1.0, 0.0};
  safespec_comparison* c = NULL;
  safespec_error err;
  expect_error(safespec_compare(&f32_2x2, &bf16_2x2, NULL, &c, &err), &err, SAFESPEC_INVALID_INPUT, "",
               "actual: expected dtype F32 as expected's, found BF16");
  expect_error(safespec_compare(&f32_2x2, &f32_4, NULL, &c, &err), &err, SAFESPEC_INVALID_INPUT, "",
               "actual: expected shape [2, 2] as expected's, found [4]");
  expect_error(safespec_compare(&f32_2x2, &short_one, NULL, &c, &err), &err, SAFESPEC_INVALID_ARGUMENT, "",
               "actual: expected size_bytes 16");
  expect_error(safespec_compare(&f32_2x2, &f32_2x2, &bad, &c, &err), &err, SAFESPEC_INVALID_ARGUMENT, "",
               "tolerance: expected atol and rtol finite, 0 or more, found atol=-1");
  bad.atol = 0.0;
  bad.rtol = INFINITY;
  expect_error(safespec_compare(&f32_2x2, &f32_2x2, &bad, &c, &err), &err, SAFESPEC_INVALID_ARGUMENT, "",
               "tolerance: expected atol and rtol finite");
  expect_error(safespec_compare(NULL, &f32_2x2, NULL, &c, &err), &err, SAFESPEC_INVALID_ARGUMENT, "",
               "expected: expected a tensor, found a null pointer");
  expect_error(safespec_compare(&f32_2x2, &f32_2x2, NULL, NULL, &err), &err, SAFESPEC_INVALID_ARGUMENT, "", "out:");
  CHECK(c == NULL);
  CHECK(safespec_comparison_get(NULL, NULL) == SAFESPEC_INVALID_ARGUMENT);
  safespec_comparison_free(NULL);
}

/* One text, made once, with the document's final newline. */
static void rules_json(void) {
  const char* json = NULL;
  const char* again = NULL;
  size_t len = 0, len_again = 0;
  CHECK(safespec_rules_json(&json, &len) == SAFESPEC_OK && json != NULL);
  if (!json) return;
  CHECK(len == strlen(json) && len > 2 && strncmp(json, "{\"schema\":1,\"rules\":[", 21) == 0);
  CHECK(json[len - 1] == '\n');
  CHECK(safespec_rules_json(&again, &len_again) == SAFESPEC_OK && again == json && len_again == len);
  CHECK(safespec_rules_json(NULL, &len) == SAFESPEC_INVALID_ARGUMENT);
}

int main(void) {
  distances_and_differences();
  tolerance_integers_and_bytes();
  refusals();
  rules_json();
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
