/* The C API's numerics (include/safespec/numerics.h) used from C, as a
 * kernel author would: the W4A8 linear of three small layers (shared with
 * c_api_numerics_equiv_test.cpp) pinned bit for bit to the C++ reference's
 * output (printed by `c_api_numerics_equiv_test --print-pins`), the
 * int8_tensorwise and convrot_w4a4 linears of two more (shared with
 * c_api_int_linear_equiv_test.cpp, which prints theirs), the
 * intermediates, the codecs at their edges, and every refusal: the
 * documented status, the rule and the message, and no crash on NULL. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "props/c_api_numerics_cases.h"

#include "c_check.h"

/* The C++ reference's y for cases A (F32 [1, 2]), B (BF16 [2, 2]) and C
 * (F16 [1, 2]), little-endian bytes. */
static const uint8_t kYA[] = {0xc8, 0x3a, 0x81, 0x3f, 0x96, 0x92, 0xaa, 0xbe};
static const uint8_t kYB[] = {0x7e, 0xbe, 0xf4, 0xbe, 0xc3, 0xbc, 0x2e, 0xbe};
static const uint8_t kYC[] = {0xc4, 0xbc, 0xe6, 0x39};

static safespec_status run(const safespec_w4a8_layer* l, const safespec_tensor* x, safespec_semantics sem, void* y,
                           size_t y_size, safespec_dtype y_dtype, safespec_tensors** trace, safespec_error* err) {
  safespec_w4a8_options o;
  safespec_buffer out;
  CHECK(safespec_w4a8_options_init(&o) == SAFESPEC_OK);
  o.semantics = sem;
  out.data = y;
  out.size_bytes = y_size;
  out.dtype = y_dtype;
  return safespec_w4a8_linear(l, x, &o, &out, trace, err);
}

static void pinned_outputs(void) {
  safespec_w4a8_layer l;
  safespec_tensor x;
  safespec_error err;
  safespec_tensors* trace = NULL;
  const safespec_tensor_view* v;
  safespec_tensor_view first;
  size_t count = 0;
  uint8_t y[16];
  case_a a;
  case_b b;
  case_c c;

  case_a_fill(&a, &l, &x);
  CHECK(run(&l, &x, SAFESPEC_SEMANTICS_EAGER, y, sizeof kYA, SAFESPEC_DTYPE_F32, NULL, &err) == SAFESPEC_OK);
  CHECK(memcmp(y, kYA, sizeof kYA) == 0);
  CHECK(err.rule[0] == '\0' && err.message[0] == '\0' && err.message_size == 0);

  case_b_fill(&b, &l, &x);
  CHECK(run(&l, &x, SAFESPEC_SEMANTICS_CUDA, y, sizeof kYB, SAFESPEC_DTYPE_BF16, &trace, &err) == SAFESPEC_OK);
  CHECK(memcmp(y, kYB, sizeof kYB) == 0);
  /* cuda's intermediates: no w_dequant (eager with a correction only). */
  CHECK(safespec_tensors_count(trace, &count) == SAFESPEC_OK && count == 10);
  CHECK(safespec_tensors_get(trace, 0, &first) == SAFESPEC_OK && strcmp(first.name, "wq") == 0);
  CHECK(first.dtype == SAFESPEC_DTYPE_I8 && first.rank == 2 && first.shape[0] == 2 && first.shape[1] == 256);
  CHECK(safespec_tensors_get(trace, count, &first) == SAFESPEC_OUT_OF_RANGE);
  v = safespec_tensors_find(trace, "acc");
  CHECK(v != NULL && v->dtype == SAFESPEC_DTYPE_I32 && v->size_bytes == 2 * 2 * 4);
  v = safespec_tensors_find(trace, "y");
  CHECK(v != NULL && v->dtype == SAFESPEC_DTYPE_BF16 && memcmp(v->data, kYB, sizeof kYB) == 0);
  v = safespec_tensors_find(trace, "rotated");
  CHECK(v != NULL && v->dtype == SAFESPEC_DTYPE_F32 && v->shape[1] == 256);
  v = safespec_tensors_find(trace, "y_ideal");
  CHECK(v != NULL && v->dtype == SAFESPEC_DTYPE_F64);
  CHECK(safespec_tensors_find(trace, "w_dequant") == NULL && safespec_tensors_find(trace, NULL) == NULL);
  safespec_tensors_free(trace);

  case_c_fill(&c, &l, &x);
  CHECK(run(&l, &x, SAFESPEC_SEMANTICS_EAGER, y, sizeof kYC, SAFESPEC_DTYPE_F16, NULL, &err) == SAFESPEC_OK);
  CHECK(memcmp(y, kYC, sizeof kYC) == 0);
}

