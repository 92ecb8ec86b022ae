/* safespec's numerics, in-process (included by safespec/safespec.h): the
 * reference W4A8, int8_tensorwise and convrot_w4a4 linears, every format's
 * dequantization and the number-format codecs, on buffers the caller owns. A layer is described by pointers,
 * dtypes and shapes, not by a file; the results are bit for bit those of
 * `safespec linear` and `safespec dequant` (docs/spec/numerics.md).
 *
 * Buffers: every value is in the host's byte order (the library is built for
 * little-endian hosts, where this is safetensors' order). bf16 and f16 are
 * passed as their uint16_t bit patterns, the fp8 formats and E8M0 as their
 * uint8_t codes, packed 4-bit codes as uint8_t bytes. A tensor's size_bytes
 * must equal the product of its shape times its dtype's size, so a wrong
 * shape is an error, never a read past the buffer.
 *
 * Errors: a call that cannot compute returns a status and, when the caller
 * passes a safespec_error, fills it with the rule id the input breaks (when
 * the specification names one) and a sentence saying what was expected and
 * what was found. Nothing is kept between calls: the functions here may run
 * concurrently on separate buffers.
 */
#ifndef SAFESPEC_NUMERICS_H
#define SAFESPEC_NUMERICS_H

#include <stddef.h>
#include <stdint.h>

#include "safespec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The safetensors dtypes, in the reference reader's declaration order. */
typedef enum safespec_dtype {
  SAFESPEC_DTYPE_BOOL = 0,
  SAFESPEC_DTYPE_F4 = 1,
  SAFESPEC_DTYPE_F6_E2M3 = 2,
  SAFESPEC_DTYPE_F6_E3M2 = 3,
  SAFESPEC_DTYPE_U8 = 4,
  SAFESPEC_DTYPE_I8 = 5,
  SAFESPEC_DTYPE_F8_E5M2 = 6,
  SAFESPEC_DTYPE_F8_E4M3 = 7,
  SAFESPEC_DTYPE_F8_E8M0 = 8,
  SAFESPEC_DTYPE_F8_E4M3FNUZ = 9,
  SAFESPEC_DTYPE_F8_E5M2FNUZ = 10,
  SAFESPEC_DTYPE_I16 = 11,
  SAFESPEC_DTYPE_U16 = 12,
  SAFESPEC_DTYPE_F16 = 13,
  SAFESPEC_DTYPE_BF16 = 14,
  SAFESPEC_DTYPE_I32 = 15,
  SAFESPEC_DTYPE_U32 = 16,
  SAFESPEC_DTYPE_F32 = 17,
  SAFESPEC_DTYPE_C64 = 18,
  SAFESPEC_DTYPE_F64 = 19,
  SAFESPEC_DTYPE_I64 = 20,
  SAFESPEC_DTYPE_U64 = 21,
  /* Not values: they make every int a valid value of the type, so a caller's
     out-of-range value is refused with SAFESPEC_INVALID_ARGUMENT, never undefined. */
  SAFESPEC_DTYPE_MIN_ENUM_ = -0x7FFFFFFF - 1,
  SAFESPEC_DTYPE_MAX_ENUM_ = 0x7FFFFFFF
} safespec_dtype;

/* "F32", "BF16", ... as safetensors spells them; NULL for another value. */
SAFESPEC_API const char* safespec_dtype_name(safespec_dtype dtype);

#define SAFESPEC_MAX_RANK 4

/* An input tensor: data == NULL means "absent" for an optional operand and
 * is an error for a required one. */
typedef struct safespec_tensor {
  const void* data;
  size_t size_bytes;
  safespec_dtype dtype;
  uint32_t rank; /* 0..SAFESPEC_MAX_RANK; rank 0 is a scalar (one element) */
  uint64_t shape[SAFESPEC_MAX_RANK];
} safespec_tensor;

