/* The C API (include/safespec/safespec.h) used from C, as a user would.
 *   c_api_test EXAMPLES_DIR            the checks below; exit 0 when all hold
 *   c_api_test --json PROFILE PATH...  safespec_report_json of check_paths
 *   c_api_test --json-bytes PROFILE PATH  the same of check_bytes, named PATH
 *   c_api_test --corrupt IN OUT        IN with its header length one past the file
 * cmake/CApiJson.cmake compares the --json modes with `safespec check --json`. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safespec/safespec.h"

#include "c_check.h"

/* The whole file, or NULL; *len its size. The caller frees. */
static uint8_t* read_all(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  uint8_t* buf = NULL;
  long size;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    buf = (uint8_t*)malloc((size_t)size + 1);
    if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) {
      free(buf);
      buf = NULL;
    }
    *len = (size_t)size;
  }
  fclose(f);
  return buf;
}

static int str_is(safespec_string s, const char* expected) {
  return s.data != NULL && s.size == strlen(expected) && memcmp(s.data, expected, s.size) == 0;
}

/* The header length field (8 bytes, little-endian) set one past what the
 * file holds: ST-HEADER-LENGTH, the reference's InvalidHeaderLength. */
static void corrupt_length(uint8_t* buf, size_t len) {
  uint64_t n = (uint64_t)len - 8 + 1;
  int i;
  for (i = 0; i < 8; ++i) buf[i] = (uint8_t)(n >> (8 * i));
}

static size_t error_findings(const safespec_report* r, size_t file) {
  size_t n = 0, k, errors = 0;
  safespec_finding f;
  CHECK(safespec_file_finding_count(r, file, &n) == SAFESPEC_OK);
  for (k = 0; k < n; ++k) {
    CHECK(safespec_finding_get(r, file, k, &f) == SAFESPEC_OK);
    if (f.severity == SAFESPEC_SEVERITY_ERROR) ++errors;
  }
  return errors;
}

static void test_version(void) {
  uint32_t api = 0;
  const char* release = NULL;
  CHECK(safespec_version(&api, &release) == SAFESPEC_OK);
  CHECK(api == SAFESPEC_API_VERSION);
  CHECK(release != NULL && release[0] >= '0' && release[0] <= '9');
  CHECK(safespec_version(NULL, &release) == SAFESPEC_INVALID_ARGUMENT);
}

static void test_valid(const char* examples) {
  char path[4096];
  size_t len = 0, files = 0, i;
  uint8_t* buf;
  safespec_report* r = NULL;
  safespec_string name;
  safespec_outcome o;
  int ok = 0;
  snprintf(path, sizeof path, "%s/tiny-llm.safetensors", examples);
  buf = read_all(path, &len);
  CHECK(buf != NULL);
  if (!buf) return;
  CHECK(safespec_check_bytes(buf, len, "strict", NULL, &r) == SAFESPEC_OK);
  free(buf); /* the report keeps no pointer into the buffer */
  CHECK(safespec_report_file_count(r, &files) == SAFESPEC_OK && files == 1);
  CHECK(safespec_file_path(r, 0, &name) == SAFESPEC_OK && str_is(name, "<memory>"));
  CHECK(error_findings(r, 0) == 0);
  CHECK(safespec_file_ok(r, 0, &ok) == SAFESPEC_OK && ok == 1);
  CHECK(safespec_file_error(r, 0, &name) == SAFESPEC_OK && name.data == NULL);
  for (i = 0; i < SAFESPEC_CONSUMER_COUNT; ++i) {
    CHECK(safespec_file_consumer(r, 0, (safespec_consumer)i, &o) == SAFESPEC_OK);
    CHECK(o.judged == 1 && o.loads == 1 && o.error.data == NULL && o.message.data == NULL);
  }
  safespec_report_free(r);
}

