// consumer_cxx FILE: the same C API from C++, on bytes in memory, with the
// report owned by a unique_ptr. Prints the JSON `safespec check --json`
// would; exit 0 when the file is ok, 1 when not, 2 on a failed call.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

#include <safespec/safespec.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  safespec_check_options options;
  safespec_check_options_init(&options);
  options.name = argv[1];
  safespec_report* raw = nullptr;
  if (safespec_check_bytes(bytes.data(), bytes.size(), "safetensors", &options, &raw) != SAFESPEC_OK) return 2;
  const std::unique_ptr<safespec_report, decltype(&safespec_report_free)> report(raw, &safespec_report_free);
  const char* json = nullptr;
  size_t len = 0;
  int ok = 0;
  if (safespec_report_json(report.get(), &json, &len) != SAFESPEC_OK) return 2;
  std::fwrite(json, 1, len, stdout);
  safespec_file_ok(report.get(), 0, &ok);
  return ok ? 0 : 1;
}