/* An output buffer: the call writes exactly the bytes its result needs and
 * refuses (SAFESPEC_INVALID_ARGUMENT) a size_bytes that differs. */
typedef struct safespec_buffer {
  void* data;
  size_t size_bytes;
  safespec_dtype dtype;
} safespec_buffer;

/* Why a numeric call failed. rule: the rule id the input breaks
 * ("CQ-W4A8-K"), or "" when the specification names none (a wrong dtype or
 * buffer size). message: "argument 'K': expected K divisible by ...",
 * truncated to fit (message_size is the full length). Both NUL-terminated. */
typedef struct safespec_error {
  char rule[64];
  char message[1024];
  size_t message_size;
} safespec_error;

/* --- The W4A8 linear (asym_w4a8_int8) ----------------------------------- */

/* One layer as comfy-kitchen receives it. N and K come from weight:
 * [N, K/2] bytes, I8 or U8, the low nibble column 2j; or 6-bit storage
 * (W6A8) [N, 3K/4], K = s_rel's columns * group_size, as comfy-kitchen
 * 2a6f4ef infers it (no codebook or correction at 6 bits). Shapes: s_rel
 * [N, K/G] (F8_E4M3, U8 read as E4M3, or F32); s_channel [N] F32; codebook
 * [16] F32 or absent; correction [K/G, N] (F32, BF16, F16) or absent; bias
 * [N] (F32, BF16, F16) or absent. */
typedef struct safespec_w4a8_layer {
  safespec_tensor weight;
  safespec_tensor s_rel;
  safespec_tensor s_channel;
  safespec_tensor codebook;
  safespec_tensor correction;
  safespec_tensor bias;
  uint64_t group_size;        /* G (the marker's default is 16) */
  uint64_t convrot_groupsize; /* C (the marker's default is 256) */
} safespec_w4a8_layer;

typedef enum safespec_semantics {
  SAFESPEC_SEMANTICS_CUDA = 0, /* comfy-kitchen's CUDA kernels (C must be 256) */
  SAFESPEC_SEMANTICS_EAGER = 1, /* its PyTorch backend */
  /* Not values: they make every int a valid value of the type, so a caller's
     out-of-range value is refused with SAFESPEC_INVALID_ARGUMENT, never undefined. */
  SAFESPEC_SEMANTICS_MIN_ENUM_ = -0x7FFFFFFF - 1,
  SAFESPEC_SEMANTICS_MAX_ENUM_ = 0x7FFFFFFF
} safespec_semantics;

/* The undetermined points of quant-numerics.md §5.13 that change values;
 * safespec_w4a8_options_init sets safespec's positions (what `safespec
 * linear` computes). NULL options mean those defaults. */
typedef struct safespec_w4a8_options {
  uint32_t struct_size; /* sizeof(safespec_w4a8_options), set by _init */
  safespec_semantics semantics;
  int cuda_fma_epilogue;      /* U2: 1 (default) one fused rounding; 0 two */
  int cuda_flush_subnormals;  /* U12: 1 (default) --ftz=true; 0 gradual underflow */
  int eager_reciprocal_scale; /* eager.4: 0 (default) amax / 127; 1 amax * f32(1/127) */
  int cuda_any_block_size;    /* 1: run cuda for any C = 4^k (not upstream; for small tests) */
} safespec_w4a8_options;

SAFESPEC_API safespec_status safespec_w4a8_options_init(safespec_w4a8_options* options);

/* The intermediates of one call, owned by the library until
 * safespec_tensors_free: the tensors `safespec linear --dump` writes, in
 * its order and dtypes (wq, rotated, amax, xs, divisor, xq, acc, y_epilogue,
 * w_dequant, y, y_ideal; a step the path does not take is left out). */
typedef struct safespec_tensors safespec_tensors;

typedef struct safespec_tensor_view {
  const char* name;
  safespec_dtype dtype;
  uint32_t rank;
  uint64_t shape[SAFESPEC_MAX_RANK];
  const void* data; /* host byte order; valid until safespec_tensors_free */
  size_t size_bytes;
} safespec_tensor_view;

