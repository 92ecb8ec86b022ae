/* safespec's C API: check safetensors files and bytes in memory against the
 * executable specification, in-process, and read the report without parsing
 * JSON.
 *
 * Plain C99. Every function returns a safespec_status; results come back
 * through out-parameters, which are written only when the call returns
 * SAFESPEC_OK. No C++ exception crosses this boundary: the implementation
 * catches every one and returns SAFESPEC_OUT_OF_MEMORY or
 * SAFESPEC_INTERNAL_ERROR.
 *
 * Lifetimes: a report (safespec_report) is created by a check function and
 * owned by the caller until safespec_report_free. Every string and value the
 * accessors hand out points into the report and stays valid, unchanged,
 * until that report is freed; the caller never frees them.
 *
 * Threads: calls on different reports may run concurrently, and so may any
 * number of check calls (safespec keeps no global state but its read-only
 * rule catalogue). The accessors of one report only read it, so they may
 * also be called concurrently on the same report.
 *
 * Strings: a safespec_string has an explicit size, since names decoded from a
 * JSON header may hold NUL bytes; data[size] is always a NUL, so data can
 * also be printed as a C string. A string that the JSON report writes as
 * null has data == NULL and size 0. Text is UTF-8.
 *
 * Versions: SAFESPEC_API_VERSION changes whenever a declaration here changes
 * in a way that breaks source or binary compatibility (a struct gains a field,
 * an enum value is renumbered), and grows when functions are added (102: the
 * int8_tensorwise and convrot_w4a4 linears; 103: safespec_finding_fix; 104:
 * safespec_rules_json and safespec_compare; 105: safespec_layer_describe and
 * safespec_dequant_layer, any format by its marker name), so
 * `#if SAFESPEC_API_VERSION >=`
 * tests for them; safespec_version() gives the version of the library
 * actually linked, so a program can refuse a mismatch at run time.
 */
#ifndef SAFESPEC_SAFESPEC_H
#define SAFESPEC_SAFESPEC_H

#include <stddef.h>
#include <stdint.h>

/* The library is built with hidden visibility; these are what it exports. */
#if defined(__GNUC__)
#define SAFESPEC_API __attribute__((visibility("default")))
#else
#define SAFESPEC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The API's version: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define SAFESPEC_API_VERSION 105

typedef enum safespec_status {
  SAFESPEC_OK = 0,
  /* A required pointer was NULL, a count was given with no array, an
   * options struct has a struct_size this library does not know, a --layer
   * word is not NAME=linear or NAME=embedding, or the layers file cannot be
   * read. */
  SAFESPEC_INVALID_ARGUMENT = 1,
  /* The profile name is none of strict, safetensors, sglang, comfyui, kitchen. */
  SAFESPEC_UNKNOWN_PROFILE = 2,
  /* A file, finding, step or rule index past the end. */
  SAFESPEC_OUT_OF_RANGE = 3,
  /* An option this call cannot honour: data rules on bytes in memory. */
  SAFESPEC_UNSUPPORTED = 4,
  /* Memory ran out inside safespec; nothing was returned. */
  SAFESPEC_OUT_OF_MEMORY = 5,
  /* Any other failure inside safespec: a bug, please report it. */
  SAFESPEC_INTERNAL_ERROR = 6,
  /* Numeric inputs the specification refuses (safespec/numerics.h): a shape
   * or divisibility its format forbids; the safespec_error names the rule. */
  SAFESPEC_INVALID_INPUT = 7
} safespec_status;

/* A readable sentence for a status ("unknown profile"); never NULL, static. */
SAFESPEC_API const char* safespec_status_message(safespec_status status);

/* The library's own SAFESPEC_API_VERSION, and its release ("0.1.0"), static. */
SAFESPEC_API safespec_status safespec_version(uint32_t* api_version, const char** release);

typedef struct safespec_string {
  const char* data; /* NULL: JSON null; otherwise NUL-terminated at data[size] */
  size_t size;
} safespec_string;

typedef enum safespec_severity { SAFESPEC_SEVERITY_ERROR = 0, SAFESPEC_SEVERITY_WARNING = 1 } safespec_severity;

/* A row of safespec's consumer table (spec/consumers.hpp): the programs
 * whose verdicts safespec reproduces; safetensors is the reference reader
 * (huggingface/safetensors). The named values are the rows of this release;
 * iterate 0 .. safespec_consumer_count() - 1 to meet every row, and find one
 * by name with safespec_consumer_by_name. */