/* A refused call: its status, rule and the start of its message. */
static void refusals(void) {
  safespec_w4a8_layer l;
  safespec_tensor x;
  safespec_error err;
  safespec_w4a8_options o;
  safespec_buffer out;
  uint8_t y[16];
  case_a a;
  case_b b;

  case_a_fill(&a, &l, &x);
  l.convrot_groupsize = 64;
  expect_error(run(&l, &x, SAFESPEC_SEMANTICS_EAGER, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "CQ-W4A8-K",
               "K: expected K divisible by 16, G = 16 and C = 64, found K = 16");
  l.convrot_groupsize = 8;
  expect_error(run(&l, &x, SAFESPEC_SEMANTICS_EAGER, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "CQ-W4A8-HADAMARD",
               "convrot_groupsize: expected a power of 4 that is at least 4 (Regular Hadamard size must be a power of 4), found 8");
  l.convrot_groupsize = 16; /* cuda's kernel has only C = 256 */
  expect_error(run(&l, &x, SAFESPEC_SEMANTICS_CUDA, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "CQ-W4A8-CUDA-GROUPSIZE",
               "convrot_groupsize: expected 256 (the CUDA activation kernel's only size), found 16");
  x.shape[1] = 8;
  x.size_bytes = 32;
  expect_error(run(&l, &x, SAFESPEC_SEMANTICS_EAGER, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "", "x: expected shape [M, 16] (the weight is [N, K] = [2, 16]), found [1, 8]");
  case_a_fill(&a, &l, &x);
  x.dtype = SAFESPEC_DTYPE_I32;
  expect_error(run(&l, &x, SAFESPEC_SEMANTICS_EAGER, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "", "x: expected dtype F32, BF16 or F16, found I32");
  x.dtype = (safespec_dtype)99;
  expect_error(run(&l, &x, SAFESPEC_SEMANTICS_EAGER, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "x: unknown dtype 99");
  case_a_fill(&a, &l, &x);
  x.size_bytes = 60;
  expect_error(run(&l, &x, SAFESPEC_SEMANTICS_EAGER, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "x: expected size_bytes 64 for F32 [1, 16], found 60");
  case_a_fill(&a, &l, &x);
  l.s_channel.shape[0] = 3;
  l.s_channel.size_bytes = 12;
  expect_error(run(&l, &x, SAFESPEC_SEMANTICS_EAGER, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "", "s_channel [N]: expected shape [2], found [3]");
  case_a_fill(&a, &l, &x);
  expect_error(run(&l, &x, SAFESPEC_SEMANTICS_EAGER, y, 4, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "y [1, 2]: expected an output buffer of 8 bytes (F32), found 4");
  expect_error(run(&l, &x, SAFESPEC_SEMANTICS_EAGER, y, 4, SAFESPEC_DTYPE_BF16, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "y [1, 2]: expected an output dtype F32, found BF16");
  l.weight.data = NULL;
  expect_error(run(&l, &x, SAFESPEC_SEMANTICS_EAGER, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "weight: expected a tensor, found a null pointer");
  case_b_fill(&b, &l, &x);
  l.s_rel.dtype = SAFESPEC_DTYPE_F8_E5M2;
  expect_error(run(&l, &x, SAFESPEC_SEMANTICS_CUDA, y, 8, SAFESPEC_DTYPE_BF16, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "", "s_rel: expected dtype F8_E4M3, U8 or F32, found F8_E5M2");

  /* NULL anywhere is a status, never a crash; a NULL error is allowed. */
  case_a_fill(&a, &l, &x);
  out.data = y;
  out.size_bytes = 8;
  out.dtype = SAFESPEC_DTYPE_F32;
  CHECK(safespec_w4a8_linear(NULL, &x, NULL, &out, NULL, &err) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_w4a8_linear(&l, NULL, NULL, &out, NULL, NULL) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_w4a8_linear(&l, &x, NULL, NULL, NULL, &err) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_w4a8_linear(&l, &x, NULL, &out, NULL, NULL) == SAFESPEC_INVALID_INPUT); /* cuda default: C = 16 */
  CHECK(safespec_w4a8_options_init(NULL) == SAFESPEC_INVALID_ARGUMENT);
  memset(&o, 0, sizeof o);
  expect_error(safespec_w4a8_linear(&l, &x, &o, &out, NULL, &err), &err, SAFESPEC_INVALID_ARGUMENT, "",
               "options: expected struct_size");
  CHECK(safespec_dequant_w4a8(NULL, &out, &err) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_dequant_fp8(NULL, NULL, NULL, NULL) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_dequant_int8(NULL, NULL, 0, &out, &err) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_dequant_convrot_w4a4(NULL, NULL, 16, &out, &err) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_dequant_nvfp4(NULL, NULL, NULL, 0, 0, &out, &err) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_dequant_mxfp8(NULL, NULL, 0, 0, SAFESPEC_E8M0_KITCHEN, &out, &err) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_dequant_awq(NULL, NULL, NULL, 64, &out, &err) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_tensors_count(NULL, NULL) == SAFESPEC_INVALID_ARGUMENT);
  safespec_tensors_free(NULL);
  CHECK(safespec_decode(SAFESPEC_CODEC_BF16, NULL, 1, NULL, &err) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_decode(SAFESPEC_CODEC_BF16, NULL, 0, NULL, &err) == SAFESPEC_OK);
  CHECK(safespec_dtype_name((safespec_dtype)22) == NULL && strcmp(safespec_dtype_name(SAFESPEC_DTYPE_BF16), "BF16") == 0);
  CHECK(strlen(safespec_status_message(SAFESPEC_INVALID_INPUT)) > 0);
}

/* --- int8_tensorwise and convrot_w4a4 ------------------------------------ */

/* The C++ reference's y for case D (BF16 [2, 3], either semantics) and case
 * E (F32 [1, 2]: cuda runs linear_dtype int8, eager the int4 path),
 * printed by `c_api_int_linear_equiv_test --print-pins`. */
static const uint8_t kYD[] = {0x30, 0xc0, 0xbb, 0xbf, 0x4c, 0x40, 0x48, 0xbf, 0x58, 0xbe, 0x0b, 0xbf};
static const uint8_t kYECuda[] = {0xda, 0x6c, 0x9a, 0xc0, 0xda, 0x6c, 0xa6, 0xbf};
static const uint8_t kYEEager[] = {0x93, 0x24, 0xa0, 0xc0, 0xb7, 0x6d, 0x02, 0xc0};

static safespec_status run_int8(const safespec_int8_layer* l, const safespec_tensor* x, safespec_semantics sem, void* y,
                                size_t y_size, safespec_dtype y_dtype, safespec_tensors** trace, safespec_error* err) {
  safespec_buffer out;
  out.data = y;
  out.size_bytes = y_size;
  out.dtype = y_dtype;
  return safespec_int8_linear(l, x, sem, &out, trace, err);
}

static safespec_status run_w4a4(const safespec_w4a4_layer* l, const safespec_tensor* x, safespec_semantics sem, void* y,
                                size_t y_size, safespec_dtype y_dtype, safespec_tensors** trace, safespec_error* err) {
  safespec_buffer out;
  out.data = y;
  out.size_bytes = y_size;
  out.dtype = y_dtype;
  return safespec_w4a4_linear(l, x, sem, &out, trace, err);
}

static void int_linear_pins(void) {
  safespec_int8_layer l8;
  safespec_w4a4_layer l4;
  safespec_tensor x;
  safespec_error err;
  safespec_tensors* trace = NULL;
  const safespec_tensor_view* v;
  size_t count = 0;
  uint8_t y[16];
  case_d d;
  case_e e;

  case_d_fill(&d, &l8, &x);
  CHECK(run_int8(&l8, &x, SAFESPEC_SEMANTICS_CUDA, y, sizeof kYD, SAFESPEC_DTYPE_BF16, &trace, &err) == SAFESPEC_OK);
  CHECK(memcmp(y, kYD, sizeof kYD) == 0);
  CHECK(err.rule[0] == '\0' && err.message[0] == '\0');
  /* `linear --dump`'s five, in its order, dtypes and shapes. */
  CHECK(safespec_tensors_count(trace, &count) == SAFESPEC_OK && count == 5);
  v = safespec_tensors_find(trace, "rotated");
  CHECK(v != NULL && v->dtype == SAFESPEC_DTYPE_BF16 && v->rank == 2 && v->shape[0] == 2 && v->shape[1] == 16);
  v = safespec_tensors_find(trace, "xs");
  CHECK(v != NULL && v->dtype == SAFESPEC_DTYPE_F32 && v->rank == 1 && v->shape[0] == 2);
  v = safespec_tensors_find(trace, "xq");
  CHECK(v != NULL && v->dtype == SAFESPEC_DTYPE_I8 && v->size_bytes == 32);
  v = safespec_tensors_find(trace, "acc");
  CHECK(v != NULL && v->dtype == SAFESPEC_DTYPE_I64 && v->shape[0] == 2 && v->shape[1] == 3);
  v = safespec_tensors_find(trace, "y");
  CHECK(v != NULL && v->dtype == SAFESPEC_DTYPE_BF16 && memcmp(v->data, kYD, sizeof kYD) == 0);
  safespec_tensors_free(trace);
  /* int8 has one activation path: eager gives the same bits. */
  memset(y, 0, sizeof y);
  CHECK(run_int8(&l8, &x, SAFESPEC_SEMANTICS_EAGER, y, sizeof kYD, SAFESPEC_DTYPE_BF16, NULL, &err) == SAFESPEC_OK);
  CHECK(memcmp(y, kYD, sizeof kYD) == 0);
  /* Without ConvRot the rotated activations are x itself. */
  l8.convrot_groupsize = 0;
  trace = NULL;
  CHECK(run_int8(&l8, &x, SAFESPEC_SEMANTICS_CUDA, y, sizeof kYD, SAFESPEC_DTYPE_BF16, &trace, &err) == SAFESPEC_OK);
  v = safespec_tensors_find(trace, "rotated");
  CHECK(v != NULL && v->size_bytes == sizeof d.x && memcmp(v->data, d.x, sizeof d.x) == 0);
  safespec_tensors_free(trace);

  case_e_fill(&e, &l4, &x);
  CHECK(run_w4a4(&l4, &x, SAFESPEC_SEMANTICS_CUDA, y, sizeof kYECuda, SAFESPEC_DTYPE_F32, NULL, &err) == SAFESPEC_OK);
  CHECK(memcmp(y, kYECuda, sizeof kYECuda) == 0);
  CHECK(run_w4a4(&l4, &x, SAFESPEC_SEMANTICS_EAGER, y, sizeof kYEEager, SAFESPEC_DTYPE_F32, NULL, &err) == SAFESPEC_OK);
  CHECK(memcmp(y, kYEEager, sizeof kYEEager) == 0);
  /* linear_dtype int4 is the path eager takes whatever the marker says. */
  l4.linear_dtype = SAFESPEC_W4A4_LINEAR_INT4;
  CHECK(run_w4a4(&l4, &x, SAFESPEC_SEMANTICS_CUDA, y, sizeof kYEEager, SAFESPEC_DTYPE_F32, NULL, &err) == SAFESPEC_OK);
  CHECK(memcmp(y, kYEEager, sizeof kYEEager) == 0);
}

static void int_linear_refusals(void) {
  safespec_int8_layer l8;
  safespec_w4a4_layer l4;
  safespec_tensor x;
  safespec_error err;
  safespec_buffer out;
  uint8_t y[16];
  uint8_t* big_w;
  float* big_x;
  case_d d;
  case_e e;

  case_d_fill(&d, &l8, &x);
  l8.convrot_groupsize = 8;
  expect_error(run_int8(&l8, &x, SAFESPEC_SEMANTICS_CUDA, y, 12, SAFESPEC_DTYPE_BF16, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "CQ-INT8-CONVROT-GROUPSIZE",
               "convrot_groupsize: expected a ConvRot group size that is a power of 4 and at least 4, found 8");
  l8.convrot_groupsize = 64;
  expect_error(run_int8(&l8, &x, SAFESPEC_SEMANTICS_CUDA, y, 12, SAFESPEC_DTYPE_BF16, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "CQ-INT8-CONVROT-GROUPSIZE",
               "convrot_groupsize: expected K divisible by the ConvRot group size 64, found K = 16");
  case_d_fill(&d, &l8, &x);
  l8.weight_scale.rank = 1; /* [3]: would broadcast along K (L14) */
  expect_error(run_int8(&l8, &x, SAFESPEC_SEMANTICS_CUDA, y, 12, SAFESPEC_DTYPE_BF16, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "", "weight_scale: expected shape () or [3, 1], found [3]");
  case_d_fill(&d, &l8, &x);
  l8.bias.shape[0] = 2;
  l8.bias.size_bytes = 4;
  expect_error(run_int8(&l8, &x, SAFESPEC_SEMANTICS_CUDA, y, 12, SAFESPEC_DTYPE_BF16, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "", "bias [N]: expected shape [3], found [2]");
  case_d_fill(&d, &l8, &x);
  x.shape[1] = 8;
  x.shape[0] = 4;
  expect_error(run_int8(&l8, &x, SAFESPEC_SEMANTICS_CUDA, y, 12, SAFESPEC_DTYPE_BF16, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "", "x: expected shape [M, 16] (the weight is [N, K] = [3, 16]), found [4, 8]");
  case_d_fill(&d, &l8, &x);
  x.dtype = SAFESPEC_DTYPE_I16;
  expect_error(run_int8(&l8, &x, SAFESPEC_SEMANTICS_CUDA, y, 12, SAFESPEC_DTYPE_BF16, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "", "x: expected dtype F32, BF16 or F16, found I16");
  case_d_fill(&d, &l8, &x);
  l8.weight.dtype = SAFESPEC_DTYPE_F8_E4M3;
  expect_error(run_int8(&l8, &x, SAFESPEC_SEMANTICS_CUDA, y, 12, SAFESPEC_DTYPE_BF16, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "", "weight: expected dtype I8 or U8, found F8_E4M3");
  case_d_fill(&d, &l8, &x);
  l8.weight_scale.dtype = SAFESPEC_DTYPE_I32;
  expect_error(run_int8(&l8, &x, SAFESPEC_SEMANTICS_CUDA, y, 12, SAFESPEC_DTYPE_BF16, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "", "weight_scale: expected dtype F32, BF16 or F16, found I32");
  case_d_fill(&d, &l8, &x);
  expect_error(run_int8(&l8, &x, SAFESPEC_SEMANTICS_CUDA, y, 12, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "y [2, 3]: expected an output dtype BF16, found F32");
  expect_error(run_int8(&l8, &x, SAFESPEC_SEMANTICS_CUDA, y, 16, SAFESPEC_DTYPE_BF16, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "y [2, 3]: expected an output buffer of 12 bytes (BF16), found 16");
  expect_error(run_int8(&l8, &x, (safespec_semantics)2, y, 12, SAFESPEC_DTYPE_BF16, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "semantics: expected SAFESPEC_SEMANTICS_CUDA or _EAGER, found 2");
  expect_error(run_int8(&l8, &x, (safespec_semantics)-1, y, 12, SAFESPEC_DTYPE_BF16, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "semantics: expected SAFESPEC_SEMANTICS_CUDA or _EAGER, found -1");
  l8.weight.data = NULL;
  expect_error(run_int8(&l8, &x, SAFESPEC_SEMANTICS_CUDA, y, 12, SAFESPEC_DTYPE_BF16, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "weight: expected a tensor, found a null pointer");

  /* K past the int32 bound of the int8 GEMM: floor(INT32_MAX / 128^2) =
     131071. W4A4's bound depends on the path its backend takes: int8
     activations times 4-bit weights (cuda with linear_dtype int8) allow
     K <= floor(INT32_MAX / (128 * 8)) = 2097151, the int4 path
     floor(INT32_MAX / (7 * 8)) = 38347922. */
  big_w = (uint8_t*)calloc(1048576, 1);
  big_x = (float*)calloc(2097152, sizeof(float));
  CHECK(big_w != NULL && big_x != NULL);
  if (big_w && big_x) {
    memset(&l8, 0, sizeof l8);
    l8.weight = case_tensor(big_w, 131072, SAFESPEC_DTYPE_I8, 2, 1, 131072);
    l8.weight_scale = case_tensor(d.weight_scale, 4, SAFESPEC_DTYPE_F32, 0, 0, 0);
    x = case_tensor(big_x, 131072 * sizeof(float), SAFESPEC_DTYPE_F32, 2, 1, 131072);
    expect_error(run_int8(&l8, &x, SAFESPEC_SEMANTICS_CUDA, y, 4, SAFESPEC_DTYPE_F32, NULL, &err), &err,
                 SAFESPEC_INVALID_INPUT, "NUM-K-INT32-OVERFLOW",
                 "x: expected K <= 131071 so that the int32 accumulator cannot overflow, found K = 131072");
    memset(&l4, 0, sizeof l4);
    l4.weight = case_tensor(big_w, 1048576, SAFESPEC_DTYPE_U8, 2, 1, 1048576);
    l4.weight_scale = case_tensor(d.weight_scale, 4, SAFESPEC_DTYPE_F32, 1, 1, 0);
    l4.convrot_groupsize = 4;
    l4.linear_dtype = SAFESPEC_W4A4_LINEAR_INT8;
    x = case_tensor(big_x, 2097152 * sizeof(float), SAFESPEC_DTYPE_F32, 2, 1, 2097152);
    expect_error(run_w4a4(&l4, &x, SAFESPEC_SEMANTICS_CUDA, y, 4, SAFESPEC_DTYPE_F32, NULL, &err), &err,
                 SAFESPEC_INVALID_INPUT, "NUM-K-INT32-OVERFLOW",
                 "x: expected K <= 2097151 so that the int32 accumulator cannot overflow, found K = 2097152");
    /* That eager computes this layer (int4 path) is checked by
       c_api_int_linear_equiv_test.cpp: here it would cost seconds against
       the unoptimized shared library of cmake/SharedSmoke.cmake. */
  }
  free(big_w);
  free(big_x);

  case_e_fill(&e, &l4, &x);
  l4.linear_dtype = (safespec_w4a4_linear_dtype)2;
  expect_error(run_w4a4(&l4, &x, SAFESPEC_SEMANTICS_CUDA, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "linear_dtype: expected SAFESPEC_W4A4_LINEAR_INT4 or _INT8, found 2");
  expect_error(run_w4a4(&l4, &x, (safespec_semantics)5, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "semantics: expected SAFESPEC_SEMANTICS_CUDA or _EAGER, found 5");
  case_e_fill(&e, &l4, &x);
  l4.convrot_groupsize = 32;
  expect_error(run_w4a4(&l4, &x, SAFESPEC_SEMANTICS_EAGER, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "CQ-W4A4-GROUPSIZE",
               "convrot_groupsize: expected a ConvRot group size that is a power of 4 and at least 4, found 32");
  case_e_fill(&e, &l4, &x);
  l4.weight.shape[1] = 8; /* K = 16 */
  l4.weight.size_bytes = 16;
  x.shape[1] = 16;
  x.size_bytes = 64;
  expect_error(run_w4a4(&l4, &x, SAFESPEC_SEMANTICS_CUDA, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "CQ-W4A4-K", "x: expected K divisible by 64 (quant_group_size), found K = 16");
  case_e_fill(&e, &l4, &x);
  l4.weight_scale.shape[0] = 1;
  l4.weight_scale.size_bytes = 4;
  expect_error(run_w4a4(&l4, &x, SAFESPEC_SEMANTICS_CUDA, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "", "weight_scale [N]: expected shape [2], found [1]");
  case_e_fill(&e, &l4, &x);
  x.shape[1] = 32;
  x.shape[0] = 2;
  expect_error(run_w4a4(&l4, &x, SAFESPEC_SEMANTICS_CUDA, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "", "x: expected shape [M, 64] (the weight is [N, K] = [2, 64]), found [2, 32]");
  case_e_fill(&e, &l4, &x);
  l4.weight.size_bytes = 63;
  expect_error(run_w4a4(&l4, &x, SAFESPEC_SEMANTICS_CUDA, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "weight: expected size_bytes 64 for U8 [2, 32], found 63");
  l4.weight.dtype = SAFESPEC_DTYPE_F32; /* the dtype is refused before its size is checked */
  expect_error(run_w4a4(&l4, &x, SAFESPEC_SEMANTICS_CUDA, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "", "weight: expected dtype I8 or U8, found F32");
  case_e_fill(&e, &l4, &x);
  l4.bias.dtype = SAFESPEC_DTYPE_F64;
  expect_error(run_w4a4(&l4, &x, SAFESPEC_SEMANTICS_CUDA, y, 8, SAFESPEC_DTYPE_F32, NULL, &err), &err,
               SAFESPEC_INVALID_INPUT, "", "bias: expected dtype F32, BF16 or F16, found F64");

  /* NULL anywhere is a status, never a crash; a NULL error is allowed. */
  case_e_fill(&e, &l4, &x);
  out.data = y;
  out.size_bytes = 8;
  out.dtype = SAFESPEC_DTYPE_F32;
  expect_error(safespec_w4a4_linear(NULL, &x, SAFESPEC_SEMANTICS_CUDA, &out, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "layer: expected a safespec_w4a4_layer, found a null pointer");
  expect_error(safespec_w4a4_linear(&l4, NULL, SAFESPEC_SEMANTICS_CUDA, &out, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "x: expected a tensor, found a null pointer");
  expect_error(safespec_w4a4_linear(&l4, &x, SAFESPEC_SEMANTICS_CUDA, NULL, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "y: expected an output buffer, found a null pointer");
  CHECK(safespec_w4a4_linear(&l4, &x, SAFESPEC_SEMANTICS_CUDA, &out, NULL, NULL) == SAFESPEC_OK);
  expect_error(safespec_int8_linear(NULL, &x, SAFESPEC_SEMANTICS_CUDA, &out, NULL, &err), &err,
               SAFESPEC_INVALID_ARGUMENT, "", "layer: expected a safespec_int8_layer, found a null pointer");
  case_d_fill(&d, &l8, &x);
  CHECK(safespec_int8_linear(&l8, NULL, SAFESPEC_SEMANTICS_CUDA, &out, NULL, NULL) == SAFESPEC_INVALID_ARGUMENT);
  out.data = NULL;
  CHECK(safespec_int8_linear(&l8, &x, SAFESPEC_SEMANTICS_CUDA, &out, NULL, NULL) == SAFESPEC_INVALID_ARGUMENT);
}

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static void codecs(void) {
  const uint8_t codes[] = {0x38, 0x7E, 0x7F, 0x00, 0xFF, 0x7F};
  const float values[] = {1.00390625f, 1.01171875f, 65519.0f, 65520.0f, 500.0f, 2.5f};
  float out[6];
  uint16_t half[6];
  uint8_t small[6];
  safespec_error err;
  CHECK(safespec_decode(SAFESPEC_CODEC_E4M3FN, codes, 3, out, &err) == SAFESPEC_OK);
  CHECK(out[0] == 1.0f && out[1] == 448.0f && isnan(out[2]));
  CHECK(safespec_decode(SAFESPEC_CODEC_E8M0_KITCHEN, codes + 3, 2, out, &err) == SAFESPEC_OK);
  CHECK(bits_of(out[0]) == 0 && isinf(out[1]));
  CHECK(safespec_decode(SAFESPEC_CODEC_E8M0_OCP, codes + 3, 3, out, &err) == SAFESPEC_OK);
  CHECK(out[0] == ldexpf(1.0f, -127) && isnan(out[1]) && out[2] == 1.0f);
  CHECK(safespec_encode(SAFESPEC_CODEC_BF16, values, 2, half, &err) == SAFESPEC_OK);
  CHECK(half[0] == 0x3F80 && half[1] == 0x3F82); /* ties to even */
  CHECK(safespec_encode(SAFESPEC_CODEC_F16, values + 2, 2, half, &err) == SAFESPEC_OK);
  CHECK(half[0] == 0x7BFF && half[1] == 0x7C00);
  CHECK(safespec_encode(SAFESPEC_CODEC_E4M3FN, values + 4, 1, small, &err) == SAFESPEC_OK && small[0] == 0x7E);
  CHECK(safespec_encode(SAFESPEC_CODEC_E2M1, values + 5, 1, small, &err) == SAFESPEC_OK && small[0] == 4);
  expect_error(safespec_encode(SAFESPEC_CODEC_E5M2, values, 1, small, &err), &err, SAFESPEC_UNSUPPORTED, "",
               "codec: the specification defines no encoder for E5M2 or E8M0");
  expect_error(safespec_decode((safespec_codec)42, codes, 1, out, &err), &err, SAFESPEC_INVALID_ARGUMENT, "",
               "codec: unknown value");
}

int main(void) {
  pinned_outputs();
  refusals();
  int_linear_pins();
  int_linear_refusals();
  codecs();
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