SAFESPEC_API safespec_status safespec_tensors_count(const safespec_tensors* tensors, size_t* count);
SAFESPEC_API safespec_status safespec_tensors_get(const safespec_tensors* tensors, size_t index,
                                                  safespec_tensor_view* out);
/* NULL when there is no tensor of that name. */
SAFESPEC_API const safespec_tensor_view* safespec_tensors_find(const safespec_tensors* tensors, const char* name);
SAFESPEC_API void safespec_tensors_free(safespec_tensors* tensors);

/* y = the layer applied to x [M, K] (F32, BF16 or F16, each value one of its
 * dtype), as comfy-kitchen computes it in the chosen semantics. y: [M, N]
 * of x's dtype. trace: NULL, or where to put a new safespec_tensors of the
 * intermediates (only on SAFESPEC_OK). An input the specification refuses
 * (K not divisible, C not a power of 4, C != 256 for cuda, K past the int32
 * bound, a shape that disagrees with the weight) is SAFESPEC_INVALID_INPUT. */
SAFESPEC_API safespec_status safespec_w4a8_linear(const safespec_w4a8_layer* layer, const safespec_tensor* x,
                                                  const safespec_w4a8_options* options, safespec_buffer* y,
                                                  safespec_tensors** trace, safespec_error* error);

/* --- The int8_tensorwise and convrot_w4a4 linears ------------------------
 * quant-numerics.md §7.1 and §6.2-§6.3, as `safespec linear` computes them
 * (spec/numerics/int_linear.hpp): x [M, K] (F32, BF16 or F16) is rotated
 * per C-block when the layer has ConvRot, quantized per row by the eager
 * activation path (on a CUDA device: xs = amax * f32(1/127)), multiplied
 * exactly in integers and scaled back; y is [M, N] of x's dtype. trace, as
 * for safespec_w4a8_linear: NULL, or where to put the tensors `safespec
 * linear --dump` writes for these formats (rotated, xs, xq, acc, y). An
 * input the specification refuses (K past the int32 bound, C not a power of
 * 4, K not divisible by 64 for W4A4, a shape that disagrees with the
 * weight) is SAFESPEC_INVALID_INPUT. */

/* int8_tensorwise: weight [N, K] I8 (or U8 read as I8); weight_scale one
 * element or [N, 1] (F32, BF16, F16); bias [N] (F32, BF16, F16) or absent. */
typedef struct safespec_int8_layer {
  safespec_tensor weight;
  safespec_tensor weight_scale;
  safespec_tensor bias;
  uint64_t convrot_groupsize; /* 0 when the marker has no "convrot": true, else its C (default 256) */
} safespec_int8_layer;

/* convrot_w4a4's "linear_dtype": which activation quantizer and GEMM. */
typedef enum safespec_w4a4_linear_dtype {
  SAFESPEC_W4A4_LINEAR_INT4 = 0, /* "int4", the marker's default */
  SAFESPEC_W4A4_LINEAR_INT8 = 1, /* "int8": only the cuda backend honours it; eager runs int4 (§6.3) */
  /* Not values: they make every int a valid value of the type, so a caller's
     out-of-range value is refused with SAFESPEC_INVALID_ARGUMENT, never undefined. */
  SAFESPEC_W4A4_LINEAR_MIN_ENUM_ = -0x7FFFFFFF - 1,
  SAFESPEC_W4A4_LINEAR_MAX_ENUM_ = 0x7FFFFFFF
} safespec_w4a4_linear_dtype;

/* convrot_w4a4: weight [N, K/2] (U8 or I8), signed low-nibble-first codes;
 * weight_scale [N] (F32, BF16, F16); bias [N] (F32, BF16, F16) or absent. */