typedef enum safespec_consumer {
  SAFESPEC_CONSUMER_SAFETENSORS = 0,
  SAFESPEC_CONSUMER_SGLANG = 1,
  SAFESPEC_CONSUMER_COMFYUI = 2,
  SAFESPEC_CONSUMER_KITCHEN = 3,
  /* Not values: they make every int a valid value of the type, so a caller's
     out-of-range value is refused with SAFESPEC_INVALID_ARGUMENT, never undefined. */
  SAFESPEC_CONSUMER_MIN_ENUM_ = -0x7FFFFFFF - 1,
  SAFESPEC_CONSUMER_MAX_ENUM_ = 0x7FFFFFFF
} safespec_consumer;
#define SAFESPEC_CONSUMER_COUNT 4

/* What a consumer does because of one finding; NONE: the finding does not
 * affect it. */
typedef enum safespec_effect {
  SAFESPEC_EFFECT_NONE = 0,
  SAFESPEC_EFFECT_REJECTS = 1,
  SAFESPEC_EFFECT_MISLOADS = 2,
  SAFESPEC_EFFECT_WARNS = 3
} safespec_effect;

/* What fails a file's "ok": DEFAULT is what `safespec check` does without
 * --fail-on (ERROR for strict and safetensors, MISLOAD for the consumer
 * profiles). */
typedef enum safespec_fail_on {
  SAFESPEC_FAIL_ON_DEFAULT = 0,
  SAFESPEC_FAIL_ON_ERROR = 1,
  SAFESPEC_FAIL_ON_MISLOAD = 2,
  SAFESPEC_FAIL_ON_WARNING = 3,
  /* Not values: they make every int a valid value of the type, so a caller's
     out-of-range value is refused with SAFESPEC_INVALID_ARGUMENT, never undefined. */
  SAFESPEC_FAIL_ON_MIN_ENUM_ = -0x7FFFFFFF - 1,
  SAFESPEC_FAIL_ON_MAX_ENUM_ = 0x7FFFFFFF
} safespec_fail_on;

/* The options of `safespec check`. Initialise with
 * safespec_check_options_init, then set fields; passing NULL instead of an
 * options struct means the defaults. The struct and the arrays it points to
 * are only read during the call. */
typedef struct safespec_check_options {
  uint32_t struct_size;     /* sizeof(safespec_check_options), set by _init */
  safespec_fail_on fail_on; /* --fail-on */
  int data;                 /* --data: also check tensor values (paths only; bytes: SAFESPEC_UNSUPPORTED) */
  int separate;             /* --separate (paths only) */
  int checkpoint;           /* --checkpoint (paths only; bytes are always one checkpoint) */
  int all_linear;           /* --all-linear */
  const char* const* layers; /* --layer words, "NAME=linear" or "NAME=embedding" */
  size_t layer_count;
  const char* layers_file; /* --layers FILE, or NULL */
  /* safespec_check_bytes: the name the report gives the buffer (its "path");
   * NULL: "<memory>". */
  const char* name;
  /* --consumer words, "NAME=VERSION": the version of a consumer whose
   * verdict, profile and "ok" the report uses (every version is judged). */
  const char* const* consumers;
  size_t consumer_count;
} safespec_check_options;

/* Fills *options with the defaults (what `safespec check` does without options). */
SAFESPEC_API safespec_status safespec_check_options_init(safespec_check_options* options);

typedef struct safespec_report safespec_report;

/* Checks one whole file held in memory, as `safespec check --profile PROFILE`
 * checks it on disk. buf may be NULL only when len is 0. profile: a profile
 * name, or NULL for "strict". On SAFESPEC_OK, *out is a new report with one
 * file, which the caller frees with safespec_report_free; that the bytes
 * break rules is not an error of the call (see the report). The buffer is
 * only read during the call and is not kept. */
SAFESPEC_API safespec_status safespec_check_bytes(const uint8_t* buf, size_t len, const char* profile,
                                                  const safespec_check_options* options, safespec_report** out);

/* Checks paths as `safespec check` does: .safetensors files (loose files of
 * one shard series read together), shard indexes (*.index.json: the index's
 * report, then one per shard) and directories. n paths, none NULL. A path
 * that cannot be read gives a file with an error (safespec_file_error), not
 * a failed call. */
SAFESPEC_API safespec_status safespec_check_paths(const char* const* paths, size_t n, const char* profile,
                                                  const safespec_check_options* options, safespec_report** out);

