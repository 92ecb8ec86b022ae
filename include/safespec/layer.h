/* One quantized layer of any format, named by its marker's format
 * (included by safespec/safespec.h). The layer is given as a checkpoint holds
 * it: its tensors by suffix ("weight", "weight_scale", "bias", ... as P.weight,
 * P.weight_scale, P.bias are named in a file) and its marker's keys other
 * than "format" as a JSON object. It is checked by the rules `safespec
 * check` applies to a checkpoint's layer and read by the reader `safespec
 * dequant` uses, so every format of the format table is reachable through
 * these two calls (asym_w4a8_int8 at 4 and 6 bits, svdquant_w4a4 natural and
 * tile-packed included), and a new format needs no new function here.
 *
 * The tensors are copied into one in-memory checkpoint: a layer at a time,
 * not a model. The format-specific calls of safespec/numerics.h read the
 * caller's buffers in place.
 */
#ifndef SAFESPEC_LAYER_H
#define SAFESPEC_LAYER_H

#include <stddef.h>
#include <stdint.h>

#include "numerics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One tensor of the layer, its name without the layer's prefix. */
typedef struct safespec_named_tensor {
  const char* suffix; /* "weight", "weight_scale", "proj_up", "bias", ... */
  safespec_tensor tensor;
} safespec_named_tensor;

/* What the layer is, as `safespec inspect` reports it. */
typedef struct safespec_layer_info {
  char format[64];         /* the marker's format, as the format table names it */
  char packing[16];        /* how the weight holds its values: "plain", "nibbles", "bits6", "tile_packed4" */
  uint64_t rows;           /* N: the logical weight's rows (output features) */
  uint64_t cols;           /* K: its columns (input features) */
  uint64_t parameters;     /* N * K */
  uint64_t stored_bytes;   /* the bytes of its tensors and marker as a file stores them */
} safespec_layer_info;

/* The layer's format, packing and logical size. format: the marker's
 * "format" ("nvfp4", "svdquant_w4a4", ...); marker_json: the marker's other
 * keys as a JSON object ("{\"group_size\": 32}"), or NULL for none. A layer
 * one of its format's rules refuses (as ComfyUI or comfy-kitchen would, or
 * the format's producer for a format ComfyUI does not register) gives
 * SAFESPEC_INVALID_INPUT with the rule id; an unknown format, a bad suffix or
 * marker_json, or a tensor descriptor that does not add up gives
 * SAFESPEC_INVALID_ARGUMENT. */
SAFESPEC_API safespec_status safespec_layer_describe(const char* format, const char* marker_json,
                                                     const safespec_named_tensor* tensors, size_t count,
                                                     safespec_layer_info* info, safespec_error* error);

/* The layer's weight dequantized, as `safespec dequant` writes it for the
 * same layer in a file: out [N, K] (safespec_layer_describe's rows and cols)
 * of F32, or BF16 / F16 (the F32 values rounded to nearest even).
 * frozen_codebook: nonzero decodes a 4-bit asym_w4a8_int8 layer without
 * weight_codebook through comfy-kitchen's frozen codebook (`--codebook
 * frozen`). Errors as safespec_layer_describe's. */
SAFESPEC_API safespec_status safespec_dequant_layer(const char* format, const char* marker_json,
                                                    const safespec_named_tensor* tensors, size_t count,
                                                    int frozen_codebook, safespec_buffer* out,
                                                    safespec_error* error);

#ifdef __cplusplus
}
#endif

#endif /* SAFESPEC_LAYER_H */