typedef struct safespec_w4a4_layer {
  safespec_tensor weight;
  safespec_tensor weight_scale;
  safespec_tensor bias;
  uint64_t convrot_groupsize; /* C, a power of 4 (the marker's default is 256) */
  safespec_w4a4_linear_dtype linear_dtype;
} safespec_w4a4_layer;

/* semantics: accepted for symmetry with `safespec linear --semantics`;
 * int8_tensorwise has one activation path here (comfy-kitchen's CUDA
 * activation kernel for it is not recorded), so both give the same y. */
SAFESPEC_API safespec_status safespec_int8_linear(const safespec_int8_layer* layer, const safespec_tensor* x,
                                                  safespec_semantics semantics, safespec_buffer* y,
                                                  safespec_tensors** trace, safespec_error* error);
/* semantics picks comfy-kitchen's backend: SAFESPEC_SEMANTICS_CUDA runs
 * linear_dtype as given, SAFESPEC_SEMANTICS_EAGER always the int4 path. */
SAFESPEC_API safespec_status safespec_w4a4_linear(const safespec_w4a4_layer* layer, const safespec_tensor* x,
                                                  safespec_semantics semantics, safespec_buffer* y,
                                                  safespec_tensors** trace, safespec_error* error);

/* --- Dequantization: the weight in the original, un-rotated basis --------
 * Each writes out: [N, K] values of the output dtype T (F32, BF16 or F16
 * unless said otherwise), every rounding as spec/numerics/dequant.hpp
 * states. */

/* float8_e4m3fn / float8_e5m2: codes [N, K] F8_E4M3 or F8_E5M2; scale one
 * element (F32, BF16, F16). */
SAFESPEC_API safespec_status safespec_dequant_fp8(const safespec_tensor* codes, const safespec_tensor* scale,
                                                  safespec_buffer* out, safespec_error* error);
/* int8_tensorwise: q [N, K] I8 (or U8 read as I8); scale one element or
 * [N, 1]; convrot_groupsize 0 for no ConvRot, else a power of 4. */
SAFESPEC_API safespec_status safespec_dequant_int8(const safespec_tensor* q, const safespec_tensor* scale,
                                                   uint64_t convrot_groupsize, safespec_buffer* out,
                                                   safespec_error* error);
/* convrot_w4a4: packed [N, K/2] (U8 or I8), signed low-nibble-first codes;
 * scale [N]; convrot_groupsize a power of 4. */
SAFESPEC_API safespec_status safespec_dequant_convrot_w4a4(const safespec_tensor* packed, const safespec_tensor* scale,
                                                           uint64_t convrot_groupsize, safespec_buffer* out,
                                                           safespec_error* error);
/* nvfp4: packed [N16, K16/2] (U8 or I8), E2M1 high nibble first;
 * block_scales the swizzled E4M3 bytes (F8_E4M3 or U8), 2-D; global_scale
 * one element; out [rows, cols], the logical N <= N16 and K <= K16 (0, 0:
 * the whole padded [N16, K16]). */
SAFESPEC_API safespec_status safespec_dequant_nvfp4(const safespec_tensor* packed, const safespec_tensor* block_scales,
                                                    const safespec_tensor* global_scale, uint64_t rows, uint64_t cols,
                                                    safespec_buffer* out, safespec_error* error);

typedef enum safespec_e8m0 {
  SAFESPEC_E8M0_KITCHEN = 0, /* comfy-kitchen's decoder: code 0 is 0, 255 is +inf (the default) */
  SAFESPEC_E8M0_OCP = 1, /* OCP MX / torch.float8_e8m0fnu: code 0 is 2^-127, 255 is NaN */
  /* Not values: they make every int a valid value of the type, so a caller's
     out-of-range value is refused with SAFESPEC_INVALID_ARGUMENT, never undefined. */
  SAFESPEC_E8M0_MIN_ENUM_ = -0x7FFFFFFF - 1,
  SAFESPEC_E8M0_MAX_ENUM_ = 0x7FFFFFFF
} safespec_e8m0;