/* Frees a report and everything handed out from it. NULL is allowed. */
SAFESPEC_API void safespec_report_free(safespec_report* report);

/* The report as `safespec check --json` prints it, byte for byte (schema 1,
 * with its final newline). *json stays valid until the report is freed. */
SAFESPEC_API safespec_status safespec_report_json(const safespec_report* report, const char** json, size_t* len);

/* The rule catalogue and the consumer matrix as `safespec rules --json`
 * prints them, byte for byte (schema 1, with its final newline). Static:
 * valid for the life of the program, never freed. */
SAFESPEC_API safespec_status safespec_rules_json(const char** json, size_t* len);

/* --- Files ------------------------------------------------------------- */

SAFESPEC_API safespec_status safespec_report_file_count(const safespec_report* report, size_t* count);

/* JSON "path": the path as given (or the options' name for bytes). */
SAFESPEC_API safespec_status safespec_file_path(const safespec_report* report, size_t file, safespec_string* path);

/* JSON "ok": readable and nothing that fails it by fail_on. */
SAFESPEC_API safespec_status safespec_file_ok(const safespec_report* report, size_t file, int* ok);

/* JSON "error": why the file could not be read, or data == NULL. */
SAFESPEC_API safespec_status safespec_file_error(const safespec_report* report, size_t file, safespec_string* error);

/* JSON "hint": what bytes that are no safetensors file look like, or NULL. */
SAFESPEC_API safespec_status safespec_file_hint(const safespec_report* report, size_t file, safespec_string* hint);

/* JSON "complete": readable, and nothing left unchecked. */
SAFESPEC_API safespec_status safespec_file_complete(const safespec_report* report, size_t file, int* complete);

/* JSON "unchecked": what could not be checked, and why. */
SAFESPEC_API safespec_status safespec_file_unchecked_count(const safespec_report* report, size_t file, size_t* count);
SAFESPEC_API safespec_status safespec_file_unchecked(const safespec_report* report, size_t file, size_t item,
                                                     safespec_string* what, safespec_string* why);

/* JSON "counts": per rule, every finding the profile shows (listed or only
 * counted past the bound), in catalogue order, rules with none left out. */
SAFESPEC_API safespec_status safespec_file_rule_count_size(const safespec_report* report, size_t file,
                                                           size_t* count);
SAFESPEC_API safespec_status safespec_file_rule_count(const safespec_report* report, size_t file, size_t entry,
                                                      safespec_string* rule, uint64_t* findings);

/* JSON "consumers": what each consumer does with the file. judged is 0 for
 * a file without consumer outcomes (an unreadable file, an index none of
 * whose shards could be read), and on a file of a checkpoint of several
 * files for the consumers that load the checkpoint whole: their verdict is
 * on the checkpoint's report (its index's, or one made for a shard series
 * or for files checked together, placed before its files); the other
 * fields are then unset. error and message have
 * data == NULL when the consumer loads the file; config is sglang's
 * quantization config when it loads a quantized checkpoint, else NULL. */
/* judged is 0 too when safespec cannot tell what this consumer does
 * (JSON "loads": null); safespec_file_consumer_version says why. */
typedef struct safespec_outcome {
  int judged;
  int loads;
  safespec_string error;
  safespec_string message;
  safespec_string config;
} safespec_outcome;
SAFESPEC_API safespec_status safespec_file_consumer(const safespec_report* report, size_t file,
                                                    safespec_consumer consumer, safespec_outcome* outcome);

/* --- Findings ---------------------------------------------------------- */

SAFESPEC_API safespec_status safespec_file_finding_count(const safespec_report* report, size_t file,
                                                         size_t* count);

/* The rule's stable id ("ST-OFFSET-GAP"), its severity under the profile,
 * safespec's message (what was expected, what was found), the readable place
 * ("tensor 'a'") and the reference reader's error variant for the rule, or
 * "accepts" for a rule only safespec enforces. */
typedef struct safespec_finding {
  safespec_string rule;
  safespec_severity severity;
  safespec_string message;
  safespec_string where;
  safespec_string reference;
} safespec_finding;
SAFESPEC_API safespec_status safespec_finding_get(const safespec_report* report, size_t file, size_t finding,
                                                  safespec_finding* out);
/* The finding's rule's one-line fix, as the JSON's "fix" ("pad the header
 * with spaces to a multiple of 8 bytes"); static, never freed. A function of
 * its own, so safespec_finding keeps its size. */
