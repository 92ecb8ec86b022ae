/* Small W4A8, int8_tensorwise and convrot_w4a4 layers for the C API's
 * numeric tests, in C so that the C test (c_api_numerics_test.c, which pins
 * their outputs bit for bit) and the C++ tests (c_api_numerics_equiv_test.cpp
 * and c_api_int_linear_equiv_test.cpp, which hold the C API to the C++
 * reference on them and on random layers) read the same inputs. */
#ifndef SAFESPEC_PROPS_C_API_NUMERICS_CASES_H
#define SAFESPEC_PROPS_C_API_NUMERICS_CASES_H

#include <string.h>

#include <safespec/safespec.h>

static inline safespec_tensor case_tensor(const void* data, size_t size_bytes, safespec_dtype dtype, uint32_t rank,
                                   uint64_t d0, uint64_t d1) {
  safespec_tensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.size_bytes = size_bytes;
  t.dtype = dtype;
  t.rank = rank;
  t.shape[0] = d0;
  t.shape[1] = d1;
  return t;
}

/* Case A: eager, F32, N = 2, K = 16, G = 16, C = 16, bias, M = 1. */
typedef struct case_a {
  uint8_t weight[2 * 8];
  float s_rel[2];
  float s_channel[2];
  float bias[2];
  float x[16];
} case_a;

static inline void case_a_fill(case_a* c, safespec_w4a8_layer* l, safespec_tensor* x) {
  int i;
  for (i = 0; i < 16; ++i) c->weight[i] = (uint8_t)(i * 37 + 11);
  c->s_rel[0] = 1.5f;
  c->s_rel[1] = 0.75f;
  c->s_channel[0] = 0.01f;
  c->s_channel[1] = 0.02f;
  c->bias[0] = 0.5f;
  c->bias[1] = -0.25f;
  for (i = 0; i < 16; ++i) c->x[i] = (float)(i - 7) / 4.0f;
  memset(l, 0, sizeof *l);
  l->weight = case_tensor(c->weight, sizeof c->weight, SAFESPEC_DTYPE_U8, 2, 2, 8);
  l->s_rel = case_tensor(c->s_rel, sizeof c->s_rel, SAFESPEC_DTYPE_F32, 2, 2, 1);
  l->s_channel = case_tensor(c->s_channel, sizeof c->s_channel, SAFESPEC_DTYPE_F32, 1, 2, 0);
  l->bias = case_tensor(c->bias, sizeof c->bias, SAFESPEC_DTYPE_F32, 1, 2, 0);
  l->group_size = 16;
  l->convrot_groupsize = 16;
  *x = case_tensor(c->x, sizeof c->x, SAFESPEC_DTYPE_F32, 2, 1, 16);
}

/* Case B: cuda (C = 256), BF16, N = 2, K = 256, G = 16, s_rel as E4M3
 * codes, M = 2. */
typedef struct case_b {
  uint8_t weight[2 * 128];
  uint8_t s_rel[2 * 16];
  float s_channel[2];
  uint16_t x[2 * 256];
} case_b;

static inline void case_b_fill(case_b* c, safespec_w4a8_layer* l, safespec_tensor* x) {
  int i;
  for (i = 0; i < 256; ++i) c->weight[i] = (uint8_t)(i * 73 + 5);
  for (i = 0; i < 32; ++i) c->s_rel[i] = (uint8_t)(0x30 + i % 9); /* E4M3 0.5 .. 1.0 */
  c->s_channel[0] = 0.0078125f;
  c->s_channel[1] = 0.015625f;
  /* bf16 bit patterns of small values of both signs: sign, exponent 120..127 */
  for (i = 0; i < 512; ++i)
    c->x[i] = (uint16_t)((i % 3 == 0 ? 0x8000u : 0u) | (uint16_t)((120 + i % 8) << 7) | (uint16_t)(i * 13 % 128));
  memset(l, 0, sizeof *l);
  l->weight = case_tensor(c->weight, sizeof c->weight, SAFESPEC_DTYPE_I8, 2, 2, 128);
  l->s_rel = case_tensor(c->s_rel, sizeof c->s_rel, SAFESPEC_DTYPE_F8_E4M3, 2, 2, 16);
  l->s_channel = case_tensor(c->s_channel, sizeof c->s_channel, SAFESPEC_DTYPE_F32, 1, 2, 0);
  l->group_size = 16;
  l->convrot_groupsize = 256;
  *x = case_tensor(c->x, sizeof c->x, SAFESPEC_DTYPE_BF16, 2, 2, 256);
}

/* Case C: eager, F16, N = 2, K = 16, G = 4, C = 4, codebook, F16
 * correction [4, 2], F16 bias, M = 1. */
typedef struct case_c {
  uint8_t weight[2 * 8];
  float s_rel[2 * 4];
  float s_channel[2];
  float codebook[16];
  uint16_t correction[4 * 2];
  uint16_t bias[2];
  uint16_t x[16];
} case_c;

