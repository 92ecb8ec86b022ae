/* consumer_c PATH...: each file's verdict and findings through the C API.
 * Exit 0 when every file is ok, 1 when one is not, 2 on a failed call. */
#include <stdio.h>

#include <safespec/safespec.h>

int main(int argc, char** argv) {
  safespec_report* report = NULL;
  size_t files = 0, i;
  int all_ok = 1;
  safespec_status s = safespec_check_paths((const char* const*)(argv + 1), (size_t)(argc - 1), "strict", NULL, &report);
  if (s != SAFESPEC_OK) {
    fprintf(stderr, "consumer_c: %s\n", safespec_status_message(s));
    return 2;
  }
  safespec_report_file_count(report, &files);
  for (i = 0; i < files; ++i) {
    safespec_string path;
    size_t findings = 0, k;
    int ok = 0;
    safespec_file_path(report, i, &path);
    safespec_file_ok(report, i, &ok);
    safespec_file_finding_count(report, i, &findings);
    printf("%s: %s, %zu findings\n", path.data, ok ? "ok" : "FAIL", findings);
    for (k = 0; k < findings; ++k) {
      safespec_finding f;
      safespec_finding_get(report, i, k, &f);
      printf("  %s at %s: %s\n", f.rule.data, f.where.data, f.message.data);
    }
    all_ok = all_ok && ok;
  }
  safespec_report_free(report);
  return all_ok ? 0 : 1;
}