static void test_corrupted(const char* examples) {
  char path[4096];
  size_t len = 0, n = 0;
  uint8_t* buf;
  safespec_report* r = NULL;
  safespec_check_options options;
  safespec_finding f;
  safespec_place p;
  safespec_verdict v;
  safespec_outcome o;
  safespec_string s;
  int ok = 1;
  snprintf(path, sizeof path, "%s/tiny-llm.safetensors", examples);
  buf = read_all(path, &len);
  CHECK(buf != NULL && len == 1496);
  if (!buf) return;
  corrupt_length(buf, len);
  CHECK(safespec_check_options_init(&options) == SAFESPEC_OK);
  options.name = "corrupt.safetensors";
  CHECK(safespec_check_bytes(buf, len, "safetensors", &options, &r) == SAFESPEC_OK);
  free(buf);
  CHECK(safespec_file_path(r, 0, &s) == SAFESPEC_OK && str_is(s, "corrupt.safetensors"));
  CHECK(safespec_file_ok(r, 0, &ok) == SAFESPEC_OK && ok == 0);
  CHECK(safespec_file_finding_count(r, 0, &n) == SAFESPEC_OK && n == 1);
  CHECK(safespec_finding_get(r, 0, 0, &f) == SAFESPEC_OK);
  /* What `safespec check` prints for the same bytes (cmake/CApiJson.cmake
   * holds the two JSON documents equal). */
  CHECK(str_is(f.rule, "ST-HEADER-LENGTH"));
  CHECK(f.severity == SAFESPEC_SEVERITY_ERROR);
  CHECK(str_is(f.message, "expected a file of at least 8 + 1489 = 1497 bytes for the header, found 1496 bytes"));
  CHECK(str_is(f.where, "byte 0"));
  CHECK(str_is(f.reference, "InvalidHeaderLength"));
  /* The rule's fix, as the JSON's "fix". */
  CHECK(safespec_finding_fix(r, 0, 0, &s) == SAFESPEC_OK &&
        str_is(s, "the file is cut short or its first 8 bytes are wrong: copy it again, or rewrite it with a "
                  "safetensors writer"));
  CHECK(s.data[s.size] == '\0');
  CHECK(safespec_finding_fix(r, 0, 1, &s) == SAFESPEC_OUT_OF_RANGE);
  CHECK(safespec_finding_fix(r, 0, 0, NULL) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_finding_place(r, 0, 0, &p) == SAFESPEC_OK);
  CHECK(p.kind == SAFESPEC_PLACE_BYTE && str_is(p.kind_name, "byte") && p.has_byte == 1 && p.byte == 0);
  CHECK(p.name.data == NULL && p.field.data == NULL && p.path_length == 0);
  CHECK(safespec_finding_verdict(r, 0, 0, SAFESPEC_CONSUMER_SAFETENSORS, &v) == SAFESPEC_OK);
  CHECK(v.effect == SAFESPEC_EFFECT_REJECTS && str_is(v.error, "InvalidHeaderLength"));
  CHECK(safespec_file_consumer(r, 0, SAFESPEC_CONSUMER_SAFETENSORS, &o) == SAFESPEC_OK);
  CHECK(o.judged == 1 && o.loads == 0 && str_is(o.error, "InvalidHeaderLength"));
  CHECK(safespec_file_consumer(r, 0, SAFESPEC_CONSUMER_SGLANG, &o) == SAFESPEC_OK);
  CHECK(o.loads == 0 && str_is(o.error, "SafetensorError"));
  safespec_report_free(r);
}

/* The consumer table and its versions: a gap in the data loads in ComfyUI's
 * DynamicVRAM mode and not through safe_open; --consumer picks the mode. */
static void test_consumer_versions(const char* examples) {
  char path[4096];
  const char* paths[1];
  const char* picks[1] = {"comfyui=dynamic-vram"};
  safespec_report* r = NULL;
  safespec_check_options options;
  safespec_consumer comfy = SAFESPEC_CONSUMER_SAFETENSORS;
  safespec_outcome o;
  safespec_string why;
  size_t i, count = 0, dynamic = 99;
  int ok = 0;
  CHECK(safespec_consumer_count() >= 4);
  for (i = 0; i < safespec_consumer_count(); ++i) CHECK(safespec_consumer_name((safespec_consumer)i) != NULL);
  CHECK(safespec_consumer_name((safespec_consumer)safespec_consumer_count()) == NULL);
  CHECK(safespec_consumer_by_name("comfyui", &comfy) == SAFESPEC_OK && comfy == SAFESPEC_CONSUMER_COMFYUI);
  CHECK(safespec_consumer_by_name("vllm", &comfy) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_consumer_version_count(SAFESPEC_CONSUMER_COMFYUI, &count) == SAFESPEC_OK && count == 3);
  for (i = 0; i < count; ++i)
    if (strcmp(safespec_consumer_version_id(SAFESPEC_CONSUMER_COMFYUI, i), "dynamic-vram") == 0) dynamic = i;
  CHECK(dynamic == 1);
  CHECK(safespec_consumer_version_id(SAFESPEC_CONSUMER_COMFYUI, count) == NULL);
  snprintf(path, sizeof path, "%s/bad/reject_F8_gap.safetensors", examples);
  paths[0] = path;
  CHECK(safespec_check_paths(paths, 1, "comfyui", NULL, &r) == SAFESPEC_OK);
  CHECK(safespec_file_ok(r, 0, &ok) == SAFESPEC_OK && ok == 0);
  CHECK(safespec_file_consumer(r, 0, SAFESPEC_CONSUMER_COMFYUI, &o) == SAFESPEC_OK && o.judged == 1 && o.loads == 0);
  CHECK(safespec_file_consumer_version(r, 0, SAFESPEC_CONSUMER_COMFYUI, dynamic, &o, &why) == SAFESPEC_OK);
  CHECK(o.judged == 1 && o.loads == 1 && why.data == NULL);
  CHECK(safespec_file_consumer_version(r, 0, SAFESPEC_CONSUMER_COMFYUI, count, &o, &why) == SAFESPEC_INVALID_ARGUMENT);
  safespec_report_free(r);
  CHECK(safespec_check_options_init(&options) == SAFESPEC_OK);
  options.consumers = picks;
  options.consumer_count = 1;
  CHECK(safespec_check_paths(paths, 1, "comfyui", &options, &r) == SAFESPEC_OK);
  CHECK(safespec_file_ok(r, 0, &ok) == SAFESPEC_OK && ok == 1);
  CHECK(safespec_file_consumer(r, 0, SAFESPEC_CONSUMER_COMFYUI, &o) == SAFESPEC_OK && o.loads == 1);
  safespec_report_free(r);
  picks[0] = "comfyui=nightly";
  CHECK(safespec_check_paths(paths, 1, "comfyui", &options, &r) == SAFESPEC_INVALID_ARGUMENT);
}