static inline void case_c_fill(case_c* c, safespec_w4a8_layer* l, safespec_tensor* x) {
  int i;
  for (i = 0; i < 16; ++i) c->weight[i] = (uint8_t)(i * 29 + 3);
  for (i = 0; i < 8; ++i) c->s_rel[i] = 1.0f + (float)i / 8.0f;
  c->s_channel[0] = 0.03125f;
  c->s_channel[1] = 0.0625f;
  for (i = 0; i < 16; ++i) c->codebook[i] = (float)(i - 8) * 1.25f;
  for (i = 0; i < 8; ++i) c->correction[i] = (uint16_t)(0x2000 + i * 0x111); /* small f16 values */
  c->bias[0] = 0x3800; /* 0.5 */
  c->bias[1] = 0xB400; /* -0.25 */
  for (i = 0; i < 16; ++i) c->x[i] = (uint16_t)((i % 2 ? 0x8000u : 0u) | (uint16_t)(0x3000 + i * 0x155));
  memset(l, 0, sizeof *l);
  l->weight = case_tensor(c->weight, sizeof c->weight, SAFESPEC_DTYPE_U8, 2, 2, 8);
  l->s_rel = case_tensor(c->s_rel, sizeof c->s_rel, SAFESPEC_DTYPE_F32, 2, 2, 4);
  l->s_channel = case_tensor(c->s_channel, sizeof c->s_channel, SAFESPEC_DTYPE_F32, 1, 2, 0);
  l->codebook = case_tensor(c->codebook, sizeof c->codebook, SAFESPEC_DTYPE_F32, 1, 16, 0);
  l->correction = case_tensor(c->correction, sizeof c->correction, SAFESPEC_DTYPE_F16, 2, 4, 2);
  l->bias = case_tensor(c->bias, sizeof c->bias, SAFESPEC_DTYPE_F16, 1, 2, 0);
  l->group_size = 4;
  l->convrot_groupsize = 4;
  *x = case_tensor(c->x, sizeof c->x, SAFESPEC_DTYPE_F16, 2, 1, 16);
}

/* Case D: int8_tensorwise with ConvRot C = 16, N = 3, K = 16, rowwise
 * weight_scale [3, 1] F32, F16 bias, BF16 x, M = 2. */
typedef struct case_d {
  int8_t weight[3 * 16];
  float weight_scale[3];
  uint16_t bias[3];
  uint16_t x[2 * 16];
} case_d;

static inline void case_d_fill(case_d* c, safespec_int8_layer* l, safespec_tensor* x) {
  int i;
  for (i = 0; i < 48; ++i) c->weight[i] = (int8_t)((i * 53 + 7) % 255 - 127);
  c->weight_scale[0] = 0.0078125f;
  c->weight_scale[1] = 0.01f;
  c->weight_scale[2] = 0.003f;
  c->bias[0] = 0x3800; /* 0.5 */
  c->bias[1] = 0xB400; /* -0.25 */
  c->bias[2] = 0x0000;
  /* bf16 bit patterns of both signs, exponents 122..129 */
  for (i = 0; i < 32; ++i)
    c->x[i] = (uint16_t)((i % 3 == 1 ? 0x8000u : 0u) | (uint16_t)((122 + i % 8) << 7) | (uint16_t)(i * 29 % 128));
  memset(l, 0, sizeof *l);
  l->weight = case_tensor(c->weight, sizeof c->weight, SAFESPEC_DTYPE_I8, 2, 3, 16);
  l->weight_scale = case_tensor(c->weight_scale, sizeof c->weight_scale, SAFESPEC_DTYPE_F32, 2, 3, 1);
  l->bias = case_tensor(c->bias, sizeof c->bias, SAFESPEC_DTYPE_F16, 1, 3, 0);
  l->convrot_groupsize = 16;
  *x = case_tensor(c->x, sizeof c->x, SAFESPEC_DTYPE_BF16, 2, 2, 16);
}

/* Case E: convrot_w4a4, C = 16, linear_dtype int8 (the cuda backend runs
 * it, eager the int4 path), N = 2, K = 64, F32 weight_scale and bias, F32
 * x, M = 1. */
typedef struct case_e {
  uint8_t weight[2 * 32];
  float weight_scale[2];
  float bias[2];
  float x[64];
} case_e;

static inline void case_e_fill(case_e* c, safespec_w4a4_layer* l, safespec_tensor* x) {
  int i;
  for (i = 0; i < 64; ++i) c->weight[i] = (uint8_t)(i * 41 + 19);
  c->weight_scale[0] = 0.125f;
  c->weight_scale[1] = 0.0625f;
  c->bias[0] = -1.0f;
  c->bias[1] = 0.375f;
  for (i = 0; i < 64; ++i) c->x[i] = (float)((i * 37) % 64 - 31) / 8.0f;
  memset(l, 0, sizeof *l);
  l->weight = case_tensor(c->weight, sizeof c->weight, SAFESPEC_DTYPE_U8, 2, 2, 32);
  l->weight_scale = case_tensor(c->weight_scale, sizeof c->weight_scale, SAFESPEC_DTYPE_F32, 1, 2, 0);
  l->bias = case_tensor(c->bias, sizeof c->bias, SAFESPEC_DTYPE_F32, 1, 2, 0);
  l->convrot_groupsize = 16;
  l->linear_dtype = SAFESPEC_W4A4_LINEAR_INT8;
  *x = case_tensor(c->x, sizeof c->x, SAFESPEC_DTYPE_F32, 2, 1, 64);
}

#endif