SAFESPEC_API safespec_status safespec_finding_fix(const safespec_report* report, size_t file, size_t finding,
                                                  safespec_string* out);

/* The place's kind, in JSON "place"."kind" order. */
typedef enum safespec_place_kind {
  SAFESPEC_PLACE_NONE = 0,
  SAFESPEC_PLACE_FILE = 1,
  SAFESPEC_PLACE_HEADER = 2,
  SAFESPEC_PLACE_BYTE = 3,
  SAFESPEC_PLACE_TENSOR = 4,
  SAFESPEC_PLACE_TENSOR_FIELD = 5,
  SAFESPEC_PLACE_METADATA = 6,
  SAFESPEC_PLACE_METADATA_KEY = 7,
  SAFESPEC_PLACE_LAYER = 8,
  SAFESPEC_PLACE_CHECKPOINT = 9,
  SAFESPEC_PLACE_INDEX = 10,
  SAFESPEC_PLACE_WEIGHT_MAP = 11,
  SAFESPEC_PLACE_INDEX_ENTRY = 12,
  SAFESPEC_PLACE_INDEX_TOTAL_SIZE = 13,
  SAFESPEC_PLACE_SHARD = 14,
  SAFESPEC_PLACE_ARGUMENT = 15
} safespec_place_kind;

/* JSON "place": kind (and its JSON spelling, "tensor_field"); name exactly
 * as the file spells it after JSON decoding, or NULL for kinds without a
 * name; field for TENSOR_FIELD, else NULL; byte for BYTE (has_byte 1), else
 * 0; path_length steps below a field or metadata key (safespec_place_step). */
typedef struct safespec_place {
  safespec_place_kind kind;
  safespec_string kind_name;
  safespec_string name;
  safespec_string field;
  int has_byte;
  uint64_t byte;
  size_t path_length;
} safespec_place;
SAFESPEC_API safespec_status safespec_finding_place(const safespec_report* report, size_t file, size_t finding,
                                                    safespec_place* out);
/* One step of the place's path: an object key (is_index 0, key set) or an
 * array index (is_index 1, index set). */
SAFESPEC_API safespec_status safespec_place_step(const safespec_report* report, size_t file, size_t finding,
                                                 size_t step, int* is_index, safespec_string* key, uint64_t* index);

/* One consumer's verdict on the finding: its effect (NONE when the finding
 * does not affect it; JSON "consumers" lists the others), and for the
 * others its exception class or error variant and its exact message. */
typedef struct safespec_verdict {
  safespec_effect effect;
  safespec_string error;
  safespec_string message;
} safespec_verdict;
SAFESPEC_API safespec_status safespec_finding_verdict(const safespec_report* report, size_t file, size_t finding,
                                                      safespec_consumer consumer, safespec_verdict* out);

/* "safetensors", "sglang", "comfyui", "kitchen", ...: the row's name; NULL
 * for a value that is no row. */
SAFESPEC_API const char* safespec_consumer_name(safespec_consumer consumer);
/* The number of rows in the consumer table. */
SAFESPEC_API size_t safespec_consumer_count(void);
/* The row named `name` (as JSON and --profile spell it). */
SAFESPEC_API safespec_status safespec_consumer_by_name(const char* name, safespec_consumer* out);
/* The versions or modes of a consumer that answer differently ("safe-open",
 * "dynamic-vram", ...), in the table's order; *count is 1 for a consumer
 * with one. *id is NULL past the last. */
SAFESPEC_API safespec_status safespec_consumer_version_count(safespec_consumer consumer, size_t* count);
SAFESPEC_API const char* safespec_consumer_version_id(safespec_consumer consumer, size_t version);
/* One version's outcome on a file, as JSON "versions" gives it (the
 * outcome safespec_file_consumer gives is the chosen version's). When
 * safespec cannot tell, outcome->judged is 0 and *unknown holds the reason
 * (else its data is NULL). */
SAFESPEC_API safespec_status safespec_file_consumer_version(const safespec_report* report, size_t file,
                                                            safespec_consumer consumer, size_t version,
                                                            safespec_outcome* outcome, safespec_string* unknown);

#ifdef __cplusplus
}
#endif

/* The W4A8 linear, dequantization and number formats on caller buffers. */
#include "numerics.h"
/* One layer of any format, by its marker name: describe and dequantize. */
#include "layer.h"

#endif /* SAFESPEC_SAFESPEC_H */
