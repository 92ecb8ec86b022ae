// An implementation under test that agrees with the naming convention:
// accept_ files exit 0, all others 1.
#include "props/impls/by_name.hpp"

int main(int argc, char** argv) { return argc > 1 ? safespec::test_impl::verdict_by_name(argv[1]) : 2; }