/* The README's example: every part of one finding, typed. */
static void test_gap_file(const char* examples) {
  char path[4096];
  const char* paths[1];
  size_t n = 0, k;
  safespec_report* r = NULL;
  safespec_finding f;
  safespec_place p;
  safespec_verdict v;
  int found = 0;
  snprintf(path, sizeof path, "%s/bad/reject_F8_gap.safetensors", examples);
  paths[0] = path;
  CHECK(safespec_check_paths(paths, 1, NULL, NULL, &r) == SAFESPEC_OK);
  CHECK(safespec_file_finding_count(r, 0, &n) == SAFESPEC_OK && n == 2);
  for (k = 0; k < n; ++k) {
    CHECK(safespec_finding_get(r, 0, k, &f) == SAFESPEC_OK);
    if (!str_is(f.rule, "ST-OFFSET-GAP")) continue;
    found = 1;
    CHECK(str_is(f.message, "expected data_offsets begin 0 (where the byte buffer starts), found 1: a gap of 1 byte"));
    CHECK(str_is(f.reference, "InvalidOffset"));
    CHECK(safespec_finding_place(r, 0, k, &p) == SAFESPEC_OK);
    CHECK(p.kind == SAFESPEC_PLACE_TENSOR && str_is(p.name, "a") && p.has_byte == 0);
    CHECK(safespec_finding_verdict(r, 0, k, SAFESPEC_CONSUMER_SGLANG, &v) == SAFESPEC_OK);
    CHECK(v.effect == SAFESPEC_EFFECT_REJECTS && str_is(v.error, "SafetensorError"));
    CHECK(str_is(v.message, "Error while deserializing header: invalid offset for tensor `a`"));
  }
  CHECK(found);
  safespec_report_free(r);
}