/* mxfp8: codes [N32, K32] F8_E4M3 (or U8); block_scales the swizzled E8M0
 * bytes (U8 or F8_E8M0), 2-D; out [rows, cols] as for nvfp4. */
SAFESPEC_API safespec_status safespec_dequant_mxfp8(const safespec_tensor* codes, const safespec_tensor* block_scales,
                                                    uint64_t rows, uint64_t cols, safespec_e8m0 e8m0,
                                                    safespec_buffer* out, safespec_error* error);
/* awq_w4a16: packed [N, K/2] (U8 or I8), unsigned low-nibble-first codes;
 * scale and zeros [K/G, N] of one dtype S (F32, BF16, F16), in which the
 * weight is computed; out of dtype S, or F32 (S values widened). */
SAFESPEC_API safespec_status safespec_dequant_awq(const safespec_tensor* packed, const safespec_tensor* scale,
                                                  const safespec_tensor* zeros, uint64_t group_size,
                                                  safespec_buffer* out, safespec_error* error);
/* asym_w4a8_int8: the layer's weight as comfy-kitchen's eager dequantize
 * computes it (x, bias and the options are not used); out F32 only. */
SAFESPEC_API safespec_status safespec_dequant_w4a8(const safespec_w4a8_layer* layer, safespec_buffer* out,
                                                   safespec_error* error);

/* --- Number formats ------------------------------------------------------ */

typedef enum safespec_codec {
  SAFESPEC_CODEC_E4M3FN = 0,       /* uint8 codes; encode saturates to +-448, NaN -> 0x7F | sign */
  SAFESPEC_CODEC_E5M2 = 1,         /* uint8 codes; decode only */
  SAFESPEC_CODEC_E8M0_KITCHEN = 2, /* uint8 codes; decode only */
  SAFESPEC_CODEC_E8M0_OCP = 3,     /* uint8 codes; decode only */
  SAFESPEC_CODEC_E2M1 = 4,         /* uint8, one code per byte (low nibble); encode clamps to +-6 */
  SAFESPEC_CODEC_BF16 = 5,         /* uint16 bit patterns; encode rounds to nearest even */
  SAFESPEC_CODEC_F16 = 6, /* uint16 bit patterns; encode rounds to nearest even */
  /* Not values: they make every int a valid value of the type, so a caller's
     out-of-range value is refused with SAFESPEC_INVALID_ARGUMENT, never undefined. */
  SAFESPEC_CODEC_MIN_ENUM_ = -0x7FFFFFFF - 1,
  SAFESPEC_CODEC_MAX_ENUM_ = 0x7FFFFFFF
} safespec_codec;

/* count codes (uint8_t, or uint16_t for BF16 and F16) to binary32, which
 * holds each exactly. */
SAFESPEC_API safespec_status safespec_decode(safespec_codec codec, const void* codes, size_t count, float* values,
                                             safespec_error* error);
/* count binary32 values to codes; SAFESPEC_UNSUPPORTED for a codec without
 * an encoder (E5M2, E8M0). */
SAFESPEC_API safespec_status safespec_encode(safespec_codec codec, const float* values, size_t count, void* codes,
                                             safespec_error* error);

/* --- Comparing two tensors -------------------------------------------------
 * expected and actual, of one dtype and one shape, as `safespec compare`
 * compares a pair of tensors (docs/cli.md): how far apart in units in the
 * last place of their dtype (sign-magnitude order: +0 and -0 are 0 apart,
 * two NaNs 0, a NaN and a number infinitely far; integers |a - b|; dtypes
 * without a value order 0 when the bytes are equal, else infinitely far),
 * and in absolute and relative error. F4 and F6_* tensors are compared as
 * stored, as the command compares them: each byte counts as one element
 * and, unless all are equal, every one as infinitely far; their size_bytes
 * must be equal, and their shape is not held to it. */

