// Any bytes as an .npy file: the reader refuses with a message, or returns an
// array that the writer serializes and the reader reads back unchanged.
#include <cstdio>
#include <cstdlib>

#include "src/io/npy.hpp"

namespace {

[[noreturn]] void fail(const char* why) {
  std::fprintf(stderr, "npy_fuzzer: %s\n", why);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto a = safespec::parse_npy({data, size});
  if (!a) {
    if (a.error().empty()) fail("a refusal without a message");
    return 0;
  }
  const auto bytes = safespec::serialize_npy(a.value());
  if (!bytes) fail("an accepted array cannot be written");
  const auto back = safespec::parse_npy(bytes.value());
  if (!back || back.value().type != a.value().type || back.value().shape != a.value().shape ||
      back.value().data != a.value().data)
    fail("an accepted array does not survive write and read");
  return 0;
}