/* Wrong calls get their documented status, never a crash, and leave *out alone. */
static void test_misuse(void) {
  const uint8_t bytes[8] = {0};
  safespec_report* r = (safespec_report*)&failures; /* a sentinel that must survive */
  safespec_report* good = NULL;
  safespec_check_options options;
  const char* null_path[1] = {NULL};
  const char* missing[1] = {"/nonexistent/safespec/c_api_test.safetensors"};
  const char* json = NULL;
  const char* bad_layer[1] = {"no-equals-sign"};
  size_t n = 0, len = 0;
  safespec_string s;
  safespec_finding f;
  safespec_outcome o;
  CHECK(safespec_check_bytes(NULL, 5, NULL, NULL, &r) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_check_bytes(bytes, sizeof bytes, NULL, NULL, NULL) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_check_bytes(bytes, sizeof bytes, "Strict", NULL, &r) == SAFESPEC_UNKNOWN_PROFILE);
  CHECK(safespec_check_bytes(bytes, sizeof bytes, "", NULL, &r) == SAFESPEC_UNKNOWN_PROFILE);
  CHECK(safespec_check_paths(NULL, 1, NULL, NULL, &r) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_check_paths(null_path, 1, NULL, NULL, &r) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_check_paths(missing, 1, "bogus", NULL, &r) == SAFESPEC_UNKNOWN_PROFILE);
  CHECK(safespec_check_options_init(NULL) == SAFESPEC_INVALID_ARGUMENT);
  safespec_check_options_init(&options);
  options.struct_size = 4;
  CHECK(safespec_check_bytes(bytes, sizeof bytes, NULL, &options, &r) == SAFESPEC_INVALID_ARGUMENT);
  safespec_check_options_init(&options);
  options.data = 1;
  CHECK(safespec_check_bytes(bytes, sizeof bytes, NULL, &options, &r) == SAFESPEC_UNSUPPORTED);
  safespec_check_options_init(&options);
  options.layer_count = 1;
  CHECK(safespec_check_bytes(bytes, sizeof bytes, NULL, &options, &r) == SAFESPEC_INVALID_ARGUMENT);
  options.layers = bad_layer;
  CHECK(safespec_check_bytes(bytes, sizeof bytes, NULL, &options, &r) == SAFESPEC_INVALID_ARGUMENT);
  safespec_check_options_init(&options);
  options.fail_on = (safespec_fail_on)42;
  CHECK(safespec_check_bytes(bytes, sizeof bytes, NULL, &options, &r) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(r == (safespec_report*)&failures);

  /* An empty buffer is a file (too small), not a misuse. */
  CHECK(safespec_check_bytes(NULL, 0, NULL, NULL, &good) == SAFESPEC_OK);
  CHECK(safespec_finding_get(good, 0, 0, &f) == SAFESPEC_OK && str_is(f.rule, "ST-FILE-TOO-SMALL"));
  CHECK(safespec_finding_get(good, 0, 1, &f) == SAFESPEC_OUT_OF_RANGE);
  CHECK(safespec_finding_get(good, 1, 0, &f) == SAFESPEC_OUT_OF_RANGE);
  CHECK(safespec_finding_get(good, 0, 0, NULL) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_finding_get(NULL, 0, 0, &f) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_file_consumer(good, 0, (safespec_consumer)9, &o) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_report_file_count(NULL, &n) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_report_json(good, &json, NULL) == SAFESPEC_INVALID_ARGUMENT);
  CHECK(safespec_report_json(NULL, &json, &len) == SAFESPEC_INVALID_ARGUMENT);
  safespec_report_free(good);
  safespec_report_free(NULL);

  /* A path that cannot be read is a file with an error. */
  good = NULL;
  CHECK(safespec_check_paths(missing, 1, "sglang", NULL, &good) == SAFESPEC_OK);
  CHECK(safespec_report_file_count(good, &n) == SAFESPEC_OK && n == 1);
  CHECK(safespec_file_error(good, 0, &s) == SAFESPEC_OK && s.data != NULL && s.size > 0 && s.data[s.size] == '\0');
  CHECK(safespec_file_consumer(good, 0, SAFESPEC_CONSUMER_SGLANG, &o) == SAFESPEC_OK && o.judged == 0);
  safespec_report_free(good);

  CHECK(strcmp(safespec_status_message(SAFESPEC_UNKNOWN_PROFILE), "ok") != 0);
  CHECK(safespec_consumer_name(SAFESPEC_CONSUMER_KITCHEN) != NULL &&
        strcmp(safespec_consumer_name(SAFESPEC_CONSUMER_KITCHEN), "kitchen") == 0);
  CHECK(safespec_consumer_name((safespec_consumer)7) == NULL);
}

/* Bytes named as the file they came from give the JSON the path gives. */
static void test_bytes_json_is_path_json(const char* examples) {
  char path[4096];
  const char* paths[1];
  size_t len = 0, a_len = 0, b_len = 0;
  uint8_t* buf;
  safespec_report *a = NULL, *b = NULL;
  safespec_check_options options;
  const char *a_json = NULL, *b_json = NULL;
  snprintf(path, sizeof path, "%s/quant/w4a8_valid.safetensors", examples);
  paths[0] = path;
  buf = read_all(path, &len);
  CHECK(buf != NULL);
  if (!buf) return;
  safespec_check_options_init(&options);
  options.name = path;
  CHECK(safespec_check_bytes(buf, len, "sglang", &options, &a) == SAFESPEC_OK);
  CHECK(safespec_check_paths(paths, 1, "sglang", NULL, &b) == SAFESPEC_OK);
  CHECK(safespec_report_json(a, &a_json, &a_len) == SAFESPEC_OK);
  CHECK(safespec_report_json(b, &b_json, &b_len) == SAFESPEC_OK);
  CHECK(a_len == b_len && a_json && b_json && memcmp(a_json, b_json, a_len) == 0);
  CHECK(a_len > 0 && a_json[a_len - 1] == '\n' && a_json[a_len] == '\0');
  safespec_report_free(a);
  safespec_report_free(b);
  free(buf);
}

/* Checks on separate reports in parallel give each the same report: no
 * state is shared between calls but the read-only catalogue. */
struct parallel_job {
  const uint8_t* buf;
  size_t len;
  const char* json; /* the expected document */
  size_t json_len;
  int same; /* out: every round gave the expected document */
};

static void* parallel_check(void* arg) {
  struct parallel_job* job = (struct parallel_job*)arg;
  int round;
  job->same = 1;
  for (round = 0; round < 20; ++round) {
    safespec_report* r = NULL;
    const char* json = NULL;
    size_t len = 0;
    if (safespec_check_bytes(job->buf, job->len, "sglang", NULL, &r) != SAFESPEC_OK ||
        safespec_report_json(r, &json, &len) != SAFESPEC_OK || len != job->json_len ||
        memcmp(json, job->json, len) != 0)
      job->same = 0;
    safespec_report_free(r);
  }
  return NULL;
}

static void test_parallel(const char* examples) {
  enum { kThreads = 4 };
  char path[4096];
  size_t len = 0, json_len = 0;
  uint8_t* buf;
  safespec_report* r = NULL;
  const char* json = NULL;
  pthread_t threads[kThreads];
  struct parallel_job jobs[kThreads];
  int i;
  snprintf(path, sizeof path, "%s/quant/mixed_w4a8_fp8.safetensors", examples);
  buf = read_all(path, &len);
  CHECK(buf != NULL);
  if (!buf) return;
  CHECK(safespec_check_bytes(buf, len, "sglang", NULL, &r) == SAFESPEC_OK);
  CHECK(safespec_report_json(r, &json, &json_len) == SAFESPEC_OK);
  for (i = 0; i < kThreads; ++i) {
    jobs[i].buf = buf;
    jobs[i].len = len;
    jobs[i].json = json;
    jobs[i].json_len = json_len;
    CHECK(pthread_create(&threads[i], NULL, parallel_check, &jobs[i]) == 0);
  }
  for (i = 0; i < kThreads; ++i) {
    CHECK(pthread_join(threads[i], NULL) == 0);
    CHECK(jobs[i].same);
  }
  safespec_report_free(r);
  free(buf);
}

static int print_json(safespec_report* r, safespec_status s) {
  const char* json = NULL;
  size_t len = 0;
  if (s != SAFESPEC_OK || safespec_report_json(r, &json, &len) != SAFESPEC_OK) {
    fprintf(stderr, "c_api_test: %s\n", safespec_status_message(s));
    return 2;
  }
  fwrite(json, 1, len, stdout);
  safespec_report_free(r);
  return 0;
}

int main(int argc, char** argv) {
  safespec_report* r = NULL;
  safespec_status s;
  if (argc >= 4 && strcmp(argv[1], "--json") == 0) {
    s = safespec_check_paths((const char* const*)(argv + 3), (size_t)(argc - 3), argv[2], NULL, &r);
    return print_json(r, s);
  }
  if (argc == 4 && strcmp(argv[1], "--json-bytes") == 0) {
    size_t len = 0;
    uint8_t* buf = read_all(argv[3], &len);
    safespec_check_options options;
    if (!buf) return 2;
    safespec_check_options_init(&options);
    options.name = argv[3];
    s = safespec_check_bytes(buf, len, argv[2], &options, &r);
    free(buf);
    return print_json(r, s);
  }
  if (argc == 4 && strcmp(argv[1], "--corrupt") == 0) {
    size_t len = 0;
    uint8_t* buf = read_all(argv[2], &len);
    FILE* out = fopen(argv[3], "wb");
    if (!buf || !out || len < 8) return 2;
    corrupt_length(buf, len);
    if (fwrite(buf, 1, len, out) != len) return 2;
    free(buf);
    return fclose(out) == 0 ? 0 : 2;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: c_api_test EXAMPLES_DIR | --json PROFILE PATH... | --json-bytes PROFILE PATH | --corrupt IN OUT\n");
    return 2;
  }
  test_version();
  test_valid(argv[1]);
  test_corrupted(argv[1]);
  test_gap_file(argv[1]);
  test_consumer_versions(argv[1]);
  test_misuse();
  test_bytes_json_is_path_json(argv[1]);
  test_parallel(argv[1]);
  if (failures) fprintf(stderr, "c_api_test: %d checks failed\n", failures);
  else printf("c_api_test: all checks hold\n");
  return failures ? 1 : 0;
}