/* Which elements pass: those at most ulps apart and, when atol or rtol is
 * not 0, finite pairs with |actual - expected| <= atol + rtol * |expected|
 * (numpy.isclose). atol and rtol are finite, 0 or more. */
typedef struct safespec_tolerance {
  uint64_t ulps;
  double atol;
  double rtol;
} safespec_tolerance;

typedef struct safespec_comparison safespec_comparison;

/* On SAFESPEC_OK, *out is a new comparison the caller frees with
 * safespec_comparison_free. tolerance NULL: 0 ulps (bit-exact, but for +-0
 * and NaNs). Two dtypes or two shapes are SAFESPEC_INVALID_INPUT; a tolerance
 * out of range, a NULL, or a size_bytes that is not the shape's is
 * SAFESPEC_INVALID_ARGUMENT. The buffers are only read during the call. */
SAFESPEC_API safespec_status safespec_compare(const safespec_tensor* expected, const safespec_tensor* actual,
                                              const safespec_tolerance* tolerance, safespec_comparison** out,
                                              safespec_error* error);
/* Frees a comparison and every string handed out from it. NULL is allowed. */
SAFESPEC_API void safespec_comparison_free(safespec_comparison* comparison);

typedef struct safespec_comparison_summary {
  uint64_t count;          /* elements */
  uint64_t bit_exact;      /* elements whose bytes are equal */
  int max_ulps_infinite;   /* 1: some pair is infinitely far apart (max_ulps is then 0) */
  uint64_t max_ulps;
  double max_abs;          /* the largest |actual - expected|; may be infinite */
  double max_rel;          /* the largest |actual - expected| / |expected|; may be infinite */
  int within;              /* 1: every element passes the tolerance */
  uint64_t beyond;         /* the elements that do not */
} safespec_comparison_summary;
SAFESPEC_API safespec_status safespec_comparison_get(const safespec_comparison* comparison,
                                                     safespec_comparison_summary* out);

/* How many elements lie at each distance: *count entries, by ulps ascending,
 * then one with infinite 1 for the pairs infinitely far apart, if any. */
SAFESPEC_API safespec_status safespec_comparison_distance_count(const safespec_comparison* comparison,
                                                                size_t* count);
SAFESPEC_API safespec_status safespec_comparison_distance(const safespec_comparison* comparison, size_t entry,
                                                          int* infinite, uint64_t* ulps, uint64_t* elements);

typedef enum safespec_difference_kind {
  SAFESPEC_DIFFERENCE_FIRST = 0, /* the first element whose bytes differ */
  SAFESPEC_DIFFERENCE_WORST = 1, /* the first element the furthest apart in ulps */
  /* Not values: they make every int a valid value of the type, so a caller's
     out-of-range value is refused with SAFESPEC_INVALID_ARGUMENT, never undefined. */
  SAFESPEC_DIFFERENCE_MIN_ENUM_ = -0x7FFFFFFF - 1,
  SAFESPEC_DIFFERENCE_MAX_ENUM_ = 0x7FFFFFFF
} safespec_difference_kind;

/* present 0: no element differs (the other fields are then unset). index:
 * flat, row-major (a byte offset for F4 and F6_*); differing: for FIRST,
 * how many elements differ in their bytes, 0 for WORST; position "[1, 4]";
 * expected and actual "0.5 (0x3f000000)". The strings live until the
 * comparison is freed. */
typedef struct safespec_difference {
  int present;
  uint64_t index;
  uint64_t differing;
  safespec_string position;
  safespec_string expected;
  safespec_string actual;
} safespec_difference;
SAFESPEC_API safespec_status safespec_comparison_difference(const safespec_comparison* comparison,
                                                            safespec_difference_kind which,
                                                            safespec_difference* out);

#ifdef __cplusplus
}
#endif

#endif /* SAFESPEC_NUMERICS_H */
