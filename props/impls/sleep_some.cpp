// An implementation under test that hangs on files whose name contains
// "_slow" (a child of its own sleeps too, holding stdout open, so only
// killing the whole process group ends it); the others get the verdict
// their name tells.
#include <unistd.h>

#include <string>

#include "props/impls/by_name.hpp"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  if (safespec::test_impl::base_name(argv[1]).find("_slow") != std::string::npos) {
    (void)::fork();
    ::sleep(60);
    return 0;
  }
  return safespec::test_impl::verdict_by_name(argv[1]);
}
